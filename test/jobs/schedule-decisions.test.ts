// The scheduler's pure decisions, at chosen instants: which day a poll looks for, whether a poll is
// needed, when the next polling run starts (croner, Sydney time with daylight saving, NSW
// holidays), the backoff sequence and the end of the polling window; and when a poll reads the CSV.
import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_BACKOFF, expectedDay, nextAttemptDelay, nextPollStart, pollDeadline, pollNeeded } from '../../src/jobs/rba-scheduler.js';
import { latestDueDate } from '../../src/domain/calendar.js';
import { csvNeeded } from '../../src/jobs/rba-sync.js';

const at = (iso: string) => new Date(iso);
const MINUTE = 60_000;

describe('a Friday (2026-05-15, AEST: the 16:00 slot is 06:00 UTC)', () => {
  it('before the polling lead, Thursday is the day expected and stored Thursday needs no poll', () => {
    expect(expectedDay(at('2026-05-15T05:54:59Z'))).toBe('2026-05-14');
    expect(latestDueDate(at('2026-05-15T05:54:59Z'))).toBe('2026-05-14');
    expect(pollNeeded(at('2026-05-15T05:54:59Z'), '2026-05-14')).toBe(false);
    expect(pollNeeded(at('2026-05-15T05:54:59Z'), '2026-05-13')).toBe(true);
  });

  it('from 15:55 Sydney Friday is expected; it is due only from 16:00', () => {
    expect(expectedDay(at('2026-05-15T05:55:00Z'))).toBe('2026-05-15');
    expect(pollNeeded(at('2026-05-15T05:55:00Z'), '2026-05-14')).toBe(true);
    expect(latestDueDate(at('2026-05-15T05:59:59Z'))).toBe('2026-05-14');
    expect(latestDueDate(at('2026-05-15T06:00:00Z'))).toBe('2026-05-15');
  });

  it('after the slot, a stored Friday needs no poll; the next run is Monday 15:55 Sydney', () => {
    expect(pollNeeded(at('2026-05-15T06:30:00Z'), '2026-05-15')).toBe(false);
    expect(pollNeeded(at('2026-05-15T06:30:00Z'), null)).toBe(true);
    expect(nextPollStart(at('2026-05-15T06:30:00Z')).toISOString()).toBe('2026-05-18T05:55:00.000Z');
    expect(nextPollStart(at('2026-05-15T05:00:00Z')).toISOString()).toBe('2026-05-15T05:55:00.000Z');
  });
});

describe('a weekend', () => {
  it('Saturday and Sunday expect Friday: nothing to poll once it is stored', () => {
    for (const now of ['2026-05-16T00:00:00Z', '2026-05-16T06:30:00Z', '2026-05-17T05:58:00Z', '2026-05-17T13:59:59Z']) {
      expect(expectedDay(at(now)), now).toBe('2026-05-15');
      expect(pollNeeded(at(now), '2026-05-15'), now).toBe(false);
    }
    expect(pollNeeded(at('2026-05-16T06:30:00Z'), '2026-05-14')).toBe(true); // a missed Friday is caught up
  });

  it('Monday 00:30 Sydney (Sunday in UTC) still expects Friday', () => {
    expect(expectedDay(at('2026-05-17T14:30:00Z'))).toBe('2026-05-15');
  });
});

describe('a NSW public holiday: Australia Day, Monday 2026-01-26 (AEDT: slots at 05:00 UTC)', () => {
  it('no publication is expected on the holiday: Friday stays the newest due', () => {
    expect(expectedDay(at('2026-01-26T04:56:00Z'))).toBe('2026-01-23');
    expect(expectedDay(at('2026-01-26T06:00:00Z'))).toBe('2026-01-23');
    expect(pollNeeded(at('2026-01-26T06:00:00Z'), '2026-01-23')).toBe(false);
  });

  it('the next run after Friday is Tuesday 15:55 Sydney, skipping the holiday', () => {
    expect(nextPollStart(at('2026-01-23T05:30:00Z')).toISOString()).toBe('2026-01-27T04:55:00.000Z');
    expect(expectedDay(at('2026-01-27T04:55:00Z'))).toBe('2026-01-27');
  });
});

