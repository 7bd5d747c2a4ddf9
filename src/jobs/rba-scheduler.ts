// Following the RBA: on business days the new rates appear at about 16:00 Australia/Sydney. From a
// little before that slot the leading process polls (syncRates) with backoff until the day is
// stored or a bounded window ends; on start-up, and whenever it becomes the leader, it catches up
// on any day it missed, and stores the history workbooks not yet stored (importHistory, beside the
// polls and independent of them; tried again at each slot while one is missing). Only the process
// holding the leader lock polls (src/db/leader-lock.ts).
//
// The decisions (which day is expected, is a poll needed, how long to wait) are the pure functions
// at the top, taking the instant as an argument; the timers (croner) and the loop come after.
import { setTimeout as sleep } from 'node:timers/promises';
import { Cron } from 'croner';
import type { Insertable } from 'kysely';
import type { RbaPollsTable } from '../db/database.js';
import type { LeaderLock } from '../db/leader-lock.js';
import { findNewestDate } from '../db/rates.js';
import { prunePolls, recordPoll } from '../db/rba-polls.js';
import { isBusinessDay, latestDueDate, publicationSlot, SYDNEY, sydneyDate } from '../domain/calendar.js';
import type { Services } from '../services.js';
import { importHistory, type HistoryOutcome } from './rba-history.js';
import { RbaSourceError, syncRates, type SyncSummary } from './rba-sync.js';

/** The leader lock's name: every process of one deployment must use the same. */
export const RBA_LEADER_LOCK = 'aud-rates:rba-scheduler';
/** Polling starts this long before the 16:00 slot (the cron job below fires at 15:55). */
const POLL_LEAD_MS = 5 * 60_000;
/** Weekdays at 15:55 Sydney time; holidays are left out by the calendar, not the pattern. */
export const POLL_START_PATTERN = '0 55 15 * * 1-5';

export interface Backoff {
  initialMs: number;
  maxMs: number;
}
/** 1, 2, 4, 8 minutes, then every 15. */
export const DEFAULT_BACKOFF: Backoff = { initialMs: 60_000, maxMs: 15 * 60_000 };
/** Polling for a day stops this long after its slot (or after start-up, when catching up on an older day). */
export const DEFAULT_WINDOW_MS = 8 * 60 * 60_000;
/** Recorded polls are kept this long (the `rbaPolls` analytics query reads them). */
export const POLL_RETENTION_MS = 90 * 24 * 3_600_000;
/** Old polls deleted after each recorded poll, at most: a few polls a day, so one batch keeps up. */
const POLL_PRUNE_BATCH = 1_000;

// ---- pure decisions ---------------------------------------------------------------------------

/**
 * The day a poll at `now` looks for: today when it is a business day and its slot is less than
 * `leadMs` away (or past), else the newest day already due.
 */
export function expectedDay(now: Date, leadMs = POLL_LEAD_MS): string {
  const today = sydneyDate(now);
  if (isBusinessDay(today) && now.getTime() >= publicationSlot(today).getTime() - leadMs) return today;
  return latestDueDate(now);
}

/** Whether a poll at `now` could bring something: the store lacks the expected day. */
export function pollNeeded(now: Date, newestStored: string | null, leadMs = POLL_LEAD_MS): boolean {
  return newestStored === null || newestStored < expectedDay(now, leadMs);
}

/** The wait after failed attempt number `attempt` (1-based): initial, doubled each time, capped. */
export function backoffDelay(attempt: number, backoff: Backoff = DEFAULT_BACKOFF): number {
  const exponent = Math.max(0, attempt - 1);
  return Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.min(exponent, 30));
}

/** When polling for `day` ends: `windowMs` after its slot, or after the loop started if that is later. */
export function pollDeadline(day: string, startedAt: Date, windowMs = DEFAULT_WINDOW_MS): Date {
  return new Date(Math.max(publicationSlot(day).getTime(), startedAt.getTime()) + windowMs);
}

/** The wait before the next attempt, or null when it would fall past the deadline (give up). */
export function nextAttemptDelay(now: Date, attempt: number, deadline: Date, backoff: Backoff = DEFAULT_BACKOFF): number | null {
  const delay = backoffDelay(attempt, backoff);
  return now.getTime() + delay > deadline.getTime() ? null : delay;
}

/** When the next polling run starts after `now`: 15:55 Sydney on the next business day (croner). */
export function nextPollStart(now: Date): Date {
  const job = new Cron(POLL_START_PATTERN, { timezone: SYDNEY, paused: true });
  let run = job.nextRun(now);
  while (run && !isBusinessDay(sydneyDate(run))) run = job.nextRun(run);
  job.stop();
  if (!run) throw new Error(`no polling run after ${now.toISOString()}`);
  return run;
}

// ---- the scheduler ----------------------------------------------------------------------------

export interface SchedulerLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface RbaSchedulerOptions {
  services: Services;
  leader: LeaderLock;
  logger: SchedulerLogger;
  /** every failed poll or lock attempt (they are logged too; nothing is thrown) */
  onError?: (error: unknown) => void;
  /** when and how to poll: PUBLICATION_SCHEDULE in service */
  schedule: PollSchedule;
}

