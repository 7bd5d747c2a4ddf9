import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  daysBetween,
  isBusinessDay,
  isValidIsoDate,
  nextBusinessDay,
  nextPublicationSlotAt,
  publicationDueAfter,
  publicationSlot,
  sydneyDate,
  unixTimestampOfDate,
} from '../../src/domain/calendar.js';

const iso = (d: Date): string => d.toISOString();

describe('sydneyDate', () => {
  it('is already the next day in Sydney shortly after 13:00 UTC in summer (AEDT, +11)', () => {
    expect(sydneyDate(new Date('2024-01-05T12:59:59Z'))).toBe('2024-01-05');
    expect(sydneyDate(new Date('2024-01-05T13:00:00Z'))).toBe('2024-01-06');
    expect(sydneyDate(new Date('2024-01-05T13:30:00Z'))).toBe('2024-01-06');
  });

  it('rolls over at 14:00 UTC in winter (AEST, +10)', () => {
    expect(sydneyDate(new Date('2024-07-05T13:59:59Z'))).toBe('2024-07-05');
    expect(sydneyDate(new Date('2024-07-05T14:00:00Z'))).toBe('2024-07-06');
  });

  it('rejects an invalid Date', () => {
    expect(() => sydneyDate(new Date('nope'))).toThrow(RangeError);
  });
});

describe('isBusinessDay', () => {
  it('is false on weekends and true on ordinary weekdays', () => {
    expect(isBusinessDay('2024-01-06')).toBe(false); // Saturday
    expect(isBusinessDay('2024-01-07')).toBe(false); // Sunday
    expect(isBusinessDay('2024-01-08')).toBe(true); // Monday
    expect(isBusinessDay('2024-01-12')).toBe(true); // Friday
  });

  it('is false on NSW public holidays', () => {
    expect(isBusinessDay('2024-01-01')).toBe(false); // New Year's Day
    expect(isBusinessDay('2024-01-26')).toBe(false); // Australia Day
    expect(isBusinessDay('2024-03-29')).toBe(false); // Good Friday
    expect(isBusinessDay('2024-04-01')).toBe(false); // Easter Monday
    expect(isBusinessDay('2024-04-25')).toBe(false); // Anzac Day
    expect(isBusinessDay('2024-06-10')).toBe(false); // King's Birthday
    expect(isBusinessDay('2024-10-07')).toBe(false); // Labour Day
    expect(isBusinessDay('2024-12-25')).toBe(false); // Christmas Day
    expect(isBusinessDay('2024-12-26')).toBe(false); // Boxing Day
  });

  it('is false on the NSW Bank Holiday (first Monday of August) but not the day after', () => {
    expect(isBusinessDay('2023-08-07')).toBe(false);
    expect(isBusinessDay('2024-08-05')).toBe(false);
    expect(isBusinessDay('2025-08-04')).toBe(false);
    expect(isBusinessDay('2023-08-08')).toBe(true);
  });

  it('is false on substitute days for holidays falling on a weekend', () => {
    expect(isBusinessDay('2022-01-03')).toBe(false); // New Year's Day was a Saturday
    expect(isBusinessDay('2025-01-27')).toBe(false); // Australia Day was a Sunday
    expect(isBusinessDay('2026-04-27')).toBe(false); // Anzac Day was a Saturday
    expect(isBusinessDay('2021-12-27')).toBe(false); // Christmas Day was a Saturday
    expect(isBusinessDay('2021-12-28')).toBe(false); // Boxing Day was a Sunday
    expect(isBusinessDay('2022-12-26')).toBe(false); // Boxing Day (Monday)
    expect(isBusinessDay('2022-12-27')).toBe(false); // Christmas Day was a Sunday
    expect(isBusinessDay('2022-12-28')).toBe(true);
  });

  it('ignores holidays of other states', () => {
    expect(isBusinessDay('2024-11-05')).toBe(true); // Melbourne Cup (VIC)
    expect(isBusinessDay('2024-03-11')).toBe(true); // Labour Day (VIC)
  });

  it('rejects malformed dates', () => {
    expect(() => isBusinessDay('2024-02-30')).toThrow(RangeError);
    expect(() => isBusinessDay('2024-1-5')).toThrow(RangeError);
  });

  it('is false exactly on the weekdays missing from the RBA F11.1 file (2023-01-03..2026-05-11)', () => {
    // Derived from /work/shared/data/rba/f11.1-data_2026-05-11.csv: the weekdays
    // in that range on which the RBA published no rates.
    const notPublished = new Set([
      '2023-01-26',
      '2023-04-07',
      '2023-04-10',
      '2023-04-25',
      '2023-06-12',
      '2023-08-07',
      '2023-10-02',
      '2023-12-25',
      '2023-12-26',
      '2024-01-01',
      '2024-01-26',
      '2024-03-29',
      '2024-04-01',
      '2024-04-25',
      '2024-06-10',
      '2024-08-05',
      '2024-10-07',
      '2024-12-25',
      '2024-12-26',
      '2025-01-01',
      '2025-01-27',
      '2025-04-18',
      '2025-04-21',
      '2025-04-25',
      '2025-06-09',
      '2025-08-04',
      '2025-10-06',
      '2025-12-25',
      '2025-12-26',
      '2026-01-01',
      '2026-01-26',
      '2026-04-03',
      '2026-04-06',
      '2026-04-27',
    ]);
    const wrong: string[] = [];
    let weekdays = 0;
    for (let d = '2023-01-03'; d <= '2026-05-11'; d = addDays(d, 1)) {
      const dow = new Date(`${d}T00:00:00Z`).getUTCDay();
      if (dow === 0 || dow === 6) {
        if (isBusinessDay(d)) wrong.push(d);
        continue;
      }
      weekdays++;
      if (isBusinessDay(d) === notPublished.has(d)) wrong.push(d);
    }
    expect(wrong).toEqual([]);
    expect(weekdays - notPublished.size).toBe(841); // rows in the file
  });
});