describe('daylight saving changes', () => {
  it('DST starts Sunday 2026-10-04: Friday 15:55 AEST is 05:55 UTC, Tuesday 15:55 AEDT 04:55 UTC (Monday is Labour Day)', () => {
    expect(nextPollStart(at('2026-10-02T05:00:00Z')).toISOString()).toBe('2026-10-02T05:55:00.000Z');
    expect(nextPollStart(at('2026-10-02T06:30:00Z')).toISOString()).toBe('2026-10-06T04:55:00.000Z');
    expect(expectedDay(at('2026-10-06T04:54:59Z'))).toBe('2026-10-02');
    expect(expectedDay(at('2026-10-06T04:55:00Z'))).toBe('2026-10-06');
    expect(latestDueDate(at('2026-10-06T04:59:59Z'))).toBe('2026-10-02');
    expect(latestDueDate(at('2026-10-06T05:00:00Z'))).toBe('2026-10-06');
  });

  it('DST ends Sunday 2026-04-05 (Easter): Thursday 15:55 AEDT is 04:55 UTC, then Tuesday 15:55 AEST 05:55 UTC', () => {
    expect(nextPollStart(at('2026-04-02T04:00:00Z')).toISOString()).toBe('2026-04-02T04:55:00.000Z');
    // Good Friday 3 April and Easter Monday 6 April are NSW public holidays.
    expect(nextPollStart(at('2026-04-02T05:30:00Z')).toISOString()).toBe('2026-04-07T05:55:00.000Z');
    expect(expectedDay(at('2026-04-06T06:00:00Z'))).toBe('2026-04-02');
    expect(latestDueDate(at('2026-04-07T05:59:59Z'))).toBe('2026-04-02');
    expect(latestDueDate(at('2026-04-07T06:00:00Z'))).toBe('2026-04-07');
  });
});

describe('backoff and the polling window', () => {
  it('waits 1, 2, 4, 8 minutes, then every 15', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map((n) => backoffDelay(n) / MINUTE)).toEqual([1, 2, 4, 8, 15, 15, 15, 15]);
    expect(DEFAULT_BACKOFF).toEqual({ initialMs: MINUTE, maxMs: 15 * MINUTE });
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, { initialMs: 10, maxMs: 50 }))).toEqual([10, 20, 40, 50]);
  });

  it('polling for a day ends 8 hours after its slot', () => {
    const deadline = pollDeadline('2026-05-15', at('2026-05-15T05:55:00Z'));
    expect(deadline.toISOString()).toBe('2026-05-15T14:00:00.000Z');
    expect(nextAttemptDelay(at('2026-05-15T13:45:00Z'), 9, deadline)).toBe(15 * MINUTE);
    expect(nextAttemptDelay(at('2026-05-15T13:45:01Z'), 9, deadline)).toBeNull();
    expect(nextAttemptDelay(at('2026-05-15T05:55:10Z'), 1, deadline)).toBe(MINUTE);
  });

  it('catching up on an older day polls for 8 hours from start-up', () => {
    const deadline = pollDeadline('2026-05-14', at('2026-05-15T01:00:00Z'));
    expect(deadline.toISOString()).toBe('2026-05-15T09:00:00.000Z');
  });
});

describe('when a poll reads the CSV after the feed', () => {
  it('only for a gap the feed does not bridge', () => {
    // Tuesday's feed after Monday: bridged.
    expect(csvNeeded({ storedBefore: '2026-05-11', feedOldest: '2026-05-12', latestDue: '2026-05-12' })).toBe(false);
    // Monday's feed after Friday (the weekend is no gap).
    expect(csvNeeded({ storedBefore: '2026-05-15', feedOldest: '2026-05-18', latestDue: '2026-05-18' })).toBe(false);
    // Before the RBA publishes: the feed still holds the stored day.
    expect(csvNeeded({ storedBefore: '2026-05-11', feedOldest: '2026-05-11', latestDue: '2026-05-12' })).toBe(false);
    // Days missed: the feed holds only the newest.
    expect(csvNeeded({ storedBefore: '2026-05-07', feedOldest: '2026-05-12', latestDue: '2026-05-12' })).toBe(true);
    // Nothing stored at all.
    expect(csvNeeded({ storedBefore: null, feedOldest: '2026-05-12', latestDue: '2026-05-12' })).toBe(true);
    // Up to date: never.
    expect(csvNeeded({ storedBefore: '2026-05-12', feedOldest: '2026-05-12', latestDue: '2026-05-12' })).toBe(false);
  });
});
