// D17 (docs/decisions.md): the monthly count is exact under concurrency: with M units left, N
// simultaneous requests give exactly M successes, each seeing a different Remaining, and the stored
// count ends at the limit. Also across two app instances on one database (as two processes would
// be).
import { sql } from 'kysely';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { expectError } from '../support/expect.js';
import { syntheticTable } from '../support/rates.js';
import { BILLING_DAY, NOW, PERIOD, account, anotherKey, stored } from './support.js';
import { appForFile } from '../support/app.js';

const N = 60;

const t = appForFile({ now: NOW }, syntheticTable('2026-05-04', '2026-05-11'));

interface Answer {
  status: number;
  remaining: number;
  body: any;
  headers: Headers;
}

async function answer(response: Promise<Response>): Promise<Answer> {
  const res = await response;
  const text = await res.text();
  return { status: res.status, remaining: Number(res.headers.get('x-ratelimit-remaining-monthly')), body: JSON.parse(text), headers: res.headers };
}

function expectExactly(answers: Answer[], left: number): void {
  const ok = answers.filter((a) => a.status === 200);
  const refused = answers.filter((a) => a.status === 429);
  expect(ok.length + refused.length, `statuses: ${answers.map((a) => a.status).join(',')}`).toBe(answers.length);
  expect(ok).toHaveLength(left);
  expect(refused).toHaveLength(answers.length - left);
  // Each success saw the count after its own unit: {left − 1, …, 0}, each once.
  expect(ok.map((a) => a.remaining).sort((a, b) => a - b)).toEqual([...Array(left).keys()]);
  for (const r of refused) {
    expectError(r, 429, 'rate_limit_exceeded');
    expect(r.remaining).toBe(0);
  }
}

describe(`${N} simultaneous keyed requests`, () => {
  it.each([
    ['professional', 50_000, 10],
    ['starter', 5_000, 1],
    ['business', 500_000, 37],
  ] as const)('%s with %i − %i used: exactly that many 200s', async (plan, limit, left) => {
    const { email, key } = await account(t, plan, { billingDay: BILLING_DAY, used: limit - left, period: PERIOD });
    const answers = await Promise.all(Array.from({ length: N }, () => answer(t.request('/latest?symbols=USD', { key }))));
    expectExactly(answers, left);
    expect(await stored(t, email)).toEqual({ used: limit, period: PERIOD, billingDay: BILLING_DAY });
  });

  it('Free with 7 of its 300 left', async () => {
    const { email, key } = await account(t, 'free', { used: 293 });
    const answers = await Promise.all(Array.from({ length: N }, () => answer(t.request('/latest/EUR', { key }))));
    expectExactly(answers, 7);
    expect((await stored(t, email)).used).toBe(300);
  });

  it('spread over three keys of the account and several endpoints', async () => {
    const { email, key } = await account(t, 'professional', { billingDay: BILLING_DAY, used: 49_985, period: PERIOD });
    const keys = [key, await anotherKey(t, email), await anotherKey(t, email)];
    const paths = ['/latest', '/latest/USD', '/2026-05-11', '/convert?from=USD&to=EUR&amount=5'];
    const answers = await Promise.all(Array.from({ length: N }, (_, i) => answer(t.request(paths[i % paths.length]!, { key: keys[i % keys.length]! }))));
    expectExactly(answers, 15);
    expect((await stored(t, email)).used).toBe(50_000);
  });

  it('mixed with failing requests, which take nothing', async () => {
    const { email, key } = await account(t, 'starter', { billingDay: BILLING_DAY, used: 4_990, period: PERIOD });
    const answers = await Promise.all(Array.from({ length: N }, (_, i) => answer(t.request(i % 2 === 0 ? '/latest' : '/2026-05-10', { key }))));
    const notFound = answers.filter((a) => a.status === 404);
    expect(notFound).toHaveLength(N / 2);
    expectExactly(
      answers.filter((a) => a.status !== 404),
      10,
    );
    expect((await stored(t, email)).used).toBe(5_000);
  });
});

/** A second app on the test's database, as another process would be, with a clock of its own. */
const anotherInstance = (clock: () => Date) =>
  buildApp({ config: t.config, db: t.db, operatorToken: 'another-operator-token-0123456789', clock, logger: pino({ level: 'silent' }) });

describe('two app instances on one database', () => {
  it(`${N} requests split between them: exactly the units left succeed`, async () => {
    const second = anotherInstance(() => new Date(NOW));
    try {
      const { email, key } = await account(t, 'professional', { billingDay: BILLING_DAY, used: 49_988, period: PERIOD });
      const fetchVia = (i: number) =>
        i % 2 === 0
          ? t.request('/latest?symbols=USD', { key })
          : second.web.fetch('http://rates.test/latest?symbols=USD', { headers: { Authorization: `Bearer ${key}` } });
      const answers = await Promise.all(Array.from({ length: N }, (_, i) => answer(Promise.resolve(fetchVia(i)))));
      expectExactly(answers, 12);
      expect((await stored(t, email)).used).toBe(50_000);
    } finally {
      await second.close();
    }
  });

  // Each instance's grants ask for many accounts at once, and the two lock some of the same rows.
  it('the requests of twelve accounts split between them, each account 5 units from its limit: exactly 5 successes each', async () => {
    const second = anotherInstance(() => new Date(NOW));
    try {
      const accounts = await Promise.all(
        Array.from({ length: 12 }, () => account(t, 'professional', { billingDay: BILLING_DAY, used: 50_000 - 5, period: PERIOD })),
      );
      const fetchVia = (i: number, key: string) =>
        i % 2 === 0
          ? t.request('/latest?symbols=USD', { key })
          : second.web.fetch('http://rates.test/latest?symbols=USD', { headers: { Authorization: `Bearer ${key}` } });
      const answers = await Promise.all(
        accounts.map(({ key }) => Promise.all(Array.from({ length: 10 }, (_, i) => answer(Promise.resolve(fetchVia(i, key)))))),
      );
      for (const [i, ofAccount] of answers.entries()) {
        expectExactly(ofAccount, 5);
        expect((await stored(t, accounts[i]!.email)).used, `account ${i}`).toBe(50_000);
      }
    } finally {
      await second.close();
    }
  });
});

