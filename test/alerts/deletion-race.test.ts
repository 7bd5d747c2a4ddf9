// An alert deleted while a publication is being recorded: the deletion holds the alert's row until
// it commits, the publication reaches that row meanwhile and waits for it, then leaves the alert
// out. The publication stands (its rates stored, the other alert fired), never refused over a
// firing of an alert that is gone. Two connections at once: only on Postgres.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RbaDay } from '../../src/rba/index.js';
import { createAlert, firings } from '../support/alerts.js';
import { untilOneWaitsForALock } from '../support/db.js';
import { startTestApp, type TestApp } from '../support/app.js';

const FIRST: RbaDay = { date: '2026-05-13', rates: { USD: '0.6501' } };
const NEXT: RbaDay = { date: '2026-05-14', rates: { USD: '0.6612' } };

describe.skipIf(!process.env.DATABASE_URL)('an alert deleted during a publication', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ now: '2026-05-14T07:00:00Z' });
    await t.importTable({ format: 'csv', publicationDate: FIRST.date, days: [FIRST] });
  });
  afterAll(() => t?.close());

  it('does not fire, and the publication stands', async () => {
    const key = await t.createKey('starter', 'race@alerts.test');
    // USD crosses both levels from one day to the next
    const kept = await createAlert(t, key, { currency: 'USD', condition: 'above', value: 0.66, channels: ['email'] });
    const deleted = await createAlert(t, key, { currency: 'USD', condition: 'above', value: 0.655, channels: ['email'] });

    const { imported } = await t.db.transaction().execute(async (trx) => {
      // as deleting an alert does: its row held until the deletion commits
      await trx.selectFrom('alerts').select('id').where('id', '=', deleted).forUpdate().execute();
      const importing = t.importTable({ format: 'csv', publicationDate: NEXT.date, days: [NEXT] });
      await untilOneWaitsForALock(t.db);
      await trx.deleteFrom('alerts').where('id', '=', deleted).execute();
      // the import, unawaited: it goes on once this transaction commits
      return { imported: importing };
    });
    expect(await imported).toMatchObject({ inserted: 1, published: NEXT.date });
    expect((await firings(t)).map((f) => f.alert_id)).toEqual([kept]);
  });
});
