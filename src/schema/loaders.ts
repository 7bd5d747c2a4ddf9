// Batched reads of the relational parts of the schema: accounts, their keys, usage, webhook
// subscriptions with their attempts, and alerts. A field asks its loader for one parent's rows; the
// loader collects every such ask made while the operation resolves that level of the document and
// reads them in one statement (`where account_id = any($1)`), so a list of 50 accounts with their
// keys costs one read of keys, not 50. Each operation's context makes its own loaders when it first
// needs one (src/schema/context.ts). They batch and do not remember: a relation read after a
// mutation of the same document sees its change, as a read of its own would.
import DataLoader from 'dataloader';
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { AccountDays } from '../db/loaders/account-days.js';
import { accountsByEmail } from '../db/loaders/accounts-by-email.js';
import { accountsById } from '../db/loaders/accounts-by-id.js';
import { alertsByAccount } from '../db/loaders/alerts-by-account.js';
import { apiKeysById } from '../db/loaders/api-keys-by-id.js';
import { dailyRequestsByAccount } from '../db/loaders/daily-requests-by-account.js';
import { keysByAccount } from '../db/loaders/keys-by-account.js';
import { recentAttemptsBySubscription } from '../db/loaders/recent-attempts-by-subscription.js';
import { subscriptionsByAccount } from '../db/loaders/subscriptions-by-account.js';
import { subscriptionsById } from '../db/loaders/subscriptions-by-id.js';
import { usageGroupsByAccount } from '../db/loaders/usage-groups-by-account.js';

/** how many attempts a subscription lists as its recent deliveries */
export const RECENT_ATTEMPTS = 50;

// Batching only: with DataLoader's memo a mutation of the document could be answered with rows read
// before it; asks for the same key in one batch are read once all the same (`distinct`).
const BATCH_ONLY = { cache: false } as const;

const distinct = (keys: readonly string[]) => [...new Set(keys)];

/** The value of each key (null when there is none), from one read of all the keys. */
function oneEach<V>(read: (keys: string[]) => Promise<V[]>, keyOf: (value: V) => string): DataLoader<string, V | null> {
  return new DataLoader(async (keys) => {
    const found = new Map((await read(distinct(keys))).map((value) => [keyOf(value), value]));
    return keys.map((key) => found.get(key) ?? null);
  }, BATCH_ONLY);
}

/** The values of each key, in the order the read gives them, from one read of all the keys. */
function listEach<V>(read: (keys: string[]) => Promise<V[]>, keyOf: (value: V) => string): DataLoader<string, V[]> {
  return new DataLoader(async (keys) => {
    const lists = new Map<string, V[]>(keys.map((key) => [key, []]));
    for (const value of await read(distinct(keys))) lists.get(keyOf(value))?.push(value);
    return keys.map((key) => lists.get(key)!);
  }, BATCH_ONLY);
}

/** The values of each range, from one read of all the ranges, whose values name their range by its index. */
function listEachRange<V extends { range: number }>(read: (ranges: readonly AccountDays[]) => Promise<V[]>): DataLoader<AccountDays, V[]> {
  return new DataLoader(async (ranges) => {
    const lists = ranges.map((): V[] => []);
    for (const value of await read(ranges)) lists[value.range]!.push(value);
    return lists;
  }, BATCH_ONLY);
}

export type Loaders = ReturnType<typeof createLoaders>;

export function createLoaders(db: Kysely<Database>) {
  return {
    account: oneEach(
      (ids) => accountsById(db, ids),
      (account) => account.id,
    ),
    /** by the e-mail address as stored (lower-case) */
    accountByEmail: oneEach(
      (emails) => accountsByEmail(db, emails),
      (account) => account.email,
    ),
    apiKey: oneEach(
      (ids) => apiKeysById(db, ids),
      (key) => key.id,
    ),
    /** an account's keys, newest first, with the last day each was used */
    keysOfAccount: listEach(
      (ids) => keysByAccount(db, ids),
      (key) => key.account_id,
    ),
    subscription: oneEach(
      (ids) => subscriptionsById(db, ids),
      (subscription) => subscription.id,
    ),
    /** an account's webhook subscriptions, oldest first */
    subscriptionsOfAccount: listEach(
      (ids) => subscriptionsByAccount(db, ids),
      (subscription) => subscription.account_id,
    ),
    /** a subscription's latest RECENT_ATTEMPTS attempts, newest first */
    recentAttempts: listEach(
      (ids) => recentAttemptsBySubscription(db, ids, RECENT_ATTEMPTS),
      (attempt) => attempt.subscriptionId,
    ),
    /** an account's rate alerts, oldest first */
    alertsOfAccount: listEach(
      (ids) => alertsByAccount(db, ids),
      (alert) => alert.accountId,
    ),
    /** an account's requests per Sydney date of a range, oldest first, days without requests left out */
    dailyRequests: listEachRange((ranges) => dailyRequestsByAccount(db, ranges)),
    /** an account's requests over a range by endpoint, by key and by status */
    usageGroups: listEachRange((ranges) => usageGroupsByAccount(db, ranges)),
  };
}
