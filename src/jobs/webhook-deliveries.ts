// Sends recorded webhook deliveries (D27, D28 in docs/decisions.md): every process runs a worker;
// each claims due deliveries under a lease (SKIP LOCKED), so a delivery goes out once however many
// run, and one whose process died mid-attempt is taken over, with the same id, when its lease runs
// out.
import pLimit from 'p-limit';
import type { Logger } from 'pino';
import {
  abandonDelivery,
  claimDueDeliveries,
  pruneAttempts,
  pruneDeliveries,
  recordAttempts,
  type AttemptRecord,
  type ClaimedDelivery,
} from '../db/webhook-deliveries.js';
import { PLANS_WITH_WEBHOOKS } from '../domain/plans.js';
import type { Services } from '../services.js';
import { signedDelivery } from '../webhooks/sign.js';
import { PolledJob } from './polled-job.js';

/** D28: attempts at 0, 1 min, 5 min, 30 min, 2 h and 6 h after the publication. */
export const ATTEMPT_OFFSETS_MS = [0, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000] as const;
/** D28: consecutive failed attempts that deactivate a subscription. */
export const DEACTIVATE_AFTER_FAILURES = 10;

/** How long deliveries and their attempts are kept: the delivery log's 30 days (D42). */
export const ATTEMPT_RETENTION_MS = 30 * 24 * 3_600_000;
/** Old attempts are deleted this many at a time, at most once an hour, so no prune holds locks for long. */
const PRUNE_BATCH = 1_000;
const PRUNE_BATCHES_PER_RUN = 20;
const PRUNE_EVERY_MS = 3_600_000;

/** Outcomes are written in batches: one commit for many attempts. */
const RECORD_BATCH = 64;
const RECORD_DELAY_MS = 100;

export interface DeliveryWorkerOptions {
  /** attempts in flight at once */
  concurrency?: number;
  /** how long a claimed delivery stays this process's (WEBHOOK_LEASE_SECONDS): well past one attempt's 10 s */
  leaseMs?: number;
  /** how often to look for due retries when nothing wakes the worker */
  pollMs?: number;
}

export class DeliveryWorker {
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly job: PolledJob;
  private outcomes: AttemptRecord[] = [];
  private recordTimer: NodeJS.Timeout | null = null;
  private recording: Promise<void> = Promise.resolve();
  private prunedAt = -Infinity;
  /** whether this process prunes: the leading one where several share a database */
  private leads: () => boolean = () => true;

  constructor(
    private readonly services: Services,
    private readonly logger: Logger,
    options: DeliveryWorkerOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 64;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.job = new PolledJob({
      drain: () => this.drain(),
      pollMs: options.pollMs ?? 5_000,
      logger,
      attempted: 'webhook deliveries attempted',
      failed: 'webhook deliveries failed to run',
    });
  }

  /** Polls for due deliveries, and at once whenever rates are published (in any process). */
  start(): void {
    this.services.changes.subscribe((channel) => channel === 'rates_changed' && this.wake());
    this.job.start();
  }

  stop(): Promise<void> {
    return this.job.stop();
  }

  /**
   * Prunes only while `leads` says this process leads (D42: the leading process deletes old
   * deliveries); without it, as with a single process, every run may prune.
   */
  pruneOnlyWhile(leads: () => boolean): void {
    this.leads = leads;
  }

  /** Runs now, or once more right after the run in progress. */
  wake(): void {
    this.job.wake();
  }

  /** Attempts every delivery due now and records each outcome; resolves with the number attempted. */
  runDue(): Promise<number> {
    return this.job.runDue();
  }

