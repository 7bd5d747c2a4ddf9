// Unit tests of src/domain/billing.ts (D17 in docs/decisions.md): the period containing `now` for a
// billing day, in UTC, a billing day past the month's end falling back to the month's last day.
import { describe, expect, it } from 'vitest';
import { billingDayOf, billingPeriod } from '../../src/domain/billing.js';

const period = (billingDay: number, now: string) => {
  const p = billingPeriod(billingDay, new Date(now));
  return { start: p.start, resetsAt: p.resetsAt.toISOString() };
};

describe('billingDayOf', () => {
  it('is the day of the month of the sign-up in UTC, whatever the offset of its spelling', () => {
    expect(billingDayOf(new Date('2026-05-12T23:59:59.999Z'))).toBe(12);
    expect(billingDayOf(new Date('2026-05-13T00:00:00.000Z'))).toBe(13);
    // 09:30 on the 13th in Sydney is 23:30 UTC on the 12th
    expect(billingDayOf(new Date('2026-05-13T09:30:00+10:00'))).toBe(12);
    expect(billingDayOf(new Date('2028-02-29T12:00:00Z'))).toBe(29);
  });
});

describe('billingPeriod', () => {
  it.each([
    // billing day, now, start, resets at
    [15, '2026-05-14T23:59:59.999Z', '2026-04-15', '2026-05-15T00:00:00.000Z'],
    [15, '2026-05-15T00:00:00.000Z', '2026-05-15', '2026-06-15T00:00:00.000Z'],
    [15, '2026-05-31T12:00:00.000Z', '2026-05-15', '2026-06-15T00:00:00.000Z'],
    // exactly 00:00 UTC on the billing day starts the new period
    [1, '2026-03-01T00:00:00.000Z', '2026-03-01', '2026-04-01T00:00:00.000Z'],
    [1, '2026-02-28T23:59:59.999Z', '2026-02-01', '2026-03-01T00:00:00.000Z'],
    // 31 → the last day of shorter months
    [31, '2026-02-10T12:00:00.000Z', '2026-01-31', '2026-02-28T00:00:00.000Z'],
    [31, '2028-02-10T12:00:00.000Z', '2028-01-31', '2028-02-29T00:00:00.000Z'],
    [31, '2026-02-28T00:00:00.000Z', '2026-02-28', '2026-03-31T00:00:00.000Z'],
    [31, '2028-02-29T00:00:00.000Z', '2028-02-29', '2028-03-31T00:00:00.000Z'],
    [31, '2026-03-30T23:59:59.000Z', '2026-02-28', '2026-03-31T00:00:00.000Z'],
    [31, '2026-04-30T00:00:00.000Z', '2026-04-30', '2026-05-31T00:00:00.000Z'],
    [31, '2026-06-29T23:59:59.000Z', '2026-05-31', '2026-06-30T00:00:00.000Z'],
    [30, '2026-02-28T00:00:00.000Z', '2026-02-28', '2026-03-30T00:00:00.000Z'],
    [30, '2026-03-01T00:00:00.000Z', '2026-02-28', '2026-03-30T00:00:00.000Z'],
    [29, '2027-02-28T10:00:00.000Z', '2027-02-28', '2027-03-29T00:00:00.000Z'],
    [29, '2028-02-28T10:00:00.000Z', '2028-01-29', '2028-02-29T00:00:00.000Z'],
    // December → January: the year changes in both directions
    [15, '2026-12-20T00:00:00.000Z', '2026-12-15', '2027-01-15T00:00:00.000Z'],
    [15, '2027-01-10T00:00:00.000Z', '2026-12-15', '2027-01-15T00:00:00.000Z'],
    [31, '2026-12-31T00:00:00.000Z', '2026-12-31', '2027-01-31T00:00:00.000Z'],
    [31, '2026-12-30T23:59:59.999Z', '2026-11-30', '2026-12-31T00:00:00.000Z'],
    [31, '2027-01-05T00:00:00.000Z', '2026-12-31', '2027-01-31T00:00:00.000Z'],
    [1, '2027-01-01T00:00:00.000Z', '2027-01-01', '2027-02-01T00:00:00.000Z'],
    [1, '2026-12-31T23:59:59.999Z', '2026-12-01', '2027-01-01T00:00:00.000Z'],
  ] as const)('day %i at %s: from %s, resets %s', (day, now, start, resetsAt) => {
    expect(period(day, now)).toEqual({ start, resetsAt });
  });

  it("works in UTC, whatever the offset of the instant's spelling", () => {
    // 2026-05-15T09:30+10:00 is 2026-05-14T23:30Z: still the period before the 15th
    expect(period(15, '2026-05-15T09:30:00+10:00')).toEqual({ start: '2026-04-15', resetsAt: '2026-05-15T00:00:00.000Z' });
  });

  it('for every billing day and every day of 2026–2028: start ≤ now < reset, one month apart, on the (clamped) billing day', () => {
    const lastDay = (y: number, m: number) => new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
    const wrong: string[] = [];
    for (let billingDay = 1; billingDay <= 31; billingDay++) {
      for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2029, 0, 1); t += 86_400_000) {
        for (const now of [new Date(t), new Date(t + 86_399_999)]) {
          const { start, resetsAt } = billingPeriod(billingDay, now);
          const startDate = new Date(`${start}T00:00:00Z`);
          const [sy, sm, ry, rm] = [startDate.getUTCFullYear(), startDate.getUTCMonth(), resetsAt.getUTCFullYear(), resetsAt.getUTCMonth()];
          const ok =
            startDate.getTime() <= now.getTime() &&
            resetsAt.getTime() > now.getTime() &&
            startDate.getUTCDate() === Math.min(billingDay, lastDay(sy, sm)) &&
            ry * 12 + rm === sy * 12 + sm + 1 &&
            resetsAt.getUTCDate() === Math.min(billingDay, lastDay(ry, rm)) &&
            resetsAt.toISOString().endsWith('T00:00:00.000Z');
          if (!ok) wrong.push(`day ${billingDay} at ${now.toISOString()}: ${start} → ${resetsAt.toISOString()}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
