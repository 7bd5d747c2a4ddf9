// Prometheus metrics for GET /metrics on the internal port (prom-client). One registry per service:
// the REST facade reports each answered request, the jobs their attempts and polls, the database
// its query times; gauges that describe the store are read when Prometheus scrapes.
import type { Kysely, LogEvent } from 'kysely';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from './db/database.js';
import { findNewestDate } from './db/rates.js';
import { publicationSlot } from './domain/calendar.js';

/** A pool's connections right now (Postgres; the embedded database has one connection and no pool). */
export interface PoolUse {
  total: number;
  idle: number;
  waiting: number;
}

/** One answered REST request, as the facade reports it. */
export interface AnsweredRequest {
  /**
   * the path template, `/latest/{currency}`; `mcp:<tool>` for an MCP tool call, with its REST
   * twin's status (src/mcp); `unmatched` for a path no route serves
   */
  route: string;
  method: string;
  status: number;
  seconds: number;
  /** answered from the one-second response cache */
  cached: boolean;
  /** why a 429 was given: the account's monthly quota or the keyless /convert limit */
  refusal: 'quota' | 'keyless' | null;
}

export type WebhookAttemptOutcome = 'delivered' | 'failed';
export type RbaPollOutcome = 'stored' | 'not_published' | 'failed';
export type AlertEmailOutcome = 'sent' | 'failed';

