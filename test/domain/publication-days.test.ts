// The calendar against the RBA's own publications: the weekdays missing from its real F11.1
// download (seed/, 2023-01-03 to 2026-05-11) are exactly the NSW public holidays and the Bank
// Holiday, and so are those of its 2018-2022 USD series. The series' ids, units and decimals the
// service writes are the file's own.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { addDays, holidayName, isBusinessDay, isWeekday, nextBusinessDay } from '../../src/domain/calendar.js';
import { PUBLISHED_CODES, PUBLISHED_SERIES, publishedText } from '../../src/domain/currencies.js';
import { trimDecimal } from '../../src/domain/decimal.js';
import { publicationCalendar } from '../../src/domain/publication-calendar.js';
import { parseRbaCsv } from '../../src/rba/index.js';

const SEED = new URL('../../seed/f11.1-data_2026-05-11.csv', import.meta.url);
const seedText = readFileSync(SEED, 'utf8');
const seed = parseRbaCsv(seedText);
const seedDates = seed.days.map((d) => d.date);
/** the file's header rows, cell by cell */
const headerRow = (label: string) =>
  seedText
    .split('\n')
    .find((line) => line.startsWith(`${label},`))!
    .trim()
    .split(',');

/** Every weekday of [from, to] that is not in `dates`. */
function weekdayGaps(dates: readonly string[], from: string, to: string): string[] {
  const have = new Set(dates);
  const gaps: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) if (isWeekday(d) && !have.has(d)) gaps.push(d);
  return gaps;
}

// The weekdays of 2018-2022 without a USD rate in the RBA's F11.1 history, as merged from its
// 2018-2022 workbook by mcoot/ess-calcs2 (public/rba-forex.csv, commit d72b2ee): 1,256 rate days.
const NOT_PUBLISHED_2018_2022 = [
  '2018-01-01', '2018-01-26', '2018-03-30', '2018-04-02', '2018-04-25', '2018-06-11', '2018-08-06', '2018-10-01', '2018-12-25', '2018-12-26',
  '2019-01-01', '2019-01-28', '2019-04-19', '2019-04-22', '2019-04-25', '2019-06-10', '2019-08-05', '2019-10-07', '2019-12-25', '2019-12-26',
  '2020-01-01', '2020-01-27', '2020-04-10', '2020-04-13', '2020-06-08', '2020-08-03', '2020-10-05', '2020-12-25', '2020-12-28',
  '2021-01-01', '2021-01-26', '2021-04-02', '2021-04-05', '2021-06-14', '2021-08-02', '2021-10-04', '2021-12-27', '2021-12-28',
  '2022-01-03', '2022-01-26', '2022-04-15', '2022-04-18', '2022-04-25', '2022-06-13', '2022-08-01', '2022-09-22', '2022-10-03', '2022-12-26', '2022-12-27',
]; // prettier-ignore

