// D29 (docs/decisions.md): a batch that brings a day newer than every stored day is a publication,
// and the same transaction that stores it records one `rates.published` delivery per active
// subscription of an active account on a plan with webhooks (Professional, Business, Enterprise). A
// backfill, a correction or the same batch again publishes nothing; a failure stores neither rates nor
// deliveries.
// Nothing is sent here: the delivery worker is never run.
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/domain/plans.js';
import type { RbaDay, RbaTable } from '../../src/rba/index.js';
import { graphql, type TadaDocumentNode } from '../../src/graphql.js';
import { untilOneWaitsForALock } from '../support/db.js';
import { startTestApp, type TestApp, type VariablesArgs } from '../support/app.js';
import { UUID } from '../support/expect.js';

// Thursday 14 May 2026, 17:00 in Sydney: the day's rates are out.
const NOW = '2026-05-14T07:00:00Z';
const JSON_HEADERS = { 'Content-Type': 'application/json' };
// No receiver: the URL only has to pass creation (private targets allowed, an IP literal needs no DNS).
const URL_BASE = 'https://127.0.0.1:9/hooks';

function day(date: string, usd = '0.6543'): RbaDay {
  return { date, rates: { USD: usd, EUR: '0.6012', JPY: '98.10', TWI: '61.40', IDR: '10635' } };
}
const table = (...days: RbaDay[]): RbaTable => ({ format: 'csv', publicationDate: null, days });

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function start(): Promise<TestApp> {
  t = await startTestApp({ now: NOW, config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  return t;
}

let accounts = 0;
async function account(app: TestApp, plan: Plan): Promise<{ email: string; key: string }> {
  const email = `publication-${++accounts}-${plan}@example.test`;
  return { email, key: await app.createKey(plan, email) };
}

async function subscribe(app: TestApp, key: string, path: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await app.json('/api/webhook-subscriptions', { key, method: 'POST', headers: JSON_HEADERS, body: { url: `${URL_BASE}${path}`, ...extra } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.subscription.id as string;
}

async function operatorOk<Result, Variables>(
  app: TestApp,
  document: TadaDocumentNode<Result, Variables>,
  ...variables: VariablesArgs<Variables>
): Promise<void> {
  const result = await app.operator(document, ...variables);
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
}

async function deliveryRows(app: TestApp) {
  return app.db
    .selectFrom('webhook_deliveries')
    .select(['id', 'subscription_id', 'event', 'rate_date', 'publication_id', 'payload', 'state', 'attempts', 'next_attempt_at', 'created_at'])
    .orderBy('rate_date')
    .orderBy('subscription_id')
    .execute();
}

const countOf = async (app: TestApp, tableName: 'webhook_deliveries' | 'publications' | 'rates') =>
  Number(
    (
      await app.db
        .selectFrom(tableName)
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('publication: which subscriptions get a delivery', () => {
  it('a first day and then a newer day each record one delivery per active subscription of an active account on a plan with webhooks', async () => {
    const app = await start();
    const pro = await account(app, 'professional');
    const business = await account(app, 'business');
    const enterprise = await account(app, 'enterprise');
    const toStarter = await account(app, 'professional');
    const toFree = await account(app, 'professional');
    const suspended = await account(app, 'professional');

    const expected = [
      await subscribe(app, pro.key, '/pro-1'),
      await subscribe(app, pro.key, '/pro-2', { currencies: ['USD'] }),
      await subscribe(app, business.key, '/business'),
      await subscribe(app, enterprise.key, '/enterprise', { currencies: ['JPY', 'TWI'] }),
    ].sort();
    const inactive = await subscribe(app, pro.key, '/pro-inactive');
    const patched = await app.json(`/api/webhook-subscriptions/${inactive}`, {
      key: pro.key,
      method: 'PATCH',
      headers: JSON_HEADERS,
      body: { isActive: false },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.subscription.isActive).toBe(false);

    // Subscribed while Professional, then moved to a plan without webhooks, or suspended.
    await subscribe(app, toStarter.key, '/starter');
    await subscribe(app, toFree.key, '/free');
    await subscribe(app, suspended.key, '/suspended');
    const setPlan = graphql('mutation($e: EmailAddress!, $p: Plan!) { setAccountPlan(email: $e, plan: $p) { plan } }');
    await operatorOk(app, setPlan, { e: toStarter.email, p: 'starter' });
    await operatorOk(app, setPlan, { e: toFree.email, p: 'free' });
    await operatorOk(app, graphql('mutation($e: EmailAddress!, $s: AccountStatus!) { setAccountStatus(email: $e, status: $s) { status } }'), {
      e: suspended.email,
      s: 'suspended',
    });

    const first = await app.importTable(table(day('2026-05-13')));
    expect(first).toMatchObject({ inserted: 1, published: '2026-05-13', deliveries: 4 });
    let rows = await deliveryRows(app);
    expect(rows).toHaveLength(4);
    expect(rows.map((r) => r.subscription_id).sort()).toEqual(expected);

    const second = await app.importTable(table(day('2026-05-14')));
    expect(second).toMatchObject({ inserted: 1, published: '2026-05-14', deliveries: 4 });
    rows = await deliveryRows(app);
    expect(rows).toHaveLength(8);
    const newest = rows.filter((r) => r.rate_date === '2026-05-14');
    expect(newest.map((r) => r.subscription_id).sort()).toEqual(expected);

    const publications = await app.db.selectFrom('publications').select(['id', 'last_date']).orderBy('id').execute();
    expect(publications).toHaveLength(2);
    for (const row of rows) {
      expect(row.id).toMatch(UUID);
      expect(row).toMatchObject({ event: 'rates.published', state: 'pending', attempts: 0 });
      // recorded by the publication that brought its day, due at once
      expect(row.publication_id).toBe(publications.find((p) => p.last_date === row.rate_date)!.id);
      expect(row.next_attempt_at.toISOString()).toBe(new Date(NOW).toISOString());
      expect(row.created_at.toISOString()).toBe(new Date(NOW).toISOString());
      const payload = JSON.parse(row.payload);
      expect(payload).toMatchObject({ event: 'rates.published', date: row.rate_date, delivery_id: row.id });
    }
  });

  // Two connections at once: only on Postgres.
  it.skipIf(!process.env.DATABASE_URL)('a subscription deleted while a publication is recorded gets no delivery, and the publication stands', async () => {
    const app = await start();
    const { key } = await account(app, 'professional');
    const kept = await subscribe(app, key, '/kept');
    const deleted = await subscribe(app, key, '/deleted');
    // A deletion under way holds the subscription's row (as deleteSubscription does) until it
    // commits; the publication reaches that row meanwhile and waits for it.
    const { imported } = await app.db.transaction().execute(async (trx) => {
      await trx.selectFrom('webhook_subscriptions').select('id').where('id', '=', deleted).forUpdate().execute();
      const importing = app.importTable(table(day('2026-05-13')));
      await untilOneWaitsForALock(app.db);
      await trx.deleteFrom('webhook_subscriptions').where('id', '=', deleted).execute();
      // the import, unawaited: it goes on once this transaction commits
      return { imported: importing };
    });
    expect(await imported).toMatchObject({ published: '2026-05-13', deliveries: 1 });
    expect((await deliveryRows(app)).map((r) => r.subscription_id)).toEqual([kept]);
  });
});

describe('publication: what is not one', () => {
  it('a backfill of older days publishes nothing', async () => {
    const app = await start();
    const { key } = await account(app, 'professional');
    await subscribe(app, key, '/backfill');
    expect(await app.importTable(table(day('2026-05-13')))).toMatchObject({ published: '2026-05-13', deliveries: 1 });

    const backfill = await app.importTable(table(day('2026-05-11'), day('2026-05-12')));
    expect(backfill).toMatchObject({ inserted: 2, updated: 0, published: null, deliveries: 0 });
    expect(await countOf(app, 'webhook_deliveries')).toBe(1);
  });

  it('a correction of the newest day publishes nothing', async () => {
    const app = await start();
    const { key } = await account(app, 'professional');
    await subscribe(app, key, '/correction');
    expect(await app.importTable(table(day('2026-05-13')))).toMatchObject({ published: '2026-05-13', deliveries: 1 });

    const correction = await app.importTable(table(day('2026-05-13', '0.6555')));
    expect(correction).toMatchObject({ inserted: 0, updated: 1, published: null, deliveries: 0 });
    expect(await countOf(app, 'webhook_deliveries')).toBe(1);
    // the recorded delivery keeps the rates it was recorded with
    const [row] = await deliveryRows(app);
    expect(JSON.parse(row!.payload).rates.USD).toBe(0.6543);
  });

  it('importing the same batch twice publishes once', async () => {
    const app = await start();
    const { key } = await account(app, 'professional');
    await subscribe(app, key, '/twice-1');
    await subscribe(app, key, '/twice-2');
    const batch = table(day('2026-05-12'), day('2026-05-13'));
    expect(await app.importTable(batch)).toMatchObject({ inserted: 2, published: '2026-05-13', deliveries: 2 });
    expect(await app.importTable(batch)).toMatchObject({ inserted: 0, updated: 0, published: null, deliveries: 0 });
    expect(await countOf(app, 'webhook_deliveries')).toBe(2);
    expect(await countOf(app, 'publications')).toBe(1);
  });

  it('the same new day imported twice at once publishes once (on Postgres the two run concurrently)', async () => {
    const app = await start();
    const { key } = await account(app, 'professional');
    await subscribe(app, key, '/race-1');
    await subscribe(app, key, '/race-2');
    await app.importTable(table(day('2026-05-12')));
    await app.db.deleteFrom('webhook_deliveries').execute();

    const results = await Promise.all([app.importTable(table(day('2026-05-13'))), app.importTable(table(day('2026-05-13')))]);
    expect(results.map((r) => r.published).sort()).toEqual(['2026-05-13', null].sort());
    expect(results.map((r) => r.deliveries).sort()).toEqual([0, 2]);
    expect(await countOf(app, 'webhook_deliveries')).toBe(2);
  });

  it('a batch bringing three new days (and an older one) publishes only the newest, once per subscription', async () => {
    const app = await start();
    const { key } = await account(app, 'business');
    const a = await subscribe(app, key, '/three-a');
    const b = await subscribe(app, key, '/three-b', { currencies: ['USD', 'EUR'] });
    await app.importTable(table(day('2026-05-08')));
    await app.db.deleteFrom('webhook_deliveries').execute(); // only the next publication's rows matter here

    const result = await app.importTable(table(day('2026-05-07'), day('2026-05-11', '0.6511'), day('2026-05-12', '0.6522'), day('2026-05-13', '0.6533')));
    expect(result).toMatchObject({ inserted: 4, published: '2026-05-13', deliveries: 2 });
    const rows = await deliveryRows(app);
    expect(rows).toHaveLength(2);
    expect(rows.map((r) => r.subscription_id).sort()).toEqual([a, b].sort());
    for (const row of rows) {
      expect(row.rate_date).toBe('2026-05-13');
      const payload = JSON.parse(row.payload);
      expect(payload.date).toBe('2026-05-13');
      expect(payload.rates.USD).toBe(0.6533);
    }
    expect(Object.keys(JSON.parse(rows.find((r) => r.subscription_id === b)!.payload).rates).sort()).toEqual(['EUR', 'USD']);
  });
});

describe('publication: the deliveries and the rates commit together', () => {
  it('a publication whose deliveries cannot be recorded stores no rates either; recorded, both carry the same publication', async () => {
    const app = await start();
    const { key } = await account(app, 'professional');
    const id = await subscribe(app, key, '/atomic');
    await app.importTable(table(day('2026-05-12')));
    const before = {
      rates: await countOf(app, 'rates'),
      publications: await countOf(app, 'publications'),
      deliveries: await countOf(app, 'webhook_deliveries'),
    };

    // The rates of 2026-05-13 are inserted first; recording the deliveries, later in the same
    // transaction, is then refused.
    await sql`create function refuse_delivery() returns trigger language plpgsql as $$
      begin raise exception 'delivery refused by the test'; end $$`.execute(app.db);
    await sql`create trigger refuse_delivery before insert on webhook_deliveries
      for each row execute function refuse_delivery()`.execute(app.db);
    await expect(app.importTable(table(day('2026-05-13')))).rejects.toThrow();
    expect({
      rates: await countOf(app, 'rates'),
      publications: await countOf(app, 'publications'),
      deliveries: await countOf(app, 'webhook_deliveries'),
    }).toEqual(before);
    expect(await app.db.selectFrom('rates').select('code').where('date', '=', '2026-05-13').execute()).toEqual([]);

    await sql`drop trigger refuse_delivery on webhook_deliveries`.execute(app.db);
    const result = await app.importTable(table(day('2026-05-13')));
    expect(result).toMatchObject({ inserted: 1, published: '2026-05-13', deliveries: 1 });
    const delivery = await app.db
      .selectFrom('webhook_deliveries')
      .select(['publication_id', 'subscription_id'])
      .where('rate_date', '=', '2026-05-13')
      .executeTakeFirstOrThrow();
    expect(delivery.subscription_id).toBe(id);
    const rates = await app.db.selectFrom('rates').select('publication_id').where('date', '=', '2026-05-13').execute();
    expect(rates).toHaveLength(5);
    expect(new Set(rates.map((r) => r.publication_id))).toEqual(new Set([delivery.publication_id]));
  });
});
