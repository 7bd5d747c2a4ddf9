// Rates are served from the history each process holds in memory. Hundreds of seeded random
// requests (dates, weekends included; ranges and symbols; pairs, amounts and dates to convert at;
// the newest day) go through the real app, and each answer is compared, digit for digit, with the
// one worked out here from the database with SQL — before and after an import that corrects values
// and adds a day, so the history is also shown to be replaced as a whole.
import { Decimal } from 'decimal.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, daysBetween } from '../../src/domain/calendar.js';
import { PUBLISHED_CODES } from '../../src/domain/currencies.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { between, pick, seededRandom } from '../support/random.js';
import { served, syntheticDay, syntheticTable, table } from '../support/rates.js';

const FIRST = '2018-01-01';
const LAST = '2026-05-11';
const REQUESTS_PER_ROUND = 700;
const CONVERTIBLE = ['AUD', ...PUBLISHED_CODES.filter((code) => code !== 'TWI')];
// ROUND_HALF_UP in decimal.js rounds ties away from zero (D15 in docs/decisions.md)
const Exact = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP });

/** The body with every JSON number kept as its exact text, so digits are compared, not floats. */
function exactJson(text: string): any {
  return JSON.parse(text.replace(/:(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?=[,}])/g, ':"$1"'));
}

/** Gaps as the RBA's data has them: CAD missing for a long stretch, and scattered blank values. */
function omitted(date: string, code: string): boolean {
  if (code === 'CAD' && date < '2019-03-01') return true;
  return (daysBetween(FIRST, date) * 31 + PUBLISHED_CODES.indexOf(code as never) * 17) % 97 === 0;
}