describe('nextBusinessDay', () => {
  it('skips weekends and holidays, strictly after the given date', () => {
    expect(nextBusinessDay('2024-01-08')).toBe('2024-01-09');
    expect(nextBusinessDay('2024-01-05')).toBe('2024-01-08'); // Friday
    expect(nextBusinessDay('2024-01-06')).toBe('2024-01-08'); // Saturday
    expect(nextBusinessDay('2024-03-28')).toBe('2024-04-02'); // Easter
    expect(nextBusinessDay('2023-08-04')).toBe('2023-08-08'); // Bank Holiday
    expect(nextBusinessDay('2021-12-24')).toBe('2021-12-29'); // Christmas substitutes
    expect(nextBusinessDay('2024-12-31')).toBe('2025-01-02');
  });
});

describe('publicationSlot', () => {
  it('is 16:00 AEDT (05:00Z) before DST ends on Sunday 2024-04-07', () => {
    expect(iso(publicationSlot('2024-04-05'))).toBe('2024-04-05T05:00:00.000Z');
    expect(iso(publicationSlot('2024-04-06'))).toBe('2024-04-06T05:00:00.000Z');
  });

  it('is 16:00 AEST (06:00Z) from the day DST ends', () => {
    expect(iso(publicationSlot('2024-04-07'))).toBe('2024-04-07T06:00:00.000Z');
    expect(iso(publicationSlot('2024-04-08'))).toBe('2024-04-08T06:00:00.000Z');
    expect(iso(publicationSlot('2024-06-12'))).toBe('2024-06-12T06:00:00.000Z');
  });

  it('is back to 05:00Z from the day DST starts on Sunday 2024-10-06', () => {
    expect(iso(publicationSlot('2024-10-04'))).toBe('2024-10-04T06:00:00.000Z');
    expect(iso(publicationSlot('2024-10-05'))).toBe('2024-10-05T06:00:00.000Z');
    expect(iso(publicationSlot('2024-10-06'))).toBe('2024-10-06T05:00:00.000Z');
    expect(iso(publicationSlot('2024-10-08'))).toBe('2024-10-08T05:00:00.000Z');
  });

  it('rejects malformed dates', () => {
    expect(() => publicationSlot('2023-02-29')).toThrow(RangeError);
  });
});

