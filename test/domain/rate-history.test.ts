// The in-memory rate history: exact dates, ranges, and the newest day on or before a date on which
// every code of a pair has a rate, across gaps of any length.
import { describe, expect, it } from 'vitest';
import { RateHistory } from '../../src/domain/rate-history.js';

const history = RateHistory.of(
  [
    // out of order on purpose: the history sorts
    { date: '2024-01-05', rates: { USD: '0.6700', EUR: '0.6100' } },
    { date: '2024-01-02', rates: { USD: '0.6800', EUR: '0.6200', CAD: '0.9000', TWI: '61.40' } },
    { date: '2024-01-03', rates: { USD: '0.6750' } },
    { date: '2024-01-04', rates: { EUR: '0.6150', XYZ: '1' } },
    { date: '2024-01-08', rates: { XYZ: '2' } },
  ],
  new Date('2024-01-05T06:00:00Z'),
);

describe('RateHistory', () => {
  it('holds the days that have a served code, ascending, with values as served', () => {
    expect(history.days.map((d) => d.date)).toEqual(['2024-01-02', '2024-01-03', '2024-01-04', '2024-01-05']);
    expect(history.day('2024-01-02')!.rates).toEqual({ USD: '0.68', TWI: '61.4', EUR: '0.62', CAD: '0.9' });
    expect(Object.keys(history.day('2024-01-02')!.rates)).toEqual(['USD', 'EUR', 'CAD', 'TWI']);
    expect(history.day('2024-01-08')).toBeUndefined(); // only an unknown code
    expect(history.values).toBe(8);
    expect(Object.isFrozen(history.days) && Object.isFrozen(history.days[0]!.rates)).toBe(true);
  });

  it('knows the newest day, per code too, and when the next is due', () => {
    expect(history.newestDate).toBe('2024-01-05');
    expect(history.newestByCode.get('CAD')).toBe('2024-01-02');
    expect(history.newestByCode.get('EUR')).toBe('2024-01-05');
    expect(history.newestByCode.has('SDR')).toBe(false);
    expect(history.nextDue!.toISOString()).toBe('2024-01-08T05:00:00.000Z'); // Monday 16:00 AEDT
  });

  it('gives the stored days of a range, ends included', () => {
    expect(history.between('2024-01-03', '2024-01-04').map((d) => d.date)).toEqual(['2024-01-03', '2024-01-04']);
    expect(history.between('2023-12-01', '2024-01-02').map((d) => d.date)).toEqual(['2024-01-02']);
    expect(history.between('2024-01-06', '2024-01-31')).toEqual([]);
    expect(history.between('2024-01-05', '2024-01-02')).toEqual([]);
  });

  it('finds the newest day on or before a date with every code asked for, across gaps', () => {
    expect(history.newestWith(['USD', 'EUR'], '2024-01-07')!.date).toBe('2024-01-05');
    expect(history.newestWith(['USD', 'EUR'], '2024-01-04')!.date).toBe('2024-01-02'); // 03 lacks EUR, 04 lacks USD
    expect(history.newestWith(['EUR'], '2024-01-04')!.date).toBe('2024-01-04');
    expect(history.newestWith(['CAD', 'USD'], '2024-12-31')!.date).toBe('2024-01-02');
    expect(history.newestWith([], '2024-01-03')!.date).toBe('2024-01-03');
    expect(history.newestWith(['USD'], '2024-01-01')).toBeUndefined();
    expect(history.newestWith(['SDR', 'USD'], '2024-01-05')).toBeUndefined();
  });

  it('is empty when nothing is stored', () => {
    const empty = RateHistory.of([], null);
    expect(empty.newestDate).toBeNull();
    expect(empty.nextDue).toBeNull();
    expect(empty.between('2018-01-01', '2030-01-01')).toEqual([]);
    expect(empty.newestWith(['USD'], '2030-01-01')).toBeUndefined();
  });
});
