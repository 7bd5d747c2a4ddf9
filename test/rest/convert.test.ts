// GET /convert (docs/api.md §2.5, conversion rules, D9, D14, D15 in docs/decisions.md). Every
// expected number here was worked out by hand with decimal arithmetic: rate = rates[to] /
// rates[from] (AUD = 1), result = amount × the unrounded rate rounded half away from zero to 4 dp,
// info.rate rounded the same way to 6 dp.
import { beforeAll, describe, expect, it } from 'vitest';
import { appForFile } from '../support/app.js';
import { expectError, unixOf } from '../support/expect.js';
import { table } from '../support/rates.js';

// Latest day of f11.1-data.csv, 2026-05-11: USD 0.7013, JPY 109.02, EUR 0.5964, GBP 0.5198,
// IDR 11935, VND 18410, TWI 64.60.
const LATEST = { date: '2026-05-11', timestamp: 1778457600 };

// A made-up day whose values put results exactly half-way between two 4-dp (and 6-dp) values.
const HALF_WAY_DAY = table([{ date: '2024-03-01', rates: { USD: '0.6825', CNY: '4.0000', HKD: '1.000002' } }]);

const t = appForFile({ now: '2026-05-12T03:00:00Z' }, 'f11.1-data.csv', HALF_WAY_DAY);
let key: string;
beforeAll(async () => {
  key = await t.createKey();
});

const convert = (query: string, withKey = true) => t.json(`/convert?${query}`, withKey ? { key } : {});
const convertText = async (query: string) => (await t.request(`/convert?${query}`, { key })).text();

describe('GET /convert without a key (free mode)', () => {
  it('converts at the latest rates and says free: true', async () => {
    const { status, body, headers } = await convert('from=USD&to=JPY&amount=100', false);
    expect(status).toBe(200);
    // 109.02 / 0.7013 = 155.4541565663…; × 100 = 15545.41565663… → 15545.4157
    expect(body).toEqual({
      success: true,
      free: true,
      query: { from: 'USD', to: 'JPY', amount: 100 },
      info: { rate: 155.454157, timestamp: LATEST.timestamp },
      date: LATEST.date,
      result: 15545.4157,
    });
    expect(headers.get('cache-control')).toBe('no-store');
  });
});

