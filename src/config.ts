// Configuration is read from the environment once at start-up, validated, and passed down;
// tests build their own with `parseConfig({...})`.
import { z } from 'zod';
import { LISTENER_LIMITS } from './http/limits.js';
import { parseTrustedProxies } from './rest/client-address.js';

const port = z.coerce.number().int().min(0).max(65535);

/**
 * The history held by default: the RBA's own F11.1 download shipped in seed/ (2023 to its
 * publication date, read from disk, so a start without a network serves real rates), then the
 * RBA's 2018–2022 workbook. The path is the same from src/ and from the bundle in dist/.
 */
export const SEED_HISTORY = new URL('../seed/f11.1-data_2026-05-11.csv', import.meta.url).href;
export const RBA_HISTORY_WORKBOOK = 'https://www.rba.gov.au/statistics/tables/xls-hist/2018-2022.xls';

const schema = z
  .object({
    PORT: port.default(8080),
    HOST: z.string().min(1).default('127.0.0.1'),
    INTERNAL_PORT: port.default(8081),
    INTERNAL_HOST: z.string().min(1).default('127.0.0.1'),
    OPERATOR_TOKEN: z.string().min(24, 'OPERATOR_TOKEN must be at least 24 characters').optional(),
    DATA_DIR: z.string().min(1).default('./data'),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a postgres:// or postgresql:// URL')
      .optional(),
    /**
     * Bounds on every Postgres call, so a stalled server answers 503 within about 2 s instead of
     * hanging requests: getting a connection, and one statement.
     */
    DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
    DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
    /**
     * The most pooled connections a process keeps open to a Postgres server (its change feed and
     * leader lock use one more each): processes times this must stay below the server's
     * max_connections, or requests answer 503 when the server refuses a connection.
     */
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
    /** the `documentation` link of GET /; PUBLIC_URL/docs (served by the service) when unset */
    DOCUMENTATION_URL: z.url().optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** proxies whose X-Forwarded-For and X-Forwarded-Proto are believed: addresses or CIDR ranges */
    TRUST_PROXY: z
      .string()
      .default('')
      .superRefine((value, ctx) => {
        try {
          parseTrustedProxies(value);
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: `TRUST_PROXY: ${(error as Error).message}` });
        }
      }),
    TLS_CERT_FILE: z.string().min(1).optional(),
    TLS_KEY_FILE: z.string().min(1).optional(),
    /** seals webhook signing secrets (AES-256-GCM): 32 bytes in base64 or base64url; generated into DATA_DIR when unset */
    WEBHOOK_KEY: z
      .string()
      .refine((v) => /^[A-Za-z0-9+/_-]+=*$/.test(v) && Buffer.from(v, 'base64url').length === 32, 'WEBHOOK_KEY must be 32 bytes in base64 or base64url')
      .optional(),
    /** D34 (docs/decisions.md): lets webhooks reach private and loopback addresses; for tests and private deployments only */
    WEBHOOK_ALLOW_PRIVATE_TARGETS: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true'),
    /**
     * how long a delivery claimed by a process stays its own; after that (the process died mid-attempt)
     * another process sends it again with the same id. Longer than one attempt (10 s), so a slow
     * attempt is never sent twice.
     */
    WEBHOOK_LEASE_SECONDS: z.coerce.number().int().min(15).max(3600).default(60),
    /**
     * the service's public origin, written into e-mailed sign-in links; http://HOST:PORT by default
     * (https when the service serves TLS itself)
     */
    PUBLIC_URL: z
      .url({ protocol: /^https?$/, error: 'PUBLIC_URL must be an http:// or https:// URL' })
      .transform((v) => new URL(v).origin)
      .optional(),
    /** where mail goes, e.g. smtp://user:pass@host:587 (STARTTLS when the server offers it); unset: DATA_DIR/outbox/ and the log */
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\//, 'SMTP_URL must be an smtp:// or smtps:// URL')
      .optional(),
    MAIL_FROM: z.string().min(3).default('AUD rates <no-reply@localhost>'),
    /** where the dashboard's Plan page sends a customer who wants another plan (a form, a pricing page) */
    PLAN_CHANGE_URL: z.url({ protocol: /^https?$/, error: 'PLAN_CHANGE_URL must be an http:// or https:// URL' }).optional(),
    /** the address the dashboard offers for plan changes (a mailto link, when PLAN_CHANGE_URL is unset) and for help */
    SUPPORT_EMAIL: z.email({ error: 'SUPPORT_EMAIL must be an e-mail address' }).optional(),
    /** where the scheduler and `sync` look for new rates: URLs or local file paths */
    RBA_RSS_URL: z.string().min(1).default('https://www.rba.gov.au/rss/rss-cb-exchange-rates.xml'),
    RBA_CSV_URL: z.string().min(1).default('https://www.rba.gov.au/statistics/tables/csv/f11.1-data.csv'),
    /**
     * the history files to hold (the RBA publishes 2018–2022 only as a workbook): URLs, file: URLs or
     * paths, comma-separated; each is read at catch-up until it has been stored once; 'off' for none
     */
    RBA_HISTORY_URLS: z
      .string()
      .default(`${SEED_HISTORY},${RBA_HISTORY_WORKBOOK}`)
      .transform((v) =>
        v.trim() === 'off'
          ? []
          : v
              .split(',')
              .map((s) => s.trim())
              .filter((s) => s !== ''),
      ),
    /** 'off' leaves polling the RBA to another process or to `sync` */
    SCHEDULER: z.enum(['on', 'off']).default('on'),
    /** 'off': identical read requests each get an answer of their own instead of sharing one for a second */
    SHARED_ANSWERS: z.enum(['on', 'off']).default('on'),
    /**
     * how long a process asked to stop by SIGTERM keeps serving while its readiness check (GET /ready
     * on the internal port) answers 503, so that a balancer's health check takes it out of rotation
     * before its listener closes; 0 without a balancer
     */
    SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).max(5_000).default(2_000),
    /** every listener's time limits (src/http/server.ts); lowered by tests to see them act */
    HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).default(LISTENER_LIMITS.headersTimeoutMs),
    REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(LISTENER_LIMITS.requestTimeoutMs),
    KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).default(LISTENER_LIMITS.keepAliveTimeoutMs),
  })
  .refine((c) => Boolean(c.TLS_CERT_FILE) === Boolean(c.TLS_KEY_FILE), {
    message: 'TLS_CERT_FILE and TLS_KEY_FILE go together: set both or neither',
    path: ['TLS_CERT_FILE'],
  })
  .refine((c) => c.HEADERS_TIMEOUT_MS <= c.REQUEST_TIMEOUT_MS, {
    message: 'HEADERS_TIMEOUT_MS cannot exceed REQUEST_TIMEOUT_MS (the headers are part of the request)',
    path: ['HEADERS_TIMEOUT_MS'],
  });

export type Config = z.infer<typeof schema>;

/** PUBLIC_URL, or the listener's own origin. */
export function publicUrlOf(config: Config): string {
  if (config.PUBLIC_URL) return config.PUBLIC_URL;
  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  return `${config.TLS_CERT_FILE ? 'https' : 'http'}://${host}:${config.PORT}`;
}

export class ConfigError extends Error {
  readonly code = 'config_invalid';
}

export function parseConfig(env: Record<string, string | undefined>): Config {
  // An empty variable means "not set", as in most shells' `VAR= cmd`.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = schema.safeParse(present);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}
