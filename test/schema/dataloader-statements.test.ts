// The relational reads of one operation are batched (src/schema/loaders.ts): a nested operator query
// over many accounts (their keys with each key's restrictions, usage, webhook subscriptions with
// their recent deliveries, alerts) and the analytics that walk to accounts, keys and subscriptions
// run as many statements for 50 accounts as for 5, and each account still gets its own rows.
// Statements are counted from Kysely's log hook, only those the operation itself runs (its async
// context), never the app's background work.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { appForFile, CREATE_ACCOUNT, type OperatorResult } from '../support/app.js';
import { graphql, type ResultOf } from '../../src/graphql.js';

const statements = new AsyncLocalStorage<string[]>();
// The test app's clock reads 12 May 2026, 13:00 in Sydney: an account made now has billing day 12,
// so usage on 12 May is this period's and usage on 1 May the previous one's
const t = appForFile({ databaseLog: (event) => statements.getStore()?.push(event.query.sql) });

const CURRENT_DAY = '2026-05-12';
const PREVIOUS_DAY = '2026-05-01';

const CREATE_KEY = graphql(`
  mutation ($e: EmailAddress!, $r: KeyRestrictionsInput) {
    createApiKey(email: $e, restrictions: $r) {
      key
      apiKey {
        id
        prefix
      }
    }
  }
`);

const NESTED = graphql(`
  query ($first: Int!) {
    accounts(first: $first) {
      edges {
        node {
          email
          apiKeys {
            prefix
            lastUsedOn
            restrictions {
              monthlyCap
              capUsed
            }
          }
          usage {
            current {
              totalRequests
              byKey {
                prefix
                requests
              }
            }
            previous {
              totalRequests
            }
          }
          webhookSubscriptions {
            url
            recentDeliveries {
              deliveryId
              attempt
            }
          }
          alerts {
            currency
            value
          }
        }
      }
    }
  }
`);

const USAGE_WALK = graphql(`
  query ($from: LocalDate!, $to: LocalDate!) {
    usage(from: $from, to: $to, groupBy: [ACCOUNT, KEY]) {
      groups(first: 500) {
        edges {
          node {
            requests
            accountEmail
            account {
              email
              webhookSubscriptions {
                url
              }
            }
            keyPrefix
            key {
              prefix
              status
            }
          }
        }
      }
    }
  }
`);

const QUOTA_WALK = graphql(`
  query {
    accountStats {
      quotaAlerts(atLeastPercent: 1, first: 500) {
        edges {
          node {
            email
            account {
              email
              alerts {
                currency
              }
            }
          }
        }
      }
    }
  }
`);

const HEALTH_WALK = graphql(`
  query ($from: LocalDate!, $to: LocalDate!) {
    webhookHealth(from: $from, to: $to) {
      subscriptions(first: 500) {
        edges {
          node {
            url
            subscription {
              url
              recentDeliveries {
                deliveryId
              }
            }
          }
        }
      }
    }
  }
`);

interface Made {
  email: string;
  /** the account's key prefixes, newest first */
  prefixes: string[];
  url: string;
  /** its subscription's two attempts' delivery ids, newest first */
  deliveries: string[];
}

const made: Made[] = [];

/** A Professional account with two keys (the newer capped), a subscription with two attempts, an alert, and usage in this period and the last. */
async function makeAccount(): Promise<void> {
  const n = made.length;
  const email = `loaders-${n}-${randomUUID()}@example.test`;
  expect((await t.operator(CREATE_ACCOUNT, { e: email, p: 'professional' })).errors).toBeUndefined();
  const keys = [];
  for (const restrictions of [null, { monthlyCap: 1_000 }]) {
    const created = await t.operator(CREATE_KEY, { e: email, r: restrictions });
    expect(created.errors).toBeUndefined();
    keys.push(created.data!.createApiKey);
  }
  const [first, second] = keys as [(typeof keys)[number], (typeof keys)[number]];
  const account = await t.db.selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  // Written as the API would store them: a request through it would add to the usage below, at a
  // time of the recorder's choosing.
  const url = `https://hooks.example.com/accounts/${n}`;
  const subscriptionId = randomBytes(16).toString('hex');
  await t.db
    .insertInto('webhook_subscriptions')
    .values({ id: subscriptionId, account_id: account.id, url, currencies: null, description: null, secret_ciphertext: 'sealed' })
    .execute();
  await t.db
    .insertInto('alerts')
    .values({ id: randomBytes(16).toString('hex'), account_id: account.id, currency: 'USD', condition: 'above', value: alertValue(n), channels: ['email'] })
    .execute();

  // this period: n + 3 requests on the first key, 2 on the second; the last: 5 on the first
  await t.db
    .insertInto('usage_daily')
    .values([
      { day: CURRENT_DAY, account_id: account.id, key_id: first.apiKey.id, endpoint: 'Latest', status: 200, requests: n + 3 },
      { day: CURRENT_DAY, account_id: account.id, key_id: second.apiKey.id, endpoint: 'Latest', status: 200, requests: 2 },
      { day: PREVIOUS_DAY, account_id: account.id, key_id: first.apiKey.id, endpoint: 'Latest', status: 200, requests: 5 },
    ])
    .execute();
  // what the quota alerts list: 1,000 of the period's 50,000 units used
  await t.db.updateTable('accounts').set({ quota_used: 1_000, quota_period: CURRENT_DAY }).where('id', '=', account.id).execute();
  const deliveries = [randomUUID(), randomUUID()];
  await t.db
    .insertInto('webhook_attempts')
    .values(
      deliveries.map((deliveryId, i) => ({
        delivery_id: deliveryId,
        subscription_id: subscriptionId,
        event: 'rates.test' as const,
        rate_date: '2026-05-11',
        attempt: 1,
        attempted_at: new Date(Date.UTC(2026, 4, 12, 1, i)),
        duration_ms: 40,
        http_status: 204,
        error: null,
        outcome: 'delivered' as const,
      })),
    )
    .execute();
  made.push({ email, prefixes: [second.apiKey.prefix, first.apiKey.prefix], url, deliveries: deliveries.reverse() });
}