  private async drain(): Promise<number> {
    const limit = pLimit(this.concurrency);
    const inFlight = new Set<Promise<void>>();
    let attempted = 0;
    for (;;) {
      // Claim only what can start soon, so leases do not run out while deliveries wait in line,
      // and in batches: a claim is a query.
      if (inFlight.size > this.concurrency) {
        await Promise.race(inFlight);
        continue;
      }
      const now = this.services.clock();
      const room = this.concurrency * 2 - inFlight.size;
      const claimed = await claimDueDeliveries(this.services.db, now, new Date(now.getTime() + this.leaseMs), room, PLANS_WITH_WEBHOOKS);
      if (claimed.length === 0) break;
      attempted += claimed.length;
      for (const delivery of claimed) {
        const attempt: Promise<void> = limit(() => this.attempt(delivery))
          .catch((err: unknown) => this.logger.error({ err, deliveryId: delivery.id }, 'webhook delivery not recorded'))
          .finally(() => inFlight.delete(attempt));
        inFlight.add(attempt);
      }
    }
    await Promise.all(inFlight);
    await this.flushOutcomes();
    await this.pruneOldAttempts();
    return attempted;
  }

  /** Deletes attempts past the retention, a bounded number per run; the rest go at the next. */
  private async pruneOldAttempts(): Promise<void> {
    const now = this.services.clock();
    if (!this.leads() || now.getTime() - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now.getTime();
    const before = new Date(now.getTime() - ATTEMPT_RETENTION_MS);
    let pruned = 0;
    for (const prune of [pruneAttempts, pruneDeliveries]) {
      for (let batch = 0; batch < PRUNE_BATCHES_PER_RUN; batch++) {
        const deleted = await prune(this.services.db, before, PRUNE_BATCH);
        pruned += deleted;
        if (deleted < PRUNE_BATCH) break;
      }
    }
    if (pruned > 0) this.logger.info({ pruned, before }, 'old webhook attempts pruned');
  }

  private record(outcome: AttemptRecord): void {
    this.outcomes.push(outcome);
    if (this.outcomes.length >= RECORD_BATCH) void this.flushOutcomes();
    else this.recordTimer ??= setTimeout(() => void this.flushOutcomes(), RECORD_DELAY_MS);
  }

  /** Writes the outcomes held so far; batches are written one after another, in order. */
  private flushOutcomes(): Promise<void> {
    if (this.recordTimer) clearTimeout(this.recordTimer);
    this.recordTimer = null;
    const batch = this.outcomes.splice(0);
    if (batch.length > 0) {
      this.recording = this.recording
        .then(() => recordAttempts(this.services.db, batch))
        .catch((err: unknown) =>
          this.logger.error({ err, deliveries: batch.length }, 'webhook delivery outcomes not recorded; they are retried when their leases end'),
        );
    }
    return this.recording;
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const { db, clock, webhooks } = this.services;
    if (!delivery.subscriptionActive) {
      await abandonDelivery(db, delivery.id, clock());
      return;
    }
    const secret = webhooks.box.open(delivery.secretCiphertext);
    const started = performance.now();
    const result = await webhooks.send(signedDelivery(delivery.url, delivery.event, delivery.id, delivery.payload, secret));
    const durationMs = performance.now() - started;
    this.services.metrics.webhookAttempt(result.ok ? 'delivered' : 'failed', durationMs / 1000);
    const at = clock();
    const nextOffset = ATTEMPT_OFFSETS_MS[delivery.attempts + 1];
    const retryAt = result.ok || nextOffset === undefined ? null : new Date(Math.max(delivery.createdAt.getTime() + nextOffset, at.getTime()));
    this.record({
      deliveryId: delivery.id,
      event: delivery.event,
      subscriptionId: delivery.subscriptionId,
      rateDate: delivery.rateDate,
      attempt: delivery.attempts + 1,
      ok: result.ok,
      status: result.status,
      error: result.error,
      at,
      durationMs: Math.round(durationMs),
      responseBody: result.responseBody,
      retryAt,
      deactivateAt: DEACTIVATE_AFTER_FAILURES,
    });
    if (!result.ok) {
      this.logger.warn(
        {
          deliveryId: delivery.id,
          subscriptionId: delivery.subscriptionId,
          attempt: delivery.attempts + 1,
          status: result.status,
          error: result.error,
          retryAt,
        },
        'webhook delivery attempt failed',
      );
    }
  }
}