describe('GET /convert with a key', () => {
  it('has no free field', async () => {
    const { status, body } = await convert('from=USD&to=JPY&amount=100');
    expect(status).toBe(200);
    expect(body).toEqual({
      success: true,
      query: { from: 'USD', to: 'JPY', amount: 100 },
      info: { rate: 155.454157, timestamp: LATEST.timestamp },
      date: LATEST.date,
      result: 15545.4157,
    });
    expect(body).not.toHaveProperty('free');
    expect(await convertText('from=USD&to=JPY&amount=100')).not.toContain('free');
  });

  it('computes the result from the unrounded rate, not from info.rate', async () => {
    // 155.4541565663… × 1,000,000 = 155454156.5664 (155.454157 × 1,000,000 would be 155454157)
    const { body } = await convert('from=USD&to=JPY&amount=1000000');
    expect(body).toMatchObject({ info: { rate: 155.454157 }, result: 155454156.5664 });
  });

  it.each([
    ['AUD to a currency: the rate is the published value', 'from=AUD&to=USD&amount=250', 0.7013, 175.325],
    ['a currency to AUD: 1 / 0.7013', 'from=USD&to=AUD&amount=250', 1.425923, 356.4808],
    ['a cross pair: 0.5198 / 0.5964', 'from=EUR&to=GBP&amount=123.45', 0.871563, 107.5944],
    ['whole-number currencies: 18410 / 11935', 'from=IDR&to=VND&amount=10', 1.542522, 15.4252],
    ['a tiny rate: 0.7013 / 11935, printed without an exponent', 'from=IDR&to=USD&amount=1000000', 0.000059, 58.7599],
    ['from = to is rate 1', 'from=EUR&to=EUR&amount=123.45', 1, 123.45],
    ['AUD to AUD is rate 1', 'from=AUD&to=AUD&amount=5', 1, 5],
  ])('%s', async (_what, query, rate, result) => {
    const { status, body } = await convert(query);
    expect(status).toBe(200);
    expect(body.info).toEqual({ rate, timestamp: LATEST.timestamp });
    expect(body.result).toBe(result);
    expect(body.date).toBe(LATEST.date);
  });

  it('prints rate and result exactly, without float noise or exponents', async () => {
    const text = await convertText('from=IDR&to=USD&amount=1000000');
    expect(text).toContain('"rate":0.000059,');
    expect(text).toContain('"result":58.7599}');
    expect(text).toContain('"amount":1000000}');
    const pair = await convertText('from=AUD&to=USD&amount=250');
    expect(pair).toContain('"rate":0.7013,');
    expect(pair).toContain('"result":175.325}');
    for (const body of [text, pair]) {
      expect(body).not.toMatch(/\de[+-]?\d/i);
      expect(body).not.toMatch(/\.\d{7,}/); // no 0.30000000000000004-style noise: 6 dp at most
    }
  });

  it('rounds half away from zero: a result on the 5th decimal (0.5 × 0.6825 = 0.34125 → 0.3413)', async () => {
    const { status, body } = await convert('from=AUD&to=USD&amount=0.5&date=2024-03-01');
    expect(status).toBe(200);
    expect(body).toEqual({
      success: true,
      query: { from: 'AUD', to: 'USD', amount: 0.5 },
      info: { rate: 0.6825, timestamp: unixOf('2024-03-01') },
      date: '2024-03-01',
      result: 0.3413,
    });
  });

  it('rounds half away from zero: rate 1.000002 / 4 = 0.2500005 → 0.250001; × 100 = 25.00005 → 25.0001', async () => {
    const { body } = await convert('from=CNY&to=HKD&amount=100&date=2024-03-01');
    expect(body).toMatchObject({ info: { rate: 0.250001 }, result: 25.0001, date: '2024-03-01' });
    const exact = await convert('from=CNY&to=HKD&amount=1000&date=2024-03-01');
    expect(exact.body.result).toBe(250.0005);
  });

  it('takes the largest amount, 1e15, and prints results exactly however long', async () => {
    const big = await convertText('from=AUD&to=IDR&amount=1000000000000000');
    expect(big).toContain('"amount":1000000000000000}');
    expect(big).toContain('"result":11935000000000000000}');
    // 1e15 / 0.7013 = 1425923285327249.39398… → 1425923285327249.394
    const back = await convertText('from=USD&to=AUD&amount=1000000000000000');
    expect(back).toContain('"rate":1.425923,');
    expect(back).toContain('"result":1425923285327249.394}');
  });

  it('echoes the amount as a number in its shortest form and the codes upper-case', async () => {
    const { status, body } = await convert('from=usd&to=jpy&amount=100.50');
    expect(status).toBe(200);
    expect(body.query).toEqual({ from: 'USD', to: 'JPY', amount: 100.5 });
  });

  it('takes an amount with surrounding blanks, as params.ts trims it', async () => {
    const { status, body } = await convert(`from=AUD&to=USD&amount=${encodeURIComponent(' 5 ')}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ query: { amount: 5 }, result: 3.5065 });
  });
});

describe('GET /convert with date (D9)', () => {
  it('uses exactly that date when it has rates', async () => {
    // 88.48 / 0.6828 = 129.5840656…
    const { status, body } = await convert('from=USD&to=JPY&amount=100&date=2023-01-03');
    expect(status).toBe(200);
    expect(body).toEqual({
      success: true,
      query: { from: 'USD', to: 'JPY', amount: 100 },
      info: { rate: 129.584066, timestamp: unixOf('2023-01-03') },
      date: '2023-01-03',
      result: 12958.4066,
    });
  });

  it('uses the newest rates before a date without data, and says which date it used', async () => {
    // Saturday 2024-01-06: the newest day on or before it with USD and JPY is 2023-12-21 (95.90 / 0.6712).
    const { status, body } = await convert('from=USD&to=JPY&amount=100&date=2024-01-06');
    expect(status).toBe(200);
    expect(body).toMatchObject({ date: '2023-12-21', info: { rate: 142.878427, timestamp: unixOf('2023-12-21') }, result: 14287.8427 });
  });

  it('AUD to USD on a later date uses the newest day with USD', async () => {
    const { body } = await convert('from=AUD&to=USD&amount=2&date=2024-06-01');
    expect(body).toMatchObject({ date: '2024-03-01', info: { rate: 0.6825 }, result: 1.365 });
  });

  it('skips a day on which one of the two currencies is missing', async () => {
    // CHF is blank on 2023-12-21 and absent from 2024-03-01: 2023-12-20 is used (0.6705 / 0.5805).
    const chf = await convert('from=CHF&to=USD&amount=100&date=2024-06-01');
    expect(chf.status).toBe(200);
    expect(chf.body).toMatchObject({ date: '2023-12-20', info: { rate: 1.155039 }, result: 115.5039 });
    // CAD starts on 2023-12-21 (0.6712 / 0.8990).
    const cad = await convert('from=CAD&to=USD&amount=100&date=2024-01-02');
    expect(cad.body).toMatchObject({ date: '2023-12-21', info: { rate: 0.746607 }, result: 74.6607 });
  });

  it.each([
    ['the day before the first stored day', 'from=USD&to=EUR&amount=1&date=2023-01-02'],
    ['a date before 2018', 'from=USD&to=EUR&amount=1&date=2017-06-01'],
    ['a currency not yet published on or before the date', 'from=CAD&to=USD&amount=1&date=2023-12-20'],
  ])('400 bad_request when nothing is on or before it: %s', async (_what, query) => {
    expectError(await convert(query), 400, 'bad_request', /on or before/);
  });

  it.each(['2024-02-30', '20240105', '2024-1-5', ''])('400 bad_request for date=%s', async (date) => {
    expectError(await convert(`from=USD&to=EUR&amount=1&date=${date}`), 400, 'bad_request', /date/);
  });
});

describe('GET /convert refuses bad parameters', () => {
  it.each([
    ['TWI as to', 'from=USD&to=TWI&amount=1', /TWI/],
    ['TWI as from', 'from=TWI&to=USD&amount=1', /TWI/],
    ['twi in lower case', 'from=AUD&to=twi&amount=1', /TWI/],
    ['an unsupported from', 'from=XYZ&to=USD&amount=1', /XYZ/],
    ['an unsupported to', 'from=USD&to=XYZ&amount=1', /XYZ/],
    ['a 2-letter code', 'from=US&to=EUR&amount=1', /US/],
    ['a 4-letter code', 'from=USDD&to=EUR&amount=1', /USDD/],
    ['a code with digits', 'from=USD&to=12A&amount=1', /12A/],
    ['missing from', 'to=EUR&amount=1', /from/],
    ['missing to', 'from=USD&amount=1', /to/],
    ['missing amount', 'from=USD&to=EUR', /amount/],
    ['no parameters', '', /from/],
    ['an unknown parameter', 'from=USD&to=EUR&amount=1&base=AUD', /base/],
    ['a repeated parameter', 'from=USD&to=EUR&amount=1&amount=2', /amount/],
  ])('400 bad_request for %s', async (_what, query, info) => {
    expectError(await convert(query), 400, 'bad_request', info);
  });

  it.each([
    ['0', '0'],
    ['0.0', '0.0'],
    ['-1', '-1'],
    ['+5', '%2B5'],
    ['1e3', '1e3'],
    ['1E3', '1E3'],
    ['abc', 'abc'],
    ['empty', ''],
    ['blank', '%20'],
    ['0x10', '0x10'],
    ['NaN', 'NaN'],
    ['Infinity', 'Infinity'],
    ['1,000', '1%2C000'],
    ['1.2.3', '1.2.3'],
    ['.5', '.5'],
    ['5.', '5.'],
    ['1 000', '1%20000'],
    ['10000000000000001 (over 1e15)', '10000000000000001'],
    ['1000000000000000.0001 (over 1e15)', '1000000000000000.0001'],
  ])('400 bad_request for amount %s', async (_what, amount) => {
    expectError(await convert(`from=USD&to=EUR&amount=${amount}`), 400, 'bad_request', /amount/);
  });

  it('refuses bad parameters in free mode too', async () => {
    expectError(await convert('from=USD&to=TWI&amount=1', false), 400, 'bad_request', /TWI/);
    expectError(await convert('from=USD&to=EUR&amount=0', false), 400, 'bad_request', /amount/);
    expectError(await convert('from=USD&to=EUR', false), 400, 'bad_request', /amount/);
  });
});
