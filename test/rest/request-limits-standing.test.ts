// Where a keyed request's quota stands, for a refusal that took no unit (docs/api.md §8): read from
// the account's row, or known from the process's own grant, and left off, not thrown, when the
// store cannot say.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RequestLimits } from '../../src/rest/limits.js';
import { routes } from '../../src/rest/routes.js';
import type { ApiKeyViewer } from '../../src/schema/context.js';
import { openTestDatabase } from '../support/db.js';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let closed = false;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => (closed ? undefined : database?.close()));

const NOW = new Date('2026-05-12T03:00:00Z');
const silent = { warn: () => {}, error: () => {} };
const route = (name: string) => routes.find((r) => r.name === name)!;

it("says where the account's quota stands, and nothing once the store no longer answers", async () => {
  const { id } = await database.db
    .insertInto('accounts')
    .values({ email: 'standing@example.test', plan: 'starter', billing_day: 20 })
    .returning('id')
    .executeTakeFirstOrThrow();
  await database.db.updateTable('accounts').set({ quota_used: 12, quota_period: '2026-04-20' }).where('id', '=', id).execute();
  const viewer: ApiKeyViewer = { kind: 'apiKey', accountId: id, keyId: '00000000-0000-4000-8000-000000000000', plan: 'starter', billingDay: 20 };
  const limits = new RequestLimits(database.db, () => NOW, { commitApart: Boolean(process.env.DATABASE_URL), logger: silent });

  expect(await limits.standing(route('Latest'), viewer)).toEqual({
    'X-RateLimit-Limit-Monthly': '5000',
    'X-RateLimit-Remaining-Monthly': '4988',
    'X-RateLimit-Reset': '2026-05-20T00:00:00.000Z',
  });
  expect(await limits.standing(route('Symbols'), viewer)).toEqual({});

  // a grant's count answers the refusals after it without a read: the store is gone
  const granted = await limits.admit(route('Latest'), viewer, '192.0.2.1');
  expect(granted['X-RateLimit-Remaining-Monthly']).toBe('4987');
  await database.close();
  closed = true;
  expect(await limits.standing(route('Latest'), viewer)).toMatchObject({ 'X-RateLimit-Remaining-Monthly': '4987' });
  // a process that knows nothing of the account reads it, and the store cannot say
  const other = new RequestLimits(database.db, () => NOW, { commitApart: Boolean(process.env.DATABASE_URL), logger: silent });
  expect(await other.standing(route('Latest'), viewer)).toEqual({});
});