describe('two processes whose clocks straddle a billing date', () => {
  it('a request stamped with the old period after the new one began neither gets a unit of the used-up old period nor resets the new count', async () => {
    // Billing day 20: the reset is 2026-05-20T00:00:00Z. This app's clock is at the reset; the other
    // process's clock is one second behind (ordinary clock skew), so it still computes the old period.
    const reset = '2026-05-20T00:00:00Z';
    const behind = anotherInstance(() => new Date(Date.parse(reset) - 1000));
    t.setNow(reset);
    try {
      const { email, key } = await account(t, 'starter', { billingDay: BILLING_DAY, used: 5_000, period: PERIOD });
      const viaBehind = () => answer(Promise.resolve(behind.web.fetch('http://rates.test/latest', { headers: { Authorization: `Bearer ${key}` } })));

      // Just before the reset (as the lagging process sees it) the old period is used up: 429.
      expectError(await viaBehind(), 429, 'rate_limit_exceeded');
      // The new period begins: one unit used.
      const first = await answer(t.request('/latest', { key }));
      expect(first.status).toBe(200);
      expect(first.remaining).toBe(4_999);
      expect(await stored(t, email)).toEqual({ used: 1, period: '2026-05-20', billingDay: BILLING_DAY });

      // The lagging process asks again for the old, used-up period: it must not be served from a
      // count of 0, and it must not move the account back into the old period.
      const late = await viaBehind();
      expect([200, 429]).toContain(late.status);
      const row = await stored(t, email);
      expect(row.period, `the lagging request answered ${late.status} and stored ${JSON.stringify(row)}`).toBe('2026-05-20');
      if (late.status === 200)
        expect(row.used).toBe(2); // counted in the current period
      else expect(row.used).toBe(1);
      const next = await answer(t.request('/latest', { key }));
      expect(next.remaining).toBe(5_000 - row.used - 1);
    } finally {
      t.setNow(NOW);
      await behind.close();
    }
  });
});

describe('many accounts at once', () => {
  it('the requests of twenty accounts arriving together share a grant: one transaction took their units', async () => {
    const accounts = await Promise.all(Array.from({ length: 20 }, () => account(t, 'professional', { billingDay: BILLING_DAY, used: 100, period: PERIOD })));
    // Their keys are known first, so that every request reaches the quota in the same turn.
    for (const { key } of accounts) expect((await t.request('/latest?symbols=USD', { key })).status).toBe(200);
    const answers = await Promise.all(accounts.map(({ key }) => answer(t.request('/latest?symbols=USD', { key }))));
    expect(answers.map((a) => [a.status, a.remaining])).toEqual(accounts.map(() => [200, 50_000 - 102]));
    const { rows } = await sql<{ transaction: string }>`
      select distinct xmin::text as transaction from accounts where email in (${sql.join(accounts.map((a) => a.email))})`.execute(t.db);
    expect(rows).toHaveLength(1);
  });
});

describe('more accounts busy at once than the database pool has connections', () => {
  // On a Postgres server a run of grants holds a pool connection (10) from one grant to the next
  // (src/rest/monthly-quota.ts); every account must still be served while all are busy, and each
  // count must stay exact, one of them reaching its limit meanwhile.
  const ACCOUNTS = 14;
  const CLIENTS = 4;
  const ROUNDS = 25;

  it(`${ACCOUNTS} accounts, ${CLIENTS} back-to-back clients each: every request answered, every count exact`, async () => {
    const accounts = await Promise.all(
      Array.from({ length: ACCOUNTS }, (_, i) => account(t, 'professional', { billingDay: BILLING_DAY, used: i === 0 ? 50_000 - 30 : 1_000, period: PERIOD })),
    );
    const statuses = await Promise.all(
      accounts.map(async ({ key }) => {
        const seen: number[] = [];
        await Promise.all(
          Array.from({ length: CLIENTS }, async () => {
            for (let round = 0; round < ROUNDS; round++) seen.push((await answer(t.request('/latest?symbols=USD', { key }))).status);
          }),
        );
        return seen;
      }),
    );
    for (const [i, seen] of statuses.entries()) {
      const ok = seen.filter((status) => status === 200).length;
      expect(
        seen.filter((status) => status !== 200 && status !== 429),
        `account ${i}`,
      ).toEqual([]);
      expect(ok, `account ${i}`).toBe(i === 0 ? 30 : CLIENTS * ROUNDS);
      expect((await stored(t, accounts[i]!.email)).used, `account ${i}`).toBe(i === 0 ? 50_000 : 1_000 + CLIENTS * ROUNDS);
    }
  }, 60_000);
});
