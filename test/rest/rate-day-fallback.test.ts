// `fallback=previous|next` on /{date} and /{date}/{currency} (issue 30; D38 in docs/decisions.md):
// a date without rates answers with the nearest rate day that has them, `requested_date` echoing the
// date asked for; the plan's window holds for both dates.
import { beforeAll, describe, expect, it } from 'vitest';
import { appForFile } from '../support/app.js';
import { expectError, unixOf } from '../support/expect.js';
import { account, stored } from '../limits/support.js';

// Wednesday 14 August 2024 in Sydney; the fixture holds every business day of FY2024.
const NOW = '2024-08-14T03:00:00Z';
const t = appForFile({ now: NOW }, 'f11.1-fy2024.csv');
let key: string;
let email: string;
beforeAll(async () => {
  ({ key, email } = await account(t, 'professional'));
});

/** The date and requested_date of an answer, and the codes it carries. */
async function used(path: string, k = key): Promise<{ date: string; requested_date?: string; codes: string[] }> {
  const { status, body } = await t.json(path, { key: k });
  expect(status, JSON.stringify(body)).toBe(200);
  expect(body.timestamp).toBe(unixOf(body.date));
  return { date: body.date, requested_date: body.requested_date, codes: Object.keys(body.rates) };
}

describe('GET /{date}?fallback=…', () => {
  it.each([
    ['a Saturday, previous', '/2023-07-08?fallback=previous', '2023-07-07'],
    ['a Saturday, next', '/2023-07-08?fallback=next', '2023-07-10'],
    ['a Sunday, next', '/2023-07-09?fallback=next', '2023-07-10'],
    ['Christmas Day, previous', '/2023-12-25?fallback=previous', '2023-12-22'],
    ['Boxing Day, next (past both holidays)', '/2023-12-26?fallback=next', '2023-12-27'],
    ["New Year's Day, previous", '/2024-01-01?fallback=previous', '2023-12-29'],
    ['Australia Day, next', '/2024-01-26?fallback=next', '2024-01-29'],
    ['past the newest day, previous', '/2024-08-13?fallback=previous', '2024-06-28'],
    ['before the first day, next', '/2019-03-01?fallback=next', '2023-07-03'],
  ])('%s', async (_what, path, date) => {
    const requested = path.slice(1, 11);
    const answer = await used(path);
    expect(answer).toMatchObject({ date, requested_date: requested });
    expect(answer.codes.length).toBeGreaterThan(15);
  });

  it('a rate day answers itself, with requested_date; without fallback the body is as before', async () => {
    expect(await used('/2023-07-07?fallback=next')).toMatchObject({ date: '2023-07-07', requested_date: '2023-07-07' });
    const plain = await t.json('/2023-07-07', { key });
    expect(plain.body).not.toHaveProperty('requested_date');
    expect(Object.keys(plain.body)).toEqual(['success', 'timestamp', 'base', 'date', 'rates']);
    expect(Object.keys((await t.json('/2023-07-08?fallback=previous', { key })).body)).toEqual([
      'success',
      'timestamp',
      'base',
      'date',
      'requested_date',
      'rates',
    ]);
  });

  it('404 when nothing lies that way; without fallback a weekend is 404 as ever', async () => {
    expectError(await t.json('/2024-06-29?fallback=next', { key }), 404, 'not_found', 'No data available on or after 2024-06-29');
    expectError(await t.json('/2023-07-02?fallback=previous', { key }), 404, 'not_found', 'No data available on or before 2023-07-02');
    expectError(await t.json('/2023-07-08', { key }), 404, 'not_found', 'No data available for date 2023-07-08');
  });
});

describe('GET /{date}/{currency}?fallback=…', () => {
  it.each([
    ['CAD before its first day, next', '/2023-10-10/CAD?fallback=next', '2023-12-21'],
    ['CHF after its last day, previous', '/2024-03-01/chf?fallback=previous', '2023-12-20'],
    ['USD on the day it was not published, previous', '/2024-03-12/USD?fallback=previous', '2024-03-11'],
    ['USD on the day it was not published, next', '/2024-03-12/USD?fallback=next', '2024-03-13'],
    ['a weekend, next', '/2024-03-16/JPY?fallback=next', '2024-03-18'],
    ['AUD on a holiday, previous', '/2023-12-25/AUD?fallback=previous', '2023-12-22'],
  ])('%s', async (_what, path, date) => {
    const answer = await used(path);
    expect(answer.date).toBe(date);
    expect(answer.requested_date).toBe(path.slice(1, 11));
    expect(answer.codes).toEqual([path.slice(12, 15).toUpperCase()]);
  });

  it('404 when the code has no rate that way', async () => {
    expectError(await t.json('/2023-10-10/CAD?fallback=previous', { key }), 404, 'not_found', 'No CAD rate available on or before 2023-10-10');
    expectError(await t.json('/2024-03-01/CHF?fallback=next', { key }), 404, 'not_found', 'No CHF rate available on or after 2024-03-01');
    expectError(await t.json('/2024-03-12/USD', { key }), 404, 'not_found', 'No USD rate available for date 2024-03-12');
  });
});

describe('fallback: refusals, plans and metering', () => {
  it.each([
    ['an unknown value', '/2023-07-08?fallback=closest'],
    ['upper case', '/2023-07-08?fallback=PREVIOUS'],
    ['empty', '/2023-07-08?fallback='],
    ['given twice', '/2023-07-08?fallback=previous&fallback=next'],
    ['another parameter', '/2023-07-08?fallback=next&interval=month'],
    ['on the currency route', '/2023-07-08/USD?fallback=later'],
  ])('400 bad_request for %s; it does not count', async (_what, path) => {
    const before = (await stored(t, email)).used;
    expectError(await t.json(path, { key }), 400, 'bad_request', /fallback|interval/);
    expect((await stored(t, email)).used).toBe(before);
  });

  it('a success counts one unit; a 404 none', async () => {
    const before = (await stored(t, email)).used;
    await used('/2023-07-08?fallback=previous');
    expectError(await t.json('/2024-06-29?fallback=next', { key }), 404, 'not_found');
    expect((await stored(t, email)).used).toBe(before + 1);
  });

  it("Starter at its window's edge: both the requested date and the day used must lie inside it", async () => {
    t.setNow('2024-06-17T03:00:00Z'); // Monday 17 June 2024: the window starts on Saturday 2024-05-18
    try {
      const starter = await account(t, 'starter');
      expect(await used('/2024-05-18?fallback=next', starter.key)).toMatchObject({ date: '2024-05-20', requested_date: '2024-05-18' });
      expectError(await t.json('/2024-05-18?fallback=previous', { key: starter.key }), 403, 'plan_restricted', /for 2024-05-17 are not included/);
      expectError(await t.json('/2024-05-17?fallback=next', { key: starter.key }), 403, 'plan_restricted', /for 2024-05-17 are not included/);
      expectError(await t.json('/2024-05-19/USD?fallback=previous', { key: starter.key }), 403, 'plan_restricted', /last 30 days \(from 2024-05-18\)/);
      expect((await stored(t, starter.email)).used).toBe(1);
      const free = await account(t, 'free');
      expectError(await t.json('/2024-05-18?fallback=next', { key: free.key }), 403, 'plan_restricted');
      expect((await stored(t, free.email)).used).toBe(0);
    } finally {
      t.setNow(NOW);
    }
  });
});
