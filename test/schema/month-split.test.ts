// splitByWholeMonths: the whole months of a range go to the monthly roll-ups, the days before and
// after them to the daily rows; every day of the range lands in exactly one part; a range reaching
// today holds the whole of its last month. splitByWholeYears does the same by years, its rest then
// cut by months.
import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/domain/calendar.js';
import { splitByWholeMonths, splitByWholeYears } from '../../src/db/analytics/ranges.js';

/** a today after every range: no range reaches it */
const LATER = '2099-01-01';

describe('splitByWholeMonths', () => {
  it('cuts a range into the days before, the whole months and the days after', () => {
    expect(splitByWholeMonths('2026-04-15', '2026-06-10', LATER)).toEqual({
      months: { first: '2026-05-01', last: '2026-05-01' },
      days: [
        ['2026-04-15', '2026-04-30'],
        ['2026-06-01', '2026-06-10'],
      ],
    });
    expect(splitByWholeMonths('2026-01-01', '2026-12-31', LATER)).toEqual({ months: { first: '2026-01-01', last: '2026-12-01' }, days: [] });
    expect(splitByWholeMonths('2024-02-01', '2024-02-29', LATER)).toEqual({ months: { first: '2024-02-01', last: '2024-02-01' }, days: [] });
    expect(splitByWholeMonths('2025-11-21', '2026-11-20', LATER)).toEqual({
      months: { first: '2025-12-01', last: '2026-10-01' },
      days: [
        ['2025-11-21', '2025-11-30'],
        ['2026-11-01', '2026-11-20'],
      ],
    });
  });

  it('leaves a range within one month, or across a month end without a whole month, to the days', () => {
    expect(splitByWholeMonths('2026-11-01', '2026-11-20', LATER)).toEqual({ months: null, days: [['2026-11-01', '2026-11-20']] });
    expect(splitByWholeMonths('2026-01-20', '2026-02-27', LATER)).toEqual({ months: null, days: [['2026-01-20', '2026-02-27']] });
    expect(splitByWholeMonths('2026-05-12', '2026-05-12', LATER)).toEqual({ months: null, days: [['2026-05-12', '2026-05-12']] });
  });

  it('takes a range reaching today as holding the whole of its last month (no rows come after today)', () => {
    expect(splitByWholeMonths('2026-11-01', '2026-11-20', '2026-11-20')).toEqual({ months: { first: '2026-11-01', last: '2026-11-01' }, days: [] });
    expect(splitByWholeMonths('2026-11-01', '2026-12-05', '2026-11-20')).toEqual({ months: { first: '2026-11-01', last: '2026-12-01' }, days: [] });
    expect(splitByWholeMonths('2025-11-21', '2026-11-20', '2026-11-20')).toEqual({
      months: { first: '2025-12-01', last: '2026-11-01' },
      days: [['2025-11-21', '2025-11-30']],
    });
    expect(splitByWholeMonths('2026-11-10', '2026-11-20', '2026-11-20')).toEqual({ months: null, days: [['2026-11-10', '2026-11-20']] });
    expect(splitByWholeMonths('2026-11-01', '2026-11-19', '2026-11-20')).toEqual({ months: null, days: [['2026-11-01', '2026-11-19']] });
  });

  it('covers every day of many ranges exactly once', () => {
    for (let start = '2023-12-25'; start < '2024-03-10'; start = addDays(start, 3)) {
      for (let length = 0; length < 120; length += 7) {
        const end = addDays(start, length);
        const { months, days } = splitByWholeMonths(start, end, LATER);
        const covered: string[] = [];
        for (const [from, to] of days) for (let d = from; d <= to; d = addDays(d, 1)) covered.push(d);
        if (months) for (let d = months.first; d < addDays(months.last, 40) && d.slice(0, 7) <= months.last.slice(0, 7); d = addDays(d, 1)) covered.push(d);
        const expected: string[] = [];
        for (let d = start; d <= end; d = addDays(d, 1)) expected.push(d);
        expect(covered.sort()).toEqual(expected);
      }
    }
  });
});

describe('splitByWholeYears', () => {
  it('cuts a range into the days before, the whole years and the days after', () => {
    expect(splitByWholeYears('2024-06-15', '2026-03-10', LATER)).toEqual({
      years: { first: '2025-01-01', last: '2025-01-01' },
      rest: [
        ['2024-06-15', '2024-12-31'],
        ['2026-01-01', '2026-03-10'],
      ],
    });
    expect(splitByWholeYears('2024-01-01', '2025-12-31', LATER)).toEqual({ years: { first: '2024-01-01', last: '2025-01-01' }, rest: [] });
    expect(splitByWholeYears('2025-02-01', '2025-12-30', LATER)).toEqual({ years: null, rest: [['2025-02-01', '2025-12-30']] });
    expect(splitByWholeYears('2025-11-21', '2026-11-20', LATER)).toEqual({ years: null, rest: [['2025-11-21', '2026-11-20']] });
  });

  it('takes a range reaching today as holding the whole of its last year (no rows come after today)', () => {
    expect(splitByWholeYears('2025-11-21', '2026-11-20', '2026-11-20')).toEqual({
      years: { first: '2026-01-01', last: '2026-01-01' },
      rest: [['2025-11-21', '2025-12-31']],
    });
    expect(splitByWholeYears('2026-01-01', '2027-02-01', '2026-11-20')).toEqual({ years: { first: '2026-01-01', last: '2027-01-01' }, rest: [] });
    expect(splitByWholeYears('2026-01-02', '2026-11-20', '2026-11-20')).toEqual({ years: null, rest: [['2026-01-02', '2026-11-20']] });
    expect(splitByWholeYears('2026-01-01', '2026-11-19', '2026-11-20')).toEqual({ years: null, rest: [['2026-01-01', '2026-11-19']] });
  });

  it('covers every day of many ranges exactly once, with the months and days of the rest', () => {
    for (const today of ['2025-03-01', LATER]) {
      for (let start = '2023-11-20'; start < '2024-02-10'; start = addDays(start, 5)) {
        for (let length = 0; length < 800; length += 37) {
          const end = addDays(start, length);
          const { years, rest } = splitByWholeYears(start, end, today);
          const covered: string[] = [];
          if (years) for (let d = years.first; d.slice(0, 4) <= years.last.slice(0, 4); d = addDays(d, 1)) covered.push(d);
          for (const [from, to] of rest) {
            const { months, days } = splitByWholeMonths(from, to, today);
            for (const [dayFrom, dayTo] of days) for (let d = dayFrom; d <= dayTo; d = addDays(d, 1)) covered.push(d);
            if (months) for (let d = months.first; d.slice(0, 7) <= months.last.slice(0, 7); d = addDays(d, 1)) covered.push(d);
          }
          const expected: string[] = [];
          for (let d = start; d <= end; d = addDays(d, 1)) expected.push(d);
          expect(covered.filter((d) => d <= end).sort()).toEqual(expected);
          // past the range, only days after today (which hold no rows)
          expect(covered.filter((d) => d > end).every((d) => d > today)).toBe(true);
        }
      }
    }
  });
});
