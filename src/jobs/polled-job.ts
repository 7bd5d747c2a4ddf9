// The way both outboxes (webhook deliveries, alert e-mails) run: drain what is due now; when woken
// during a run, drain again right after it; otherwise look again every `pollMs`. One run at a time
// in a process; across processes the outboxes' leases keep each item to one sender.
import type { Logger } from 'pino';

export interface PolledJobOptions {
  /** what is due now, sent; resolves with how many were attempted */
  drain: () => Promise<number>;
  pollMs: number;
  logger: Logger;
  /** the log line of a run that attempted something, and of one that failed */
  attempted: string;
  failed: string;
}

export class PolledJob {
  private run: Promise<number> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;

  constructor(private readonly options: PolledJobOptions) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.run;
  }

  /** Runs now, or once more right after the run in progress. */
  wake(): void {
    if (this.run) this.again = true;
    else if (!this.stopped) this.schedule(0);
  }

  /** Drains now (or joins the run in progress, which then runs once more); resolves with the number attempted. */
  runDue(): Promise<number> {
    if (this.run) {
      this.again = true;
      return this.run;
    }
    this.again = false;
    this.run = this.options.drain().finally(() => (this.run = null));
    return this.run;
  }

  private schedule(delayMs: number): void {
    const { logger, attempted, failed, pollMs } = this.options;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.runDue()
        .then((count) => count > 0 && logger.info({ attempted: count }, attempted))
        .catch((err: unknown) => logger.error({ err }, failed))
        .finally(() => !this.stopped && this.schedule(this.again ? 0 : pollMs));
    }, delayMs);
  }
}