/** When the leader polls, how it waits between attempts, and how it takes the lead. */
export interface PollSchedule {
  /** the cron pattern (Sydney time) that starts a polling run */
  slotPattern: string;
  /** waits between attempts */
  backoff: Backoff;
  /** how long polling for a day lasts */
  windowMs: number;
  /** seconds between leader-lock attempts */
  lockIntervalSeconds: number;
  /** whether taking the lead starts a catch-up and a history run (tests that drive them turn it off) */
  catchUpOnLead: boolean;
}

export const PUBLICATION_SCHEDULE: PollSchedule = {
  slotPattern: POLL_START_PATTERN,
  backoff: DEFAULT_BACKOFF,
  windowMs: DEFAULT_WINDOW_MS,
  lockIntervalSeconds: 15,
  catchUpOnLead: true,
};

export type FollowStatus = 'current' | 'stored' | 'gave-up' | 'not-leader' | 'stopped';

export interface FollowOutcome {
  status: FollowStatus;
  /** the day the loop last looked for */
  expected: string | null;
  newestDate: string | null;
  /** polls made */
  attempts: number;
  /** what the polls stored, in order */
  polls: SyncSummary[];
}

export interface RbaScheduler {
  /** Stops the timers and any poll in progress, and releases the leader lock. */
  stop(): Promise<void>;
  /** Polls now until the expected day is stored or the window ends (joins a run in progress). For tests and start-up. */
  runCatchUp(): Promise<FollowOutcome>;
  /** Tries to take (or confirms) the leader lock now, as the timer does; for tests. */
  checkLeader(): Promise<boolean>;
  /** Stores the history workbooks not yet stored (joins a run in progress); for tests. */
  runHistory(): Promise<HistoryOutcome>;
}