describe('the closed days against the RBA’s publications', () => {
  it('every weekday gap of the real F11.1 download is a NSW holiday or the Bank Holiday, and nothing else is', () => {
    expect(seed.days).toHaveLength(841);
    const gaps = weekdayGaps(seedDates, '2023-01-03', '2026-05-11');
    expect(gaps.filter((d) => holidayName(d) === null)).toEqual([]);
    expect(gaps.filter((d) => isBusinessDay(d))).toEqual([]);
    // and every holiday of the range is a gap: none of them has rates
    const holidays: string[] = [];
    for (let d = '2023-01-03'; d <= '2026-05-11'; d = addDays(d, 1)) if (isWeekday(d) && holidayName(d) !== null) holidays.push(d);
    expect(holidays).toEqual(gaps);
    expect(gaps.filter((d) => d < '2026-01-01')).toHaveLength(29);
  });

  it('the Bank Holiday (first Monday of August) is closed, with its name, in every year', () => {
    for (const date of ['2018-08-06', '2020-08-03', '2023-08-07', '2024-08-05', '2025-08-04', '2026-08-03', '2027-08-02']) {
      expect(holidayName(date), date).toBe('Bank Holiday');
      expect(isBusinessDay(date), date).toBe(false);
    }
    for (const date of ['2023-08-07', '2024-08-05', '2025-08-04']) expect(seedDates, date).not.toContain(date);
    expect(nextBusinessDay('2025-08-01')).toBe('2025-08-05');
  });

  it('2018-2022 too: the weekdays without rates are exactly the closed days (no Anzac Day substitute before 2026)', () => {
    const closed: string[] = [];
    for (let d = '2018-01-01'; d <= '2022-12-31'; d = addDays(d, 1)) if (isWeekday(d) && !isBusinessDay(d)) closed.push(d);
    expect(closed).toEqual(NOT_PUBLISHED_2018_2022);
    expect(isBusinessDay('2020-04-27')).toBe(true);
    expect(holidayName('2026-04-27')).toBe('Anzac Day (substitute day)');
    expect(holidayName('2022-09-22')).toBe('National Day of Mourning for Queen Elizabeth II');
  });

  it('the calendar of the real data has no gap in it, and names every closed day', () => {
    const calendar = publicationCalendar('2023-01-03', '2025-12-31', seedDates, '2026-05-11');
    expect(calendar.missing).toEqual([]);
    expect(calendar.rateDays).toEqual(seedDates.filter((d) => d <= '2025-12-31'));
    expect(calendar.closed.map((c) => c.name)).toContain('Bank Holiday');
    expect(calendar.closed.find((c) => c.date === '2025-12-25')).toEqual({ date: '2025-12-25', name: 'Christmas Day' });
    expect(calendar.closed).toHaveLength(29);
  });

  it('after the newest stored day, the business days are expected; before it, a weekday without rates that is no holiday is missing', () => {
    const calendar = publicationCalendar('2026-05-04', '2026-06-12', ['2026-05-04', '2026-05-06', '2026-05-11'], '2026-05-11');
    expect(calendar.missing).toEqual(['2026-05-05', '2026-05-07', '2026-05-08']);
    expect(calendar.rateDays).toContain('2026-05-12');
    expect(calendar.rateDays).not.toContain('2026-06-08');
    expect(calendar.closed).toEqual([{ date: '2026-06-08', name: "King's Birthday" }]);
    expect(publicationCalendar('2026-12-24', '2027-01-04', [], null)).toEqual({
      rateDays: ['2026-12-24', '2026-12-29', '2026-12-30', '2026-12-31', '2027-01-04'],
      closed: [
        { date: '2026-12-25', name: 'Christmas Day' },
        { date: '2026-12-28', name: 'Boxing Day (substitute day)' },
        { date: '2027-01-01', name: "New Year's Day" },
      ],
      missing: [],
    });
  });
});

describe('the published series', () => {
  it('are the real file’s series ids and units, column by column', () => {
    const units = headerRow('Units');
    const ids = headerRow('Series ID');
    for (const code of PUBLISHED_CODES) {
      const column = units.indexOf(PUBLISHED_SERIES[code].units);
      expect(column, code).toBeGreaterThan(0);
      expect(ids[column], code).toBe(PUBLISHED_SERIES[code].seriesId);
      expect(headerRow('Title')[column], code).toBe(PUBLISHED_SERIES[code].title);
    }
  });

  it('write every value of the real file with exactly the decimals the RBA wrote', () => {
    const rows = seedText.split('\n');
    const units = headerRow('Units');
    let values = 0;
    for (const row of rows.filter((line) => /^\d\d-[A-Z][a-z]{2}-\d{4},/.test(line))) {
      const cells = row.trim().split(',');
      for (const code of PUBLISHED_CODES) {
        const published = cells[units.indexOf(PUBLISHED_SERIES[code].units)]!;
        if (published === '') continue;
        // the stored text is the shortest ('0.64'); written out, it is the RBA's ('0.6400')
        const stored = trimDecimal(published);
        expect(publishedText(code, stored), `${code} ${cells[0]}`).toBe(published);
        values++;
      }
    }
    expect(values).toBeGreaterThan(16_000);
    expect(publishedText('AUD', '1')).toBe('1');
    expect(publishedText('USD', '0.68285')).toBe('0.68285');
  });
});