describe('publicationDueAfter', () => {
  it('is the next day for a mid-week date', () => {
    expect(iso(publicationDueAfter('2024-01-09'))).toBe('2024-01-10T05:00:00.000Z');
  });

  it('is Monday for a Friday', () => {
    expect(iso(publicationDueAfter('2024-01-12'))).toBe('2024-01-15T05:00:00.000Z');
  });

  it('skips Good Friday and Easter Monday', () => {
    expect(iso(publicationDueAfter('2024-03-28'))).toBe('2024-04-02T05:00:00.000Z');
  });

  it('crosses the DST change', () => {
    expect(iso(publicationDueAfter('2024-04-05'))).toBe('2024-04-08T06:00:00.000Z');
    // Monday 2024-10-07 is Labour Day.
    expect(iso(publicationDueAfter('2024-10-04'))).toBe('2024-10-08T05:00:00.000Z');
  });

  it('skips the Bank Holiday', () => {
    expect(iso(publicationDueAfter('2023-08-04'))).toBe('2023-08-08T06:00:00.000Z');
  });

  it('skips Christmas, Boxing Day and New Year', () => {
    expect(iso(publicationDueAfter('2024-12-24'))).toBe('2024-12-27T05:00:00.000Z');
    expect(iso(publicationDueAfter('2024-12-31'))).toBe('2025-01-02T05:00:00.000Z');
    expect(iso(publicationDueAfter('2022-12-23'))).toBe('2022-12-28T05:00:00.000Z');
  });
});

describe('nextPublicationSlotAt', () => {
  it('is today 16:00 Sydney until and including the slot, tomorrow just after', () => {
    expect(iso(nextPublicationSlotAt(new Date('2024-01-10T04:59:59.999Z')))).toBe('2024-01-10T05:00:00.000Z');
    expect(iso(nextPublicationSlotAt(new Date('2024-01-10T05:00:00.000Z')))).toBe('2024-01-10T05:00:00.000Z');
    expect(iso(nextPublicationSlotAt(new Date('2024-01-10T05:00:00.001Z')))).toBe('2024-01-11T05:00:00.000Z');
  });

  it('uses 16:00 AEST in winter', () => {
    expect(iso(nextPublicationSlotAt(new Date('2024-06-12T05:59:59Z')))).toBe('2024-06-12T06:00:00.000Z');
    expect(iso(nextPublicationSlotAt(new Date('2024-06-12T06:00:01Z')))).toBe('2024-06-13T06:00:00.000Z');
  });

  it('goes to Monday after the Friday slot and at a weekend', () => {
    expect(iso(nextPublicationSlotAt(new Date('2024-01-12T05:00:01Z')))).toBe('2024-01-15T05:00:00.000Z');
    expect(iso(nextPublicationSlotAt(new Date('2024-01-13T00:00:00Z')))).toBe('2024-01-15T05:00:00.000Z');
    // Friday 23:30 UTC is already Saturday in Sydney.
    expect(iso(nextPublicationSlotAt(new Date('2024-01-12T13:30:00Z')))).toBe('2024-01-15T05:00:00.000Z');
  });

  it('uses the Sydney date, not the UTC date', () => {
    // Sunday 14:00 UTC is Monday 01:00 in Sydney.
    expect(iso(nextPublicationSlotAt(new Date('2024-01-14T14:00:00Z')))).toBe('2024-01-15T05:00:00.000Z');
    // Thursday 13:30 UTC is Friday 00:30 in Sydney: Friday's slot, not Thursday's passed one.
    expect(iso(nextPublicationSlotAt(new Date('2024-01-11T13:30:00Z')))).toBe('2024-01-12T05:00:00.000Z');
  });

  it('skips holidays', () => {
    expect(iso(nextPublicationSlotAt(new Date('2024-03-29T01:00:00Z')))).toBe('2024-04-02T05:00:00.000Z');
    expect(iso(nextPublicationSlotAt(new Date('2024-03-28T06:00:00Z')))).toBe('2024-04-02T05:00:00.000Z');
    expect(iso(nextPublicationSlotAt(new Date('2024-08-05T02:00:00Z')))).toBe('2024-08-06T06:00:00.000Z');
  });
});

