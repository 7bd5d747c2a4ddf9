// Sends the e-mails of rate alerts' firings from their outbox (alert_emails, written in the
// transaction that recorded the firing): every process runs this job; each claims due e-mails under
// a lease (SKIP LOCKED), so an e-mail goes once however many run, and one whose process died while
// sending is sent when its lease runs out. A failure is tried again on the webhooks' schedule.
import type { Logger } from 'pino';
import { claimDueAlertEmails, recordAlertEmail, type ClaimedAlertEmail } from '../db/alerts.js';
import { alertMail } from '../mail/alert-mail.js';
import type { Services } from '../services.js';
import { ATTEMPT_OFFSETS_MS } from './webhook-deliveries.js';
import { PolledJob } from './polled-job.js';

const BATCH = 32;

export interface AlertMailOptions {
  /** how long a claimed e-mail stays this process's: well past one SMTP exchange */
  leaseMs?: number;
  /** how often to look for due retries when nothing wakes the job */
  pollMs?: number;
}

export class AlertMailWorker {
  private readonly leaseMs: number;
  private readonly job: PolledJob;

  constructor(
    private readonly services: Services,
    private readonly logger: Logger,
    options: AlertMailOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 120_000;
    this.job = new PolledJob({
      drain: () => this.drain(),
      pollMs: options.pollMs ?? 15_000,
      logger,
      attempted: 'alert e-mails sent',
      failed: 'alert e-mails failed to run',
    });
  }

  /** Polls for due e-mails, and at once whenever rates are published (in any process). */
  start(): void {
    this.services.changes.subscribe((channel) => channel === 'rates_changed' && this.wake());
    this.job.start();
  }

  stop(): Promise<void> {
    return this.job.stop();
  }

  wake(): void {
    this.job.wake();
  }

  /** Sends every e-mail due now and records each outcome; resolves with the number attempted. */
  runDue(): Promise<number> {
    return this.job.runDue();
  }

  private async drain(): Promise<number> {
    let attempted = 0;
    for (;;) {
      const now = this.services.clock();
      const claimed = await claimDueAlertEmails(this.services.db, now, new Date(now.getTime() + this.leaseMs), BATCH);
      if (claimed.length === 0) return attempted;
      attempted += claimed.length;
      // One SMTP exchange at a time: a firing's e-mails are few, and a mail server limits senders.
      for (const email of claimed) await this.send(email);
    }
  }

  private async send(email: ClaimedAlertEmail): Promise<void> {
    const { db, clock, mailer, alertLinks, metrics } = this.services;
    if (!email.deliverable) {
      await recordAlertEmail(db, { firingId: email.firingId, state: 'abandoned', error: 'the account is suspended', at: clock(), retryAt: null });
      return;
    }
    try {
      await mailer.send(alertMail(email.to, email.firing, alertLinks.pauseUrl(email.firing.alertId)));
      metrics.alertEmail('sent');
      await recordAlertEmail(db, { firingId: email.firingId, state: 'sent', error: null, at: clock(), retryAt: null });
    } catch (err) {
      metrics.alertEmail('failed');
      const at = clock();
      const next = ATTEMPT_OFFSETS_MS[email.attempts + 1];
      const retryAt = next === undefined ? null : new Date(at.getTime() + next - (ATTEMPT_OFFSETS_MS[email.attempts] ?? 0));
      const error = err instanceof Error ? err.message.slice(0, 500) : String(err);
      this.logger.warn({ err, firingId: email.firingId, retryAt }, 'alert e-mail not sent');
      await recordAlertEmail(db, { firingId: email.firingId, state: retryAt ? 'pending' : 'failed', error, at, retryAt });
    }
  }
}
