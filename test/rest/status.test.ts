// /status and the stale headers (docs/api.md §2.8, D22, D23 in docs/decisions.md) with the injected
// clock. `due` is the first publication slot (business day, 16:00 Sydney) after the newest stored
// date; stale is more than 2 hours past it. Sydney is AEDT (UTC+11, 16:00 = 05:00Z) in summer and
// AEST (UTC+10, 16:00 = 06:00Z) in winter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBusinessDay } from '../../src/domain/calendar.js';
import { startTestApp, type TestApp, appForFile } from '../support/app.js';
import { ISO_INSTANT, expectError, expectInstant } from '../support/expect.js';
import { syntheticDay, table } from '../support/rates.js';

/** An app whose newest stored rates are those of `newest` (and a few days before it). */
async function appWithNewest(now: string, ...dates: string[]): Promise<{ t: TestApp; key: string }> {
  const t = await startTestApp({ now });
  await t.importTable(table(dates.map((d) => syntheticDay(d))));
  return { t, key: await t.createKey() };
}

async function expectStatus(t: TestApp, now: string, expected: { status: string; stale: boolean; next: string }) {
  t.setNow(now);
  const { status, body } = await t.json('/status');
  expect(status, now).toBe(200);
  expect(Object.keys(body).sort()).toEqual(['last_update', 'next_update_expected', 'stale', 'status']);
  expect({ status: body.status, stale: body.stale }, now).toEqual({ status: expected.status, stale: expected.stale });
  expect(body.last_update).toMatch(ISO_INSTANT);
  expectInstant(body.next_update_expected, expected.next);
}

const fresh = (next: string) => ({ status: 'operational', stale: false, next });
const stale = (next: string) => ({ status: 'degraded', stale: true, next });

describe('an empty database', () => {
  const t = appForFile({ now: '2026-05-12T03:00:00Z' });
  let key: string;
  beforeAll(async () => {
    key = await t.createKey();
  });

  it('/status is 503 with the status shape and last_update "unknown"', async () => {
    const { status, body, headers } = await t.json('/status');
    expect(status).toBe(503);
    expect(body).toEqual({ status: 'degraded', last_update: 'unknown', stale: expect.any(Boolean), next_update_expected: expect.stringMatching(ISO_INSTANT) });
    expect(headers.get('x-request-id')).toBeTruthy();
  });

  it('/latest and /latest/{currency} are 503 service_unavailable', async () => {
    expectError(await t.json('/latest', { key }), 503, 'service_unavailable');
    expectError(await t.json('/latest/USD', { key }), 503, 'service_unavailable');
  });

  it('/convert is 503 service_unavailable', async () => {
    expectError(await t.json('/convert?from=USD&to=EUR&amount=1', { key }), 503, 'service_unavailable');
  });

  it('/, /symbols still answer', async () => {
    expect((await t.json('/')).status).toBe(200);
    expect((await t.json('/symbols')).status).toBe(200);
  });

  it('the first import makes the service operational', async () => {
    t.setNow('2026-05-11T07:00:00Z'); // Monday 17:00 AEST
    await t.importFixture('f11.1-data.csv');
    await expectStatus(t, '2026-05-11T07:00:00Z', fresh('2026-05-12T06:00:00Z'));
    expect((await t.json('/latest/USD', { key })).status).toBe(200);
  });
});

describe('a weekday publication (newest Monday 2026-05-11, due Tuesday 16:00 AEST = 06:00Z)', () => {
  const t = appForFile({ now: '2026-05-11T06:05:00Z' }, 'f11.1-data.csv'); // Monday 16:05 Sydney, just after publication
  let key: string;
  const DUE = '2026-05-12T06:00:00Z';
  beforeAll(async () => {
    key = await t.createKey();
  });

  const rateRequests = [
    '/latest',
    '/latest/USD',
    '/2026-05-11',
    '/2026-05-11/USD',
    '/timeseries?start_date=2026-05-01&end_date=2026-05-11',
    '/convert?from=USD&to=EUR&amount=1',
  ];

  it('is fresh right after the publication', async () => {
    await expectStatus(t, '2026-05-11T06:05:00Z', fresh(DUE));
  });

  it('is fresh before and at the due slot, and up to exactly 2 hours after it', async () => {
    await expectStatus(t, '2026-05-12T05:59:59Z', fresh(DUE));
    await expectStatus(t, DUE, fresh(DUE));
    await expectStatus(t, '2026-05-12T07:59:59Z', fresh(DUE));
    await expectStatus(t, '2026-05-12T08:00:00Z', fresh(DUE));
  });

  it('fresh rate responses carry no stale headers', async () => {
    t.setNow('2026-05-12T08:00:00Z');
    for (const path of rateRequests) {
      const res = await t.request(path, { key });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('x-data-stale'), path).toBeNull();
      expect(res.headers.get('x-rba-source-date'), path).toBeNull();
    }
  });

  it('is stale and degraded one second past due + 2 h, still 200', async () => {
    await expectStatus(t, '2026-05-12T08:00:01Z', stale(DUE));
    await expectStatus(t, '2026-05-20T00:00:00Z', stale(DUE));
  });

  it('while stale, rate responses still answer, with X-Data-Stale and X-RBA-Source-Date (D23)', async () => {
    t.setNow('2026-05-12T08:00:01Z');
    for (const path of rateRequests) {
      const res = await t.request(path, { key });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('x-data-stale'), path).toBe('true');
      expect(res.headers.get('x-rba-source-date'), path).toBe('2026-05-11');
    }
    const { body } = await t.json('/latest/USD', { key });
    expect(body).toEqual({ success: true, timestamp: 1778457600, base: 'AUD', date: '2026-05-11', rates: { USD: 0.7013 } });
  });

  it('keyless /convert carries the stale headers too', async () => {
    t.setNow('2026-05-12T09:00:00Z');
    const res = await t.request('/convert?from=AUD&to=USD&amount=1');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-data-stale')).toBe('true');
    expect(res.headers.get('x-rba-source-date')).toBe('2026-05-11');
  });

  it('the next publication makes it fresh again', async () => {
    t.setNow('2026-05-12T09:00:00Z'); // Tuesday 19:00 AEST, stale
    await t.importTable(table([syntheticDay('2026-05-12')]));
    await expectStatus(t, '2026-05-12T09:00:00Z', fresh('2026-05-13T06:00:00Z'));
    const res = await t.request('/latest', { key });
    expect(res.headers.get('x-data-stale')).toBeNull();
    expect((await res.json()).date).toBe('2026-05-12');
  });
});

