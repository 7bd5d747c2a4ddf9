// D13 (docs/decisions.md), docs/api.md §4.1 and §8: each plan's history and time-series window is a
// 403 `plan_restricted` whose info names the plan's window and a plan that allows the request; D11
// puts 400 before 403 and 403 before 404. "Today" is the Sydney date of the injected clock (D6).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/domain/plans.js';
import { expectError } from '../support/expect.js';
import { syntheticTable } from '../support/rates.js';
import { account } from './support.js';
import { appForFile } from '../support/app.js';

// 15:00 UTC on Wednesday 13 May is 01:00 on Thursday 14 May in Sydney (AEST, UTC+10): today is
// 2026-05-14 although the UTC date is the 13th. Today − 30 = Tue 2026-04-14, today − 31 = Mon 2026-04-13.
const NOW = '2026-05-13T15:00:00Z';
const TODAY_MINUS_30 = '2026-04-14';
const TODAY_MINUS_31 = '2026-04-13';

// January 2025 for the long ranges of full-history plans, and the ten weeks before today.
const t = appForFile({ now: NOW }, syntheticTable('2025-01-01', '2025-01-31'), syntheticTable('2026-03-02', '2026-05-13'));
const keys = {} as Record<Plan, string>;
beforeAll(async () => {
  for (const plan of ['free', 'starter', 'professional', 'business', 'enterprise'] as const) keys[plan] = (await account(t, plan)).key;
});

const get = (plan: Plan, path: string) => t.json(path, { key: keys[plan] });
const series = (plan: Plan, start: string, end: string) => get(plan, `/timeseries?start_date=${start}&end_date=${end}&symbols=USD`);

describe('Free: latest rates only', () => {
  it.each([
    ['/2026-05-13', /^The Free plan gives no historical rates.*2026-05-13.*the Starter plan allows it/],
    ['/2026-05-13/USD', /^The Free plan gives no historical rates.*the Starter plan allows it/],
    ['/convert?from=USD&to=EUR&amount=10&date=2026-05-13', /^The Free plan gives no historical rates.*the Starter plan allows it/],
    ['/timeseries?start_date=2026-05-11&end_date=2026-05-13', /^The Free plan has no time-series access; the Starter plan allows/],
  ])('%s is 403 plan_restricted', async (path, info) => {
    expectError(await get('free', path), 403, 'plan_restricted', info);
  });

  it("a date beyond Starter's 30 days names Professional, the first plan that reaches it", async () => {
    const res = await get('free', '/2025-01-06');
    expectError(res, 403, 'plan_restricted', /Free plan gives no historical rates.*the Professional plan allows it \(full history from 2018\)/);
  });

  it('a time series Starter cannot serve names a plan that can (D13: "the plan that allows the request")', async () => {
    // 60 days: beyond Starter's 7-day range, so Starter does not allow this request; Professional does.
    const long = await series('free', '2026-03-13', '2026-05-12');
    expectError(long, 403, 'plan_restricted', /Free plan/);
    expect(long.body.error.info).toMatch(/Professional/);
    // 3 days, but starting before Starter's 30-day window: again Professional.
    const old = await series('free', '2025-06-02', '2025-06-05');
    expectError(old, 403, 'plan_restricted', /Free plan/);
    expect(old.body.error.info).toMatch(/Professional/);
  });

  it('/latest, /latest/{currency} and undated /convert work', async () => {
    const latest = await get('free', '/latest?symbols=USD');
    expect(latest.status).toBe(200);
    expect(latest.body).toMatchObject({ success: true, base: 'AUD', date: '2026-05-13' });
    const one = await get('free', '/latest/EUR');
    expect(one.status).toBe(200);
    expect(Object.keys(one.body.rates)).toEqual(['EUR']);
    const convert = await get('free', '/convert?from=USD&to=EUR&amount=10');
    expect(convert.status).toBe(200);
    expect(convert.body).toMatchObject({ success: true, date: '2026-05-13', query: { from: 'USD', to: 'EUR', amount: 10 } });
    expect(convert.body).not.toHaveProperty('free');
  });
});

