// The CPU of one /averages answer on a full 2018→now history (the bench's generated F11.1 file,
// every business day of every code): the figures alone (the core's arithmetic on the in-memory
// history), and whole answers through the app in this process (key, quota grant, operation, JSON,
// ETag). Printed for a person to read; the bounds only catch a gross regression (a query or a walk
// of the whole history per answer), as the machine running the tests is shared.
import { expect, it } from 'vitest';
import { HISTORY, LAST_DATE, NOW } from '../../bench/fixtures.js';
import { addDays } from '../../src/domain/calendar.js';
import { QUOTED_CODES } from '../../src/domain/currencies.js';
import { averagesOver, namedPeriod } from '../../src/domain/period-averages.js';
import { appForFile } from '../support/app.js';

const t = appForFile({ now: NOW.toISOString() }, HISTORY.table);

/** CPU microseconds per call of `run`, over `count` calls after a warm-up. */
async function cpuPerCall(count: number, run: () => unknown): Promise<number> {
  for (let i = 0; i < Math.min(count, 200); i++) await run();
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

it('a financial year of every code: the figures alone, and a whole keyed answer', async () => {
  const key = await t.createKey('enterprise');
  const year = Number(LAST_DATE.slice(0, 4)) - (LAST_DATE.slice(5) >= '06-30' ? 0 : 1);
  const period = namedPeriod(`FY${year}`)!;
  const history = await t.app.services.rateHistory.current();
  expect(history.days[0]!.date < '2018-01-05').toBe(true);

  const figures = averagesOver(history, period, QUOTED_CODES);
  expect(figures).toHaveLength(20);
  expect(figures[0]!.days).toBeGreaterThan(240);
  const alone = await cpuPerCall(2_000, () => averagesOver(history, period, QUOTED_CODES));

  // Each request its own year-long range, so that no answer is shared with an identical one; /latest
  // with the same key is the price of every keyed answer (authentication, the quota's grant, headers).
  const get = async (path: string) => {
    const response = await t.app.web.fetch(`http://rates.test${path}`, { headers: { Authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    await response.text();
  };
  let shift = 0;
  const yearFrom = (extra = '') => {
    const start = addDays(period.start, -(shift++ % 1_500));
    return `/averages?start_date=${start}&end_date=${addDays(start, 364)}${extra}`;
  };
  const latest = await cpuPerCall(1_000, () => get('/latest?symbols=USD'));
  const answer = await cpuPerCall(1_000, () => get(yearFrom()));
  const monthly = await cpuPerCall(500, () => get(yearFrom('&interval=month')));
  console.log(
    `/averages over a year, 20 codes, ${history.days.length} stored days, CPU per answer: the figures ${alone.toFixed(0)} µs; ` +
      `a whole answer ${answer.toFixed(0)} µs (${(answer - latest).toFixed(0)} µs more than keyed /latest's ${latest.toFixed(0)} µs); ` +
      `with interval=month ${monthly.toFixed(0)} µs`,
  );
  expect(alone).toBeLessThan(2_000);
  expect(answer).toBeLessThan(10_000);
}, 600_000);