export function startRbaScheduler(options: RbaSchedulerOptions): RbaScheduler {
  const { services, leader, logger, schedule } = options;
  const { backoff, windowMs } = schedule;
  const report = (error: unknown) => {
    try {
      options.onError?.(error);
    } catch {
      // a reporter's own failure must not stop the scheduler
    }
  };

  let stopped = false;
  const stopSignal = new AbortController();
  let running: { promise: Promise<FollowOutcome>; abort: AbortController } | null = null;
  let leading = false;

  type PollResult = Pick<Insertable<RbaPollsTable>, 'outcome' | 'sources' | 'days_stored' | 'days_updated' | 'newest_date' | 'error'>;
  /** Records a poll and prunes a batch of those past the retention; a store that fails is reported, never stops polling. */
  const notePoll = async (polledAt: Date, reason: string, expected: string, result: PollResult): Promise<void> => {
    const now = services.clock();
    try {
      await recordPoll(services.db, { polled_at: polledAt, duration_ms: now.getTime() - polledAt.getTime(), reason, expected_date: expected, ...result });
      await prunePolls(services.db, new Date(now.getTime() - POLL_RETENTION_MS), POLL_PRUNE_BATCH);
    } catch (error) {
      report(error);
      logger.warn({ err: error, expected, outcome: result.outcome }, 'rba poll not recorded');
    }
  };

  const follow = async (reason: string, signal: AbortSignal): Promise<FollowOutcome> => {
    const startedAt = services.clock();
    const outcome: FollowOutcome = { status: 'current', expected: null, newestDate: null, attempts: 0, polls: [] };
    let lastError: unknown;
    for (;;) {
      /** when this iteration's poll started; null while it only checks the store */
      let polledAt: Date | null = null;
      if (stopped || signal.aborted) return { ...outcome, status: stopped ? 'stopped' : 'not-leader' };
      if (!leader.isHeld()) return { ...outcome, status: 'not-leader' };
      const day = expectedDay(services.clock());
      outcome.expected = day;
      try {
        outcome.newestDate = await findNewestDate(services.db);
        if (!pollNeeded(services.clock(), outcome.newestDate)) {
          if (outcome.attempts === 0) logger.debug({ reason, expected: day }, 'rba poll: nothing to fetch, the expected day is stored');
          return { ...outcome, status: outcome.attempts === 0 ? 'current' : 'stored' };
        }
        outcome.attempts++;
        polledAt = services.clock();
        const summary = await syncRates(services, { signal });
        outcome.polls.push(summary);
        outcome.newestDate = summary.newestDate;
        lastError = null;
        const found = summary.newestDate !== null && summary.newestDate >= day;
        services.metrics.rbaPoll(found ? 'stored' : 'not_published');
        await notePoll(polledAt, reason, day, {
          outcome: found ? 'stored' : 'not_published',
          sources: summary.sources,
          days_stored: summary.inserted,
          days_updated: summary.updated,
          newest_date: summary.newestDate,
        });
        logger.debug({ reason, attempt: outcome.attempts, expected: day, ...summary }, found ? 'rba poll: day stored' : 'rba poll: day not yet published');
        if (found) {
          logger.info(
            { reason, expected: day, published: summary.published, newestDate: summary.newestDate, attempts: outcome.attempts },
            `rates for ${day} stored`,
          );
          return { ...outcome, status: 'stored' };
        }
      } catch (error) {
        if (stopped || signal.aborted) continue;
        lastError = error;
        services.metrics.rbaPoll('failed');
        report(error);
        if (polledAt) {
          const message = error instanceof Error ? error.message : String(error);
          const sources = error instanceof RbaSourceError ? [error.rbaSource] : [];
          await notePoll(polledAt, reason, day, { outcome: 'failed', sources, days_stored: 0, days_updated: 0, newest_date: null, error: message });
        }
        // A source that cannot be read is expected (the RBA late, no network): its message says it all.
        const detail = error instanceof RbaSourceError ? { error: error.message } : { err: error };
        logger.warn({ reason, attempt: outcome.attempts, expected: day, ...detail }, 'rba poll failed');
      }
      const delay = nextAttemptDelay(services.clock(), outcome.attempts, pollDeadline(day, startedAt, windowMs), backoff);
      if (delay === null) {
        logger.warn(
          { reason, expected: day, newestDate: outcome.newestDate, attempts: outcome.attempts, ...(lastError ? { err: lastError } : {}) },
          `gave up waiting for the rates of ${day}; polling resumes at the next slot, ${nextPollStart(services.clock()).toISOString()}`,
        );
        return { ...outcome, status: 'gave-up' };
      }
      logger.debug({ reason, expected: day, delayMs: delay }, 'rba poll: next attempt');
      await sleep(delay, undefined, { signal, ref: false }).catch(() => {});
    }
  };

  const storeHistory = async (): Promise<HistoryOutcome> => {
    if (stopped || !leader.isHeld()) return { stored: [], failed: [] };
    try {
      return await importHistory(services, { logger, signal: stopSignal.signal });
    } catch (error) {
      // Only the store itself can fail here (each source's failure is handled inside).
      report(error);
      logger.warn({ err: error }, 'history: not checked; tried again at the next catch-up');
      return { stored: [], failed: [...services.rbaSources.history] };
    }
  };
  let historyRun: Promise<HistoryOutcome> | null = null;
  /** Starts storing the missing history unless that is under way. */
  const history = (): Promise<HistoryOutcome> => (historyRun ??= storeHistory().finally(() => (historyRun = null)));

  /** Starts a polling run unless one is under way (which recomputes the expected day as it goes). */
  const run = (reason: string): Promise<FollowOutcome> => {
    if (running) return running.promise;
    const abort = new AbortController();
    const promise = follow(reason, abort.signal)
      .catch((error: unknown): FollowOutcome => {
        report(error);
        logger.warn({ reason, err: error }, 'rba polling stopped by an error');
        return { status: 'gave-up', expected: null, newestDate: null, attempts: 0, polls: [] };
      })
      .finally(() => {
        if (running?.promise === promise) running = null;
      });
    running = { promise, abort };
    return promise;
  };

  let checking: Promise<boolean> | null = null;
  const checkLeader = (): Promise<boolean> =>
    (checking ??= (async () => {
      try {
        const held = !stopped && (await leader.tryAcquire());
        if (held && !leading && !stopped) {
          leading = true;
          logger.info({}, 'leading: this process polls the RBA');
          if (schedule.catchUpOnLead) {
            void run('catch-up');
            void history();
          }
        } else if (!held && leading) {
          leading = false;
          logger.warn({}, 'no longer leading: another process polls the RBA');
          running?.abort.abort();
        }
        return held;
      } catch (error) {
        report(error);
        return false;
      } finally {
        checking = null;
      }
    })());

  // The slot: weekdays at 15:55 Sydney (croner follows the time zone's daylight saving); on a
  // business day the leader polls until the day is stored or the window ends.
  const slotJob = new Cron(schedule.slotPattern, { timezone: SYDNEY, protect: true, unref: true, catch: (error) => report(error) }, () => {
    const today = sydneyDate(services.clock());
    if (!isBusinessDay(today)) {
      logger.debug({ date: today }, 'no RBA publication today (weekend or NSW holiday)');
      return;
    }
    if (!leader.isHeld()) return;
    void run('slot');
    void history();
  });
  // Leadership: taken when free, confirmed while held (a lost connection is noticed here).
  const lockJob = new Cron(
    '* * * * * *',
    { interval: schedule.lockIntervalSeconds, protect: true, unref: true, catch: (error) => report(error) },
    async () => void (await checkLeader()),
  );
  void checkLeader();

  return {
    checkLeader,
    async runHistory() {
      await checking; // as runCatchUp: a lock attempt under way decides whether this process may fetch
      return history();
    },
    async runCatchUp() {
      await checking; // a lock attempt under way decides whether this process may poll
      return run('catch-up');
    },
    async stop() {
      stopped = true;
      stopSignal.abort();
      slotJob.stop();
      lockJob.stop();
      const current = running;
      current?.abort.abort();
      await current?.promise;
      await historyRun;
      await checking?.catch(() => false);
      await leader.release().catch(report);
      leading = false;
    },
  };
}