describe('Starter: the last 30 days, time series of up to 7 days', () => {
  it('today − 30 (Sydney) is allowed on every dated endpoint', async () => {
    const day = await get('starter', `/${TODAY_MINUS_30}`);
    expect(day.status).toBe(200);
    expect(day.body).toMatchObject({ success: true, date: TODAY_MINUS_30 });
    const one = await get('starter', `/${TODAY_MINUS_30}/USD`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ date: TODAY_MINUS_30, rates: { USD: expect.any(Number) } });
    const convert = await get('starter', `/convert?from=USD&to=EUR&amount=10&date=${TODAY_MINUS_30}`);
    expect(convert.status).toBe(200);
    expect(convert.body.date).toBe(TODAY_MINUS_30);
  });

  it.each([`/${TODAY_MINUS_31}`, `/${TODAY_MINUS_31}/USD`, `/convert?from=USD&to=EUR&amount=10&date=${TODAY_MINUS_31}`])(
    'today − 31 is 403 naming the Starter window and Professional: %s',
    async (path) => {
      const res = await get('starter', path);
      expectError(res, 403, 'plan_restricted');
      expect(res.body.error.info).toMatch(/Starter plan gives the last 30 days \(from 2026-04-14\)/);
      expect(res.body.error.info).toContain(TODAY_MINUS_31);
      expect(res.body.error.info).toMatch(/the Professional plan allows it/);
    },
  );

  it('"today" is the Sydney date: at 23:59:59 on the 13th in Sydney, 2026-04-13 is still inside', async () => {
    t.setNow('2026-05-13T13:59:59Z'); // 23:59:59 AEST on Wednesday 13 May
    try {
      const inside = await get('starter', `/${TODAY_MINUS_31}`);
      expect(inside.status).toBe(200);
      expect(inside.body.date).toBe(TODAY_MINUS_31);
      expectError(await get('starter', '/2026-04-10'), 403, 'plan_restricted', /from 2026-04-13/);
    } finally {
      t.setNow(NOW);
    }
  });

  it('a 7-day range is served, an 8-day range is 403 naming Professional', async () => {
    const ok = await series('starter', '2026-05-04', '2026-05-11');
    expect(ok.status).toBe(200);
    expect(Object.keys(ok.body.rates)).toEqual(['2026-05-04', '2026-05-05', '2026-05-06', '2026-05-07', '2026-05-08', '2026-05-11']);
    const tooLong = await series('starter', '2026-05-04', '2026-05-12');
    expectError(
      tooLong,
      403,
      'plan_restricted',
      /^The Starter plan allows time series of up to 7 days; 2026-05-04 to 2026-05-12 spans 8; the Professional plan allows up to 90 days$/,
    );
  });

  it('a one-day range (start = end) and a range starting exactly at today − 30 are served', async () => {
    const oneDay = await series('starter', '2026-05-12', '2026-05-12');
    expect(oneDay.status).toBe(200);
    expect(Object.keys(oneDay.body.rates)).toEqual(['2026-05-12']);
    const edge = await series('starter', TODAY_MINUS_30, '2026-04-21');
    expect(edge.status).toBe(200);
    expect(Object.keys(edge.body.rates)[0]).toBe(TODAY_MINUS_30);
  });

  it('a short range starting before the window is 403 naming Professional', async () => {
    const res = await series('starter', TODAY_MINUS_31, '2026-04-17');
    expectError(res, 403, 'plan_restricted', /Starter plan gives the last 30 days.*the Professional plan allows it/);
  });
});

describe('Professional, Business, Enterprise: full history, 90 / 365 / 365 days', () => {
  it('Professional reaches back to 2018 and any stored date', async () => {
    const res = await get('professional', '/2025-01-06');
    expect(res.status).toBe(200);
    expect(res.body.date).toBe('2025-01-06');
  });

  it('Professional: 90 days served, 91 is 403 naming Business', async () => {
    const ok = await series('professional', '2025-01-01', '2025-04-01');
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ start_date: '2025-01-01', end_date: '2025-04-01', timeseries: true });
    const tooLong = await series('professional', '2025-01-01', '2025-04-02');
    expectError(
      tooLong,
      403,
      'plan_restricted',
      /^The Professional plan allows time series of up to 90 days; 2025-01-01 to 2025-04-02 spans 91; the Business plan allows up to 365 days$/,
    );
  });

  it.each(['business', 'enterprise'] as const)('%s: 365 days served, 366 is 403', async (plan) => {
    const ok = await series(plan, '2025-01-01', '2026-01-01');
    expect(ok.status).toBe(200);
    expect(Object.keys(ok.body.rates)).toHaveLength(21); // the business days of January 2025 that are stored
    const tooLong = await series(plan, '2025-01-01', '2026-01-02');
    expectError(tooLong, 403, 'plan_restricted', /up to 365 days; 2025-01-01 to 2026-01-02 spans 366/);
    expect(tooLong.body.error.info).toMatch(plan === 'business' ? /^The Business plan/ : /^The Enterprise plan/);
  });
});

describe('D11: 400 before 403, 403 before 404', () => {
  it.each([
    ['free', '/2026-02-30'],
    ['free', '/2026-13-01/USD'],
    ['free', '/2026-05-13/XYZ'],
    ['free', '/timeseries?start_date=2026-05-01'],
    ['free', '/timeseries?start_date=2026-05-10&end_date=2026-05-01'],
    ['free', '/timeseries?start_date=2026-05-01&end_date=2026-05-03&symbols=XYZ'],
    ['free', '/convert?from=USD&to=TWI&amount=1&date=2026-05-13'],
    ['free', '/convert?from=USD&to=EUR&amount=0&date=2026-05-13'],
    ['free', '/convert?from=USD&to=EUR&amount=1&date=2026-5-13'],
    ['starter', `/${TODAY_MINUS_31}/XYZ`],
    ['starter', '/2017-02-30'],
    ['starter', '/timeseries?start_date=2017-01-01&end_date=2026-05-01&base=USD'],
    ['professional', '/timeseries?start_date=2020-01-01&end_date=2026-05-01&symbols=AUDX'],
  ] as const)('%s %s is 400, not 403', async (plan, path) => {
    expectError(await get(plan, path), 400, 'bad_request');
  });

  it.each([
    ['free', '/2026-05-10'], // a Sunday: no data, but Free has no history at all
    ['free', '/2026-05-10/USD'],
    ['starter', '/2026-04-12'], // Sunday, outside the window
    ['starter', '/2017-06-01'], // before 2018, outside the window
    ['starter', '/2017-06-01/USD'],
    ['starter', '/timeseries?start_date=2017-01-02&end_date=2017-01-05'],
    ['free', '/timeseries?start_date=2026-05-16&end_date=2026-05-17'],
  ] as const)('%s %s is 403 although there is no data', async (plan, path) => {
    expectError(await get(plan, path), 403, 'plan_restricted');
  });

  it('inside the window the same kind of date is 404', async () => {
    expectError(await get('starter', '/2026-04-19'), 404, 'not_found', 'No data available for date 2026-04-19');
    expectError(await get('starter', '/timeseries?start_date=2026-05-16&end_date=2026-05-17'), 404, 'not_found');
    expectError(await get('professional', '/2017-06-01'), 404, 'not_found', 'No data available for date 2017-06-01');
  });
});

afterEach(() => t.setNow(NOW));
