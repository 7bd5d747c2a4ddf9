// A year of deterministic, plausible RBA F11.1 rates: every business day of the 365 calendar days
// ending LAST_DATE, all 20 published codes, each at the precision the RBA publishes it.
import { addDays, isBusinessDay, publicationSlot } from '../src/domain/calendar.js';
import { PUBLISHED_CODES, type PublishedCode } from '../src/rba/codes.js';

export const LAST_DATE = '2025-12-31';
export const FIRST_DATE = addDays(LAST_DATE, -364);
/** The injected clock: 30 minutes after LAST_DATE's 16:00 Sydney publication, so the data is fresh. */
export const NOW = new Date(publicationSlot(LAST_DATE).getTime() + 30 * 60_000);

/** A typical 2025 level and the decimal places the RBA publishes for each code. */
const LEVELS: Record<PublishedCode, { level: number; dp: number }> = {
  USD: { level: 0.6500, dp: 4 },
  EUR: { level: 0.5750, dp: 4 },
  GBP: { level: 0.4900, dp: 4 },
  JPY: { level: 97.5, dp: 2 },
  CNY: { level: 4.68, dp: 4 },
  KRW: { level: 905, dp: 2 },
  INR: { level: 56.2, dp: 2 },
  SGD: { level: 0.8400, dp: 4 },
  NZD: { level: 1.1000, dp: 4 },
  THB: { level: 21.4, dp: 2 },
  MYR: { level: 2.7800, dp: 4 },
  IDR: { level: 10650, dp: 0 },
  VND: { level: 17050, dp: 0 },
  HKD: { level: 5.0600, dp: 4 },
  PHP: { level: 37.4, dp: 2 },
  CAD: { level: 0.9000, dp: 4 },
  CHF: { level: 0.5250, dp: 4 },
  TWD: { level: 20.3, dp: 2 },
  TWI: { level: 60.5, dp: 2 },
  SDR: { level: 0.4800, dp: 4 },
};

export interface FixtureDay {
  date: string;
  rates: { code: string; value: string }[];
}

/** Within ±3% of the level: two slow waves per code, phase-shifted by its position. */
function valueOn(code: PublishedCode, index: number, day: number): string {
  const { level, dp } = LEVELS[code];
  const drift = 0.02 * Math.sin((day + index * 17) / 41) + 0.01 * Math.sin((day * 7 + index * 5) / 13);
  return (level * (1 + drift)).toFixed(dp);
}

export function fixtureDays(): FixtureDay[] {
  const days: FixtureDay[] = [];
  for (let day = 0; day < 365; day++) {
    const date = addDays(FIRST_DATE, day);
    if (!isBusinessDay(date)) continue;
    days.push({ date, rates: PUBLISHED_CODES.map((code, index) => ({ code, value: valueOn(code, index, day) })) });
  }
  return days;
}