describe('across a weekend in summer (newest Friday 2026-01-09, due Monday 16:00 AEDT = 05:00Z)', () => {
  let t: TestApp;
  let key: string;
  const DUE = '2026-01-12T05:00:00Z';
  beforeAll(async () => {
    ({ t, key } = await appWithNewest('2026-01-09T05:30:00Z', '2026-01-08', '2026-01-09'));
  });
  afterAll(() => t.close());

  it("Friday's rates are fresh all weekend and until Monday 16:00 + 2 h Sydney", async () => {
    await expectStatus(t, '2026-01-09T05:30:00Z', fresh(DUE)); // Friday 16:30 AEDT
    await expectStatus(t, '2026-01-10T05:00:00Z', fresh(DUE)); // Saturday 16:00
    await expectStatus(t, '2026-01-11T07:00:01Z', fresh(DUE)); // Sunday 18:00:01
    await expectStatus(t, '2026-01-12T07:00:00Z', fresh(DUE)); // Monday 18:00 AEDT
  });

  it('is stale from Monday 18:00:01 AEDT (07:00:01Z), with the stale headers', async () => {
    await expectStatus(t, '2026-01-12T07:00:01Z', stale(DUE));
    await expectStatus(t, '2026-01-12T07:30:00Z', stale(DUE)); // an AEST reading would still call this fresh
    const res = await t.request('/latest', { key });
    expect(res.headers.get('x-data-stale')).toBe('true');
    expect(res.headers.get('x-rba-source-date')).toBe('2026-01-09');
  });
});

describe('across an NSW public holiday (newest Thursday 2025-04-24; Friday is Anzac Day)', () => {
  let t: TestApp;
  const DUE = '2025-04-28T06:00:00Z'; // Monday 16:00 AEST
  beforeAll(async () => {
    ({ t } = await appWithNewest('2025-04-24T06:30:00Z', '2025-04-23', '2025-04-24'));
  });
  afterAll(() => t.close());

  it('Anzac Day 2025 is no business day', () => {
    expect(isBusinessDay('2025-04-25')).toBe(false);
  });

  it('the holiday is skipped: fresh on Friday evening, next publication Monday', async () => {
    await expectStatus(t, '2025-04-24T06:30:00Z', fresh(DUE));
    await expectStatus(t, '2025-04-25T08:00:01Z', fresh(DUE)); // Friday 18:00:01 — would be stale if Friday counted
    await expectStatus(t, '2025-04-28T08:00:00Z', fresh(DUE));
  });

  it('is stale after Monday 18:00 AEST', async () => {
    await expectStatus(t, '2025-04-28T08:00:01Z', stale(DUE));
  });
});

describe('across the end of daylight saving (newest Friday 2025-04-04 in AEDT, due Monday 2025-04-07 in AEST)', () => {
  let t: TestApp;
  const DUE = '2025-04-07T06:00:00Z'; // 16:00 AEST; AEDT ended on Sunday 2025-04-06
  beforeAll(async () => {
    ({ t } = await appWithNewest('2025-04-04T05:30:00Z', '2025-04-03', '2025-04-04'));
  });
  afterAll(() => t.close());

  it('the due slot is 16:00 AEST (06:00Z), not 05:00Z', async () => {
    await expectStatus(t, '2025-04-04T05:30:00Z', fresh(DUE));
    await expectStatus(t, '2025-04-07T07:30:00Z', fresh(DUE)); // stale if the slot were taken in AEDT
    await expectStatus(t, '2025-04-07T08:00:00Z', fresh(DUE));
    await expectStatus(t, '2025-04-07T08:00:01Z', stale(DUE));
  });
});

describe('across the start of daylight saving and Labour Day (newest Friday 2025-10-03 in AEST)', () => {
  let t: TestApp;
  // AEDT starts on Sunday 2025-10-05; Monday 2025-10-06 is Labour Day: due Tuesday 16:00 AEDT.
  const DUE = '2025-10-07T05:00:00Z';
  beforeAll(async () => {
    ({ t } = await appWithNewest('2025-10-03T06:30:00Z', '2025-10-02', '2025-10-03'));
  });
  afterAll(() => t.close());

  it('is due Tuesday 05:00Z, fresh until 07:00Z, stale after', async () => {
    expect(isBusinessDay('2025-10-06')).toBe(false);
    await expectStatus(t, '2025-10-03T06:30:00Z', fresh(DUE));
    await expectStatus(t, '2025-10-06T08:00:01Z', fresh(DUE)); // Labour Day evening
    await expectStatus(t, '2025-10-07T07:00:00Z', fresh(DUE));
    await expectStatus(t, '2025-10-07T07:00:01Z', stale(DUE));
  });
});
