// Bearer API keys (docs/api.md §5, D12, D18 in docs/decisions.md) and their restrictions
// (src/key-restrictions.ts). Lookups are cached briefly per process: every change that affects
// authentication (revoke, suspend, plan change, a key's restrictions) clears the cache of every
// process through the change feed before the change is reported done, and the TTL bounds how long
// a change can go unseen by a process whose feed was down.
import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { findKeyHolderByHash, type KeyHolder } from '../db/api-keys.js';
import type { Database } from '../db/database.js';
import { hashKey, keyPrefix } from '../domain/api-key.js';
import { AccountSuspendedError, InvalidApiKeyError, UnauthorizedError } from '../errors.js';
import type { IpAddress } from '../ip-address.js';
import { checkRestrictions, hasExpired, preparedRestrictions, type CheckedRestrictions, type KeyEndpoint } from '../key-restrictions.js';
import type { ApiKeyViewer } from '../schema/context.js';

const CACHE_TTL_MS = 2_000;
const MAX_CACHED_KEYS = 10_000;

/** A key's record as requests use it: its holder, and its restrictions made ready once. */
interface CachedKey {
  holder: KeyHolder;
  restrictions: CheckedRestrictions;
}

/** What a request is, for its key's restrictions: the route's path and the client's address. */
export interface KeyedRequest {
  path: string;
  client: IpAddress;
}

export class KeyAuthenticator {
  /** key hash → its record's lookup, for CACHE_TTL_MS by `now` */
  private readonly keyHolders: LRUCache<string, Promise<CachedKey | null>>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: () => Date = () => new Date(),
    now: () => number = Date.now,
  ) {
    this.keyHolders = new LRUCache({ max: MAX_CACHED_KEYS, ttl: CACHE_TTL_MS, ttlResolution: 0, perf: { now } });
  }

  /**
   * The viewer for an Authorization header; null when none was sent. Throws the 401 errors (an
   * expired key is one), then 403 key_restricted for a request outside the key's restrictions.
   */
  async authenticate(header: string | null, request: KeyedRequest): Promise<ApiKeyViewer | null> {
    if (header === null) return null;
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!match) throw new InvalidApiKeyError('Malformed Authorization header: use "Authorization: Bearer <API key>"');
    const key = match[1]!;
    if (keyPrefix(key) === null) throw new InvalidApiKeyError('Invalid API key');
    const cached = await this.lookup(hashKey(key));
    const holder = cached?.holder;
    if (!holder || holder.keyStatus !== 'active') throw new InvalidApiKeyError('Invalid API key: it is unknown or has been revoked');
    if (holder.accountStatus === 'suspended') {
      throw new AccountSuspendedError('This account is suspended: its API keys cannot be used until it is reinstated');
    }
    if (hasExpired(holder.expiresOn, this.clock())) {
      throw new InvalidApiKeyError(`Invalid API key: it expired on ${holder.expiresOn} (from 00:00 UTC, its expiresOn restriction)`);
    }
    checkRestrictions(cached.restrictions, request);
    return {
      kind: 'apiKey',
      accountId: holder.accountId,
      keyId: holder.keyId,
      plan: holder.plan,
      billingDay: holder.billingDay,
      monthlyCap: holder.monthlyCap,
    };
  }

  clear(): void {
    this.keyHolders.clear();
  }

  private lookup(keyHash: string): Promise<CachedKey | null> {
    const cached = this.keyHolders.get(keyHash);
    if (cached) return cached;
    // The pending lookup is what is cached, so requests arriving together share one query; a
    // change clears it, so a lookup that raced the change answers only the requests already waiting.
    const holder = findKeyHolderByHash(this.db, keyHash).then((found) => found && { holder: found, restrictions: restrictionsOf(found) });
    this.keyHolders.set(keyHash, holder);
    holder.catch(() => this.keyHolders.peek(keyHash) === holder && this.keyHolders.delete(keyHash));
    return holder;
  }
}

function restrictionsOf(holder: KeyHolder): CheckedRestrictions {
  const { allowedIps, expiresOn, monthlyCap } = holder;
  return preparedRestrictions({ allowedIps, allowedEndpoints: holder.allowedEndpoints as KeyEndpoint[] | null, expiresOn, monthlyCap });
}

export function missingKey(): UnauthorizedError {
  return new UnauthorizedError('An API key is required: send Authorization: Bearer <API key>');
}

/** D12: on the webhook endpoints a missing key is invalid_api_key. */
export function missingAccountKey(): InvalidApiKeyError {
  return new InvalidApiKeyError('An API key is required: send Authorization: Bearer <API key>');
}