interface RequestSeries {
  labels: Record<'route' | 'method' | 'status', string>;
  duration: Histogram.Internal<'route' | 'method' | 'status'>;
  /** answered since the last scrape */
  answered: number;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requestDuration: Histogram<'route' | 'method' | 'status'>;
  private readonly quotaRefusals: Counter;
  private readonly keylessRefusals: Counter;
  private readonly webhookAttempts: Counter<'outcome'>;
  private readonly webhookDuration: Histogram<'outcome'>;
  private readonly rbaPolls: Counter<'outcome'>;
  private readonly alertFirings: Counter<'condition'>;
  private readonly alertEmails: Counter<'outcome'>;
  private readonly queryDuration: Histogram<'outcome'>;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requestDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time to answer a request on the public port, by route template, method and status',
      labelNames: ['route', 'method', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    const { requestSeries, cacheHitsByRoute } = this;
    new Counter({
      name: 'http_requests_total',
      help: 'Requests answered on the public port',
      labelNames: ['route', 'method', 'status'],
      registers,
      collect() {
        for (const series of requestSeries.values()) {
          if (series.answered > 0) this.inc(series.labels, series.answered);
          series.answered = 0;
        }
      },
    });
    new Counter({
      name: 'audrates_response_cache_hits_total',
      help: 'Requests answered from the one-second shared response cache',
      labelNames: ['route'],
      registers,
      collect() {
        for (const [route, hits] of cacheHitsByRoute) this.inc({ route }, hits);
        cacheHitsByRoute.clear();
      },
    });
    this.quotaRefusals = new Counter({
      name: 'audrates_quota_refusals_total',
      help: 'Keyed requests refused (429) because the monthly quota is used up',
      registers,
    });
    this.keylessRefusals = new Counter({
      name: 'audrates_keyless_limit_refusals_total',
      help: 'Keyless /convert requests refused (429) by the hourly limit',
      registers,
    });
    this.webhookAttempts = new Counter({
      name: 'audrates_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome',
      labelNames: ['outcome'],
      registers,
    });
    this.webhookDuration = new Histogram({
      name: 'audrates_webhook_attempt_duration_seconds',
      help: 'Time from connecting to the receiver to its answer (or the failure), by outcome',
      labelNames: ['outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.rbaPolls = new Counter({
      name: 'audrates_rba_polls_total',
      help: "Polls of the RBA's sources by the scheduler: stored (the expected day arrived), not_published, failed",
      labelNames: ['outcome'],
      registers,
    });
    this.alertFirings = new Counter({
      name: 'audrates_alert_firings_total',
      help: 'Rate alerts fired by publications this process stored, by condition (above, below, change_pct)',
      labelNames: ['condition'],
      registers,
    });
    this.alertEmails = new Counter({
      name: 'audrates_alert_emails_total',
      help: "Rate alerts' e-mails handed to the mailer, by outcome (sent, failed)",
      labelNames: ['outcome'],
      registers,
    });
    this.queryDuration = new Histogram({
      name: 'audrates_db_query_duration_seconds',
      help: 'Database statement time as the driver reports it, by outcome (ok, error)',
      labelNames: ['outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
  }

  /**
   * The request series of each route, method and status seen, so a request names its series once.
   * Bounded: route templates, the methods Node's parser accepts, and status codes. The latency goes
   * to prom-client as it is measured; the counts are plain numbers here, handed to prom-client
   * when /metrics is scraped (its `collect`), since prom-client checks and hashes the labels of
   * every increment, and these two are taken on every request.
   */
  private readonly requestSeries = new Map<string, RequestSeries>();
  /** requests answered from the shared answers, by route template, not yet handed to prom-client */
  private readonly cacheHitsByRoute = new Map<string, number>();

  request(answered: AnsweredRequest): void {
    const key = `${answered.route} ${answered.method} ${answered.status}`;
    let series = this.requestSeries.get(key);
    if (!series) {
      const labels = { route: answered.route, method: answered.method, status: String(answered.status) };
      series = { labels, duration: this.requestDuration.labels(labels), answered: 0 };
      this.requestSeries.set(key, series);
    }
    series.duration.observe(answered.seconds);
    series.answered++;
    if (answered.cached) this.cacheHitsByRoute.set(answered.route, (this.cacheHitsByRoute.get(answered.route) ?? 0) + 1);
    if (answered.refusal === 'quota') this.quotaRefusals.inc();
    else if (answered.refusal === 'keyless') this.keylessRefusals.inc();
  }

  webhookAttempt(outcome: WebhookAttemptOutcome, seconds: number): void {
    this.webhookAttempts.inc({ outcome });
    this.webhookDuration.observe({ outcome }, seconds);
  }

  rbaPoll(outcome: RbaPollOutcome): void {
    this.rbaPolls.inc({ outcome });
  }

  alertFired(condition: string): void {
    this.alertFirings.inc({ condition });
  }

  alertEmail(outcome: AlertEmailOutcome): void {
    this.alertEmails.inc({ outcome });
  }

  /** Kysely's `log` hook: every statement's duration. */
  readonly databaseLog = (event: LogEvent): void => {
    this.queryDuration.observe({ outcome: event.level === 'query' ? 'ok' : 'error' }, event.queryDurationMillis / 1000);
  };

  /** Gauges read at scrape time from the store (and the pool, on Postgres). */
  observeStore(db: Kysely<Database>, clock: () => Date, pool: (() => PoolUse) | null): void {
    const registers = [this.registry];
    // One read of the store per scrape, shared by its gauges; a scrape during an outage still
    // answers, with audrates_store_up at 0 marking the store's gauges as not read.
    let probe: Promise<{ newest: string | null } | null> | null = null;
    const readStore = () =>
      (probe ??= findNewestDate(db)
        .then(
          (newest) => ({ newest }),
          () => null,
        )
        .finally(() => (probe = null)));
    new Gauge({
      name: 'audrates_store_up',
      help: 'Whether the store answered this scrape (1) or not (0: the store gauges were not read)',
      registers,
      async collect() {
        this.set((await readStore()) ? 1 : 0);
      },
    });
    new Gauge({
      name: 'audrates_newest_rate_day_age_seconds',
      help: 'Seconds since the 16:00 Sydney publication slot of the newest stored rate day (not read while audrates_store_up is 0)',
      registers,
      async collect() {
        const read = await readStore();
        this.reset();
        if (read?.newest) this.set((clock().getTime() - publicationSlot(read.newest).getTime()) / 1000);
      },
    });
    if (!pool) return;
    new Gauge({
      name: 'audrates_db_pool_connections',
      help: 'Database pool connections: total open, idle, and requests waiting for one',
      labelNames: ['state'],
      registers,
      collect() {
        const use = pool();
        this.set({ state: 'total' }, use.total);
        this.set({ state: 'idle' }, use.idle);
        this.set({ state: 'waiting' }, use.waiting);
      },
    });
  }
}
