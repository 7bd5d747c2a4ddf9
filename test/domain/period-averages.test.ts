// The pure parts of period averages (D37 in docs/decisions.md): the five period forms, the months
// of a range, and the figures' exactness on hand-made histories (ties, many decimals, gaps).
import { describe, expect, it } from 'vitest';
import { averagesOver, monthsOf, namedPeriod } from '../../src/domain/period-averages.js';
import { RateHistory } from '../../src/domain/rate-history.js';

describe('namedPeriod', () => {
  it.each([
    ['2024', '2024', '2024-01-01', '2024-12-31'],
    ['FY2025', 'FY2025', '2024-07-01', '2025-06-30'],
    ['fy2025', 'FY2025', '2024-07-01', '2025-06-30'],
    [' FY2018 ', 'FY2018', '2017-07-01', '2018-06-30'],
    ['2025-H1', '2025-H1', '2025-01-01', '2025-06-30'],
    ['2025-h2', '2025-H2', '2025-07-01', '2025-12-31'],
    ['2024-Q1', '2024-Q1', '2024-01-01', '2024-03-31'],
    ['2025-Q3', '2025-Q3', '2025-07-01', '2025-09-30'],
    ['2025-Q4', '2025-Q4', '2025-10-01', '2025-12-31'],
    ['2024-02', '2024-02', '2024-02-01', '2024-02-29'],
    ['2023-02', '2023-02', '2023-02-01', '2023-02-28'],
    ['2025-06', '2025-06', '2025-06-01', '2025-06-30'],
    ['2025-12', '2025-12', '2025-12-01', '2025-12-31'],
    // the last a name can give: their end is the last day a date can be written
    ['9999', '9999', '9999-01-01', '9999-12-31'],
    ['9999-12', '9999-12', '9999-12-01', '9999-12-31'],
    ['9999-Q4', '9999-Q4', '9999-10-01', '9999-12-31'],
    ['9999-H2', '9999-H2', '9999-07-01', '9999-12-31'],
    ['FY9999', 'FY9999', '9998-07-01', '9999-06-30'],
    ['0001', '0001', '0001-01-01', '0001-12-31'],
  ])('%s is %s, %s to %s', (text, name, start, end) => {
    expect(namedPeriod(text)).toEqual({ name, start, end });
  });

  it.each([
    'FY24',
    'FY202',
    'FY0000',
    '0000',
    '0000-H1',
    '0000-Q1',
    '0000-01',
    '2024-13',
    '2024-00',
    '2024-Q0',
    '2024-Q5',
    '2024-H0',
    '2024-H3',
    '24',
    '2024-1',
    '2024-01-01',
    'FY 2024',
    '2024Q1',
    '',
    'Y2024',
    '２０２４',
  ])('%s is not a period', (text) => expect(namedPeriod(text)).toBeNull());
});

describe('monthsOf', () => {
  it('clips the first and last month to the range', () => {
    expect(monthsOf({ start: '2023-11-15', end: '2024-02-10' })).toEqual([
      { month: '2023-11', start: '2023-11-15', end: '2023-11-30' },
      { month: '2023-12', start: '2023-12-01', end: '2023-12-31' },
      { month: '2024-01', start: '2024-01-01', end: '2024-01-31' },
      { month: '2024-02', start: '2024-02-01', end: '2024-02-10' },
    ]);
    expect(monthsOf({ start: '2024-02-29', end: '2024-02-29' })).toEqual([{ month: '2024-02', start: '2024-02-29', end: '2024-02-29' }]);
  });

  it('ends at December 9999 without a day of the year 10000', () => {
    expect(monthsOf({ start: '9999-11-20', end: '9999-12-31' })).toEqual([
      { month: '9999-11', start: '9999-11-20', end: '9999-11-30' },
      { month: '9999-12', start: '9999-12-01', end: '9999-12-31' },
    ]);
  });
});

describe('averagesOver', () => {
  const history = RateHistory.of(
    [
      { date: '2024-01-02', rates: { USD: '0.6000', JPY: '95.10', CHF: '0.12345675' } },
      { date: '2024-01-03', rates: { USD: '0.6001', JPY: '95.20', CHF: '0.1' } },
      { date: '2024-01-04', rates: { USD: '0.6000', CAD: '0.9' } },
      { date: '2024-01-05', rates: { USD: '0.5999', JPY: '95.00' } },
    ],
    null,
  );

  it('the exact mean rounded half away from zero, the first lowest and highest, the value on the last day', () => {
    const [usd, jpy, chf, aud] = averagesOver(history, { start: '2024-01-01', end: '2024-01-31' }, ['USD', 'JPY', 'CHF', 'AUD', 'CAD']);
    // 2.4000 / 4 = 0.6
    expect(usd).toEqual({
      code: 'USD',
      mean: '0.6',
      days: 4,
      first_date: '2024-01-02',
      last_date: '2024-01-05',
      end_rate: '0.5999',
      min: '0.5999',
      max: '0.6001',
    });
    // 285.3 / 3 = 95.1
    expect(jpy).toMatchObject({ mean: '95.1', days: 3, end_rate: '95', min: '95', max: '95.2' });
    // (0.12345675 + 0.1) / 2 = 0.111728375 → 0.111728 (the 7th place is 3); more than 6 places stay exact
    expect(chf).toMatchObject({ mean: '0.111728', days: 2, last_date: '2024-01-03', end_rate: '0.1', min: '0.1', max: '0.12345675' });
    expect(aud).toMatchObject({ mean: '1', days: 4 });
  });

  it('a tie at the 7th place rounds up; a code without values is left out; no day is no figures', () => {
    const ties = RateHistory.of(
      [
        { date: '2024-02-01', rates: { USD: '0.0000005' } },
        { date: '2024-02-02', rates: { USD: '0.0000005' } },
        { date: '2024-02-05', rates: { USD: '0.000001', EUR: '0.5' } },
        { date: '2024-02-06', rates: { USD: '0.0000002', EUR: '0.5' } },
      ],
      null,
    );
    expect(averagesOver(ties, { start: '2024-02-01', end: '2024-02-02' }, ['USD'])[0]!.mean).toBe('0.000001');
    expect(averagesOver(ties, { start: '2024-02-05', end: '2024-02-06' }, ['USD'])[0]!.mean).toBe('0.000001'); // 0.0000006
    expect(averagesOver(ties, { start: '2024-02-01', end: '2024-02-02' }, ['EUR', 'USD']).map((f) => f.code)).toEqual(['USD']);
    expect(averagesOver(ties, { start: '2024-02-03', end: '2024-02-04' }, ['USD'])).toEqual([]);
  });
});