describe('addDays', () => {
  it('does calendar arithmetic across month, leap-day and year boundaries', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29');
    expect(addDays('2023-03-01', -1)).toBe('2023-02-28');
    expect(addDays('2024-12-31', 1)).toBe('2025-01-01');
    expect(addDays('2024-01-01', 366)).toBe('2025-01-01');
    expect(addDays('2024-01-01', -1)).toBe('2023-12-31');
    expect(addDays('2024-05-10', 0)).toBe('2024-05-10');
  });

  it('is unaffected by DST changes', () => {
    expect(addDays('2024-04-06', 1)).toBe('2024-04-07');
    expect(addDays('2024-04-06', 2)).toBe('2024-04-08');
    expect(addDays('2024-10-05', 2)).toBe('2024-10-07');
  });

  it('rejects invalid input', () => {
    expect(() => addDays('2024-02-30', 1)).toThrow(RangeError);
    expect(() => addDays('2024-02-01', 1.5)).toThrow(RangeError);
  });
});

describe('daysBetween', () => {
  it('returns end minus start in whole days', () => {
    expect(daysBetween('2024-01-01', '2025-01-01')).toBe(366);
    expect(daysBetween('2023-01-01', '2024-01-01')).toBe(365);
    expect(daysBetween('2024-04-08', '2024-04-05')).toBe(-3);
    expect(daysBetween('2024-10-05', '2024-10-07')).toBe(2);
    expect(daysBetween('2024-05-10', '2024-05-10')).toBe(0);
  });
});

describe('isValidIsoDate', () => {
  it('accepts real calendar dates', () => {
    expect(isValidIsoDate('2024-02-29')).toBe(true);
    expect(isValidIsoDate('2000-02-29')).toBe(true);
    expect(isValidIsoDate('2024-12-31')).toBe(true);
    expect(isValidIsoDate('2024-01-01')).toBe(true);
  });

  it('rejects impossible dates', () => {
    expect(isValidIsoDate('2024-02-30')).toBe(false);
    expect(isValidIsoDate('2023-02-29')).toBe(false);
    expect(isValidIsoDate('1900-02-29')).toBe(false);
    expect(isValidIsoDate('2024-04-31')).toBe(false);
    expect(isValidIsoDate('2024-13-01')).toBe(false);
    expect(isValidIsoDate('2024-00-10')).toBe(false);
    expect(isValidIsoDate('2024-01-00')).toBe(false);
    expect(isValidIsoDate('2024-01-32')).toBe(false);
  });

  it('rejects anything but strict YYYY-MM-DD', () => {
    expect(isValidIsoDate('2024-2-3')).toBe(false);
    expect(isValidIsoDate('20240203')).toBe(false);
    expect(isValidIsoDate(' 2024-02-03')).toBe(false);
    expect(isValidIsoDate('2024-02-03 ')).toBe(false);
    expect(isValidIsoDate('2024-02-03T00:00:00Z')).toBe(false);
    expect(isValidIsoDate('')).toBe(false);
  });

  it("agrees with JavaScript's own calendar on every shape of YYYY-MM-DD, and its timestamp with Date's", () => {
    const pad = (n: number, width: number) => String(n).padStart(width, '0');
    // The oracle: Date rolls an impossible day over into the next month, so a date is real when it comes back unchanged.
    const real = (year: number, month: number, day: number) => {
      const d = new Date(0);
      d.setUTCFullYear(year, month - 1, day);
      return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day ? d.getTime() : null;
    };
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }), (year, month, day) => {
        const text = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
        const ms = real(year, month, day);
        expect(isValidIsoDate(text)).toBe(ms !== null);
        if (ms !== null) expect(daysBetween('1970-01-01', text)).toBe(ms / 86_400_000);
      }),
      { seed: 20261126, numRuns: 20_000 },
    );
    fc.assert(
      fc.property(fc.string({ minLength: 10, maxLength: 10 }), (text) => {
        expect(isValidIsoDate(text)).toBe(/^\d{4}-\d{2}-\d{2}$/.test(text) && real(+text.slice(0, 4), +text.slice(5, 7), +text.slice(8)) !== null);
      }),
      { seed: 7, numRuns: 5_000 },
    );
  });
});

describe('unixTimestampOfDate', () => {
  it('returns the Unix seconds of 00:00 UTC', () => {
    expect(unixTimestampOfDate('2024-01-05')).toBe(1704412800);
    expect(unixTimestampOfDate('1970-01-01')).toBe(0);
    expect(unixTimestampOfDate('2024-04-07')).toBe(1712448000);
  });
});