async function makeAccounts(total: number): Promise<void> {
  while (made.length < total) await makeAccount();
}

/** The operation's result and the statements it ran (its own, not the app's background work's). */
async function counted<Result>(operation: () => Promise<OperatorResult<Result>>): Promise<{ data: Result; statements: number }> {
  const sql: string[] = [];
  const result = await statements.run(sql, operation);
  expect(result.errors).toBeUndefined();
  return { data: result.data!, statements: sql.length };
}

/** each account's own alert level, in the digits the alert keeps */
const alertValue = (n: number) => `0.7${String(n).padStart(2, '0')}1`;

const ownOf = (email: string | null) => made.find((m) => m.email === email)!;

function expectEveryAccountsOwn(data: ResultOf<typeof NESTED>): void {
  const nodes = data.accounts.edges.map((e) => e.node);
  // made at one instant, so in no order of their making
  expect(nodes.map((node) => node.email).sort()).toEqual(made.map((m) => m.email).sort());
  for (const node of nodes) {
    const own = ownOf(node.email);
    const n = made.indexOf(own);
    expect(node.apiKeys).toEqual([
      { prefix: own.prefixes[0], lastUsedOn: CURRENT_DAY, restrictions: { monthlyCap: 1_000, capUsed: 0 } },
      { prefix: own.prefixes[1], lastUsedOn: CURRENT_DAY, restrictions: { monthlyCap: null, capUsed: null } },
    ]);
    expect(node.usage).toEqual({
      current: {
        totalRequests: n + 5,
        byKey: [
          { prefix: own.prefixes[1], requests: n + 3 },
          { prefix: own.prefixes[0], requests: 2 },
        ],
      },
      previous: { totalRequests: 5 },
    });
    expect(node.webhookSubscriptions).toEqual([{ url: own.url, recentDeliveries: own.deliveries.map((deliveryId) => ({ deliveryId, attempt: 1 })) }]);
    expect(node.alerts).toEqual([{ currency: 'USD', value: alertValue(n) }]);
  }
}

function expectUsageWalk(data: ResultOf<typeof USAGE_WALK>): void {
  const groups = data.usage.groups.edges.map((e) => e.node);
  expect(groups).toHaveLength(2 * made.length);
  for (const group of groups) {
    const own = ownOf(group.accountEmail);
    expect(group.account).toEqual({ email: own.email, webhookSubscriptions: [{ url: own.url }] });
    expect(own.prefixes).toContain(group.keyPrefix);
    expect(group.key).toEqual({ prefix: group.keyPrefix, status: 'active' });
  }
}

function expectQuotaWalk(data: ResultOf<typeof QUOTA_WALK>): void {
  const alerts = data.accountStats.quotaAlerts.edges.map((e) => e.node);
  expect(alerts).toHaveLength(made.length);
  for (const alert of alerts) expect(alert.account).toEqual({ email: ownOf(alert.email).email, alerts: [{ currency: 'USD' }] });
}

function expectHealthWalk(data: ResultOf<typeof HEALTH_WALK>): void {
  const health = data.webhookHealth.subscriptions.edges.map((e) => e.node);
  expect(health).toHaveLength(made.length);
  for (const node of health) {
    const own = made.find((m) => m.url === node.url)!;
    expect(node.subscription).toEqual({ url: own.url, recentDeliveries: own.deliveries.map((deliveryId) => ({ deliveryId })) });
  }
}

describe('batched relational reads', () => {
  it('answers 50 accounts with their relations, and the analytics walking to them, in as many statements as 5', { timeout: 120_000 }, async () => {
    const range = { from: PREVIOUS_DAY, to: CURRENT_DAY };
    /** Runs each operation, checks each answer, and gives the statements each ran. */
    const runAll = async () => {
      const nested = await counted(() => t.operator(NESTED, { first: 100 }));
      expectEveryAccountsOwn(nested.data);
      const usage = await counted(() => t.operator(USAGE_WALK, range));
      expectUsageWalk(usage.data);
      const quota = await counted(() => t.operator(QUOTA_WALK));
      expectQuotaWalk(quota.data);
      const health = await counted(() => t.operator(HEALTH_WALK, range));
      expectHealthWalk(health.data);
      return { nested: nested.statements, usage: usage.statements, quota: quota.statements, health: health.statements };
    };

    await makeAccounts(5);
    const five = await runAll();
    await makeAccounts(50);
    const fifty = await runAll();

    expect(fifty).toEqual(five);
    // the page, keys, the keys' accounts, daily usage, usage groups, subscriptions, their attempts, alerts
    expect(five.nested).toBe(8);
  });
});