describe('every rate answer from memory equals the one computed from the database', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp({ now: '2026-05-12T07:00:00Z' }); // 17:00 in Sydney: 2026-05-12 may be stored
    await t.importTable(syntheticTable(FIRST, LAST, { omit: omitted }));
    key = await t.createKey('enterprise');
  }, 120_000);
  afterAll(() => t.close());

  const valuesOn = async (date: string, codes?: readonly string[]) => {
    if (codes?.length === 0) return new Map<string, string>();
    let query = t.db.selectFrom('rates').select(['code', 'value']).where('date', '=', date);
    if (codes) query = query.where('code', 'in', codes as string[]);
    return new Map((await query.execute()).map((r) => [r.code, r.value]));
  };

  /** The rates object as the API shows it (docs/api.md §2.3), in the order of `codes` (all published codes when none). */
  const ratesObject = (values: Map<string, string>, codes: readonly string[] = PUBLISHED_CODES) => {
    const rates: Record<string, string> = {};
    for (const code of codes) {
      if (code === 'AUD') rates.AUD = '1';
      else if (values.has(code)) rates[code] = served(values.get(code)!);
    }
    return rates;
  };

  async function checkDay(date: string) {
    const response = await t.request(`/${date}`, { key });
    const values = await valuesOn(date);
    if (values.size === 0) return expect(response.status, `/${date}`).toBe(404);
    expect(response.status, `/${date}`).toBe(200);
    const body = exactJson(await response.text());
    expect(body.date).toBe(date);
    expect(body.rates, `/${date}`).toEqual(ratesObject(values));
  }

  async function checkTimeSeries(start: string, end: string, symbols: string[] | null) {
    const path = `/timeseries?start_date=${start}&end_date=${end}${symbols ? `&symbols=${symbols.join(',')}` : ''}`;
    const response = await t.request(path, { key });
    const codes = (symbols ?? PUBLISHED_CODES).filter((c) => c !== 'AUD');
    const rows =
      codes.length === 0
        ? []
        : await t.db
            .selectFrom('rates')
            .select(['date', 'code', 'value'])
            .where('date', '>=', start)
            .where('date', '<=', end)
            .where('code', 'in', codes)
            .execute();
    const byDate = new Map<string, Map<string, string>>();
    for (const row of rows) {
      if (!byDate.has(row.date)) byDate.set(row.date, new Map());
      byDate.get(row.date)!.set(row.code, row.value);
    }
    if (symbols?.includes('AUD')) {
      // AUD asked for is on every stored day
      const days = await t.db.selectFrom('rates').select('date').distinct().where('date', '>=', start).where('date', '<=', end).execute();
      for (const { date } of days) if (!byDate.has(date)) byDate.set(date, new Map());
    }
    if (byDate.size === 0) return expect(response.status, path).toBe(404);
    expect(response.status, path).toBe(200);
    const expected: Record<string, Record<string, string>> = {};
    for (const date of [...byDate.keys()].sort()) expected[date] = ratesObject(byDate.get(date)!, symbols ?? PUBLISHED_CODES);
    const body = exactJson(await response.text());
    expect(Object.keys(body.rates), path).toEqual(Object.keys(expected));
    expect(body.rates, path).toEqual(expected);
  }

  async function checkConvert(from: string, to: string, amount: string, date: string) {
    const path = `/convert?from=${from}&to=${to}&amount=${amount}&date=${date}`;
    const response = await t.request(path, { key });
    const codes = [...new Set([from, to])].filter((c) => c !== 'AUD');
    // D9: the newest day on or before `date` on which both codes have a rate
    const { rows } = await sql<{ date: string }>`
      select date from rates where date <= ${date}
      ${codes.length > 0 ? sql`and code in (${sql.join(codes)})` : sql``}
      group by date ${codes.length > 0 ? sql`having count(*) = ${codes.length}` : sql``}
      order by date desc limit 1`.execute(t.db);
    const used = rows[0]?.date;
    if (!used) return expect(response.status, path).toBe(400);
    expect(response.status, path).toBe(200);
    const values = await valuesOn(used, codes);
    const rateOf = (code: string) => new Exact(code === 'AUD' ? '1' : values.get(code)!);
    const rate = rateOf(to).dividedBy(rateOf(from));
    const body = exactJson(await response.text());
    expect(body.date, path).toBe(used);
    expect(body.info.rate, path).toBe(rate.toDecimalPlaces(6).toFixed());
    expect(body.result, path).toBe(rate.times(amount).toDecimalPlaces(4).toFixed());
  }

  async function checkLatest() {
    const response = await t.request('/latest', { key });
    const [newest] = await t.db
      .selectFrom('rates')
      .select((eb) => eb.fn.max('date').as('date'))
      .execute();
    const date = newest!.date;
    expect(response.status).toBe(200);
    const body = exactJson(await response.text());
    expect(body.date).toBe(date);
    expect(body.rates).toEqual(ratesObject(await valuesOn(date)));
  }

  /** Seeded random requests of every kind, each checked against the database. */
  async function randomRound(seed: number, last: string) {
    const random = seededRandom(seed);
    const span = daysBetween(FIRST, last);
    const anyDate = () => addDays(FIRST, between(random, -3, span));
    const kinds = { day: 0, timeseries: 0, convert: 0, latest: 0 };
    for (let i = 0; i < REQUESTS_PER_ROUND; i++) {
      const kind = random();
      if (kind < 0.3) {
        kinds.day++;
        await checkDay(anyDate());
      } else if (kind < 0.6) {
        kinds.timeseries++;
        const start = anyDate();
        const symbols = Array.from({ length: between(random, 0, 3) }, () => pick(random, ['AUD', ...PUBLISHED_CODES]));
        await checkTimeSeries(start, addDays(start, between(random, 0, 89)), symbols.length > 0 ? [...new Set(symbols)] : null);
      } else if (kind < 0.97) {
        kinds.convert++;
        const amount = (between(random, 1, 100_000_000) / 10 ** between(random, 0, 4)).toString();
        await checkConvert(pick(random, CONVERTIBLE), pick(random, CONVERTIBLE), amount, anyDate());
      } else {
        kinds.latest++;
        await checkLatest();
      }
    }
    for (const count of Object.values(kinds)) expect(count).toBeGreaterThan(10);
  }

  it('for 700 random requests over the stored history', async () => {
    await randomRound(1, LAST);
  }, 300_000);

  it('and for 700 more after an import corrected values and added a day', async () => {
    const random = seededRandom(9);
    const corrected = Array.from({ length: 40 }, () => addDays(FIRST, between(random, 0, daysBetween(FIRST, LAST))));
    const days = syntheticTable(FIRST, LAST, { omit: omitted })
      .days.filter((day) => corrected.includes(day.date))
      .map((day) => ({ date: day.date, rates: Object.fromEntries(Object.entries(day.rates).map(([code, value]) => [code, `${value}1`])) }));
    const imported = await t.importTable(table([...days, syntheticDay('2026-05-12')]));
    expect(imported.updated).toBe(days.length);
    expect(imported.published).toBe('2026-05-12');
    for (const day of days.slice(0, 5)) await checkDay(day.date);
    await checkLatest();
    await randomRound(2, '2026-05-12');
  }, 300_000);
});
