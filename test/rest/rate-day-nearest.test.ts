// D47 in docs/decisions.md: `/{date}` takes `symbols` as /latest does, and `fallback=nearest` answers a
// date without rates with the nearer rate day before or after it, the earlier on a tie (the ATO's
// "exchange rate for the next closest day").
import { beforeAll, describe, expect, it } from 'vitest';
import { appForFile } from '../support/app.js';
import { expectError } from '../support/expect.js';

// Wednesday 14 August 2024 in Sydney; the fixture holds every business day of FY2024 (USD blank on 2024-03-12).
const t = appForFile({ now: '2024-08-14T03:00:00Z' }, 'f11.1-fy2024.csv');
let key: string;
beforeAll(async () => {
  key = await t.createKey('professional');
});

async function answer(path: string): Promise<{ date: string; requested_date?: string; rates: Record<string, number> }> {
  const { status, body } = await t.json(path, { key });
  expect(status, JSON.stringify(body)).toBe(200);
  return body;
}

describe('GET /{date}?fallback=nearest', () => {
  it.each([
    ['a Saturday: Friday is one day away, Monday two', '/2023-07-08', '2023-07-07'],
    ['a Sunday: Monday is one day away, Friday two', '/2023-07-09', '2023-07-10'],
    ['Christmas Day (Monday): Wednesday is nearer than Friday', '/2023-12-25', '2023-12-27'],
    ['Anzac Day (Thursday): a day either way, the earlier wins', '/2024-04-25', '2024-04-24'],
    ['past the newest day: only the day before', '/2024-08-13', '2024-06-28'],
    ['before the first day: only the day after', '/2019-03-01', '2023-07-03'],
    ['a rate day: itself', '/2024-03-13', '2024-03-13'],
  ])('%s', async (_what, path, date) => {
    const body = await answer(`${path}?fallback=nearest`);
    expect(body.date).toBe(date);
    expect(body.requested_date).toBe(path.slice(1));
  });

  it('for one currency, the nearest day that has it: a tie goes to the earlier day', async () => {
    const body = await answer('/2024-03-12/USD?fallback=nearest');
    expect(body).toMatchObject({ date: '2024-03-11', requested_date: '2024-03-12', rates: { USD: expect.any(Number) } });
    expect((await answer('/2023-10-10/CAD?fallback=nearest')).date).toBe('2023-12-21');
  });

  it('any other fallback is 400, naming the three', async () => {
    expectError(await t.json('/2024-03-12?fallback=closest', { key }), 400, 'bad_request', /use previous, next or nearest/);
  });
});

describe('GET /{date}?symbols=…', () => {
  it('only the codes asked for, in their order; AUD is 1', async () => {
    const body = await answer('/2024-03-13?symbols=eur,USD,AUD');
    expect(Object.keys(body.rates)).toEqual(['EUR', 'USD', 'AUD']);
    expect(body.rates.AUD).toBe(1);
    const all = await answer('/2024-03-13');
    expect(body.rates.EUR).toBe(all.rates.EUR);
    expect((await answer('/2024-03-13?symbols=USD&base=aud')).rates).toEqual({ USD: all.rates.USD });
  });

  it('a day on which none of the codes was published has no rates for the request; one of them is enough', async () => {
    expectError(await t.json('/2024-03-12?symbols=USD', { key }), 404, 'not_found', 'No USD rate available for date 2024-03-12');
    expectError(await t.json('/2024-03-12?symbols=USD,CHF', { key }), 404, 'not_found', 'No rate for any of USD, CHF available for date 2024-03-12');
    expect(Object.keys((await answer('/2024-03-12?symbols=USD,EUR')).rates)).toEqual(['EUR']);
    expect((await answer('/2024-03-12?symbols=USD&fallback=next')).date).toBe('2024-03-13');
    expect(await answer('/2024-03-12?symbols=USD&fallback=nearest')).toMatchObject({ date: '2024-03-11', rates: { USD: expect.any(Number) } });
  });

  it('refuses a code it does not know and a base other than AUD, as /latest does', async () => {
    expectError(await t.json('/2024-03-13?symbols=USD,XXX', { key }), 400, 'bad_request', /Unsupported currency 'XXX'/);
    expectError(await t.json('/2024-03-13?base=USD', { key }), 400, 'bad_request', /only base/);
  });
});
