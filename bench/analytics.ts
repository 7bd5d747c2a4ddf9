// BENCH_ONLY=analytics: the cost of the saved analytics operations (docs/operations/*.graphql) on a
// year of usage for 10,000 accounts. The real app over a fresh database (BENCH_DATABASE_URL for
// Postgres, else PGlite), its rate history stored as bench/seed.ts does, then generated with
// set-based SQL (generate_series) at a realistic volume:
//   - 10,000 accounts (half Free, then fewer on each plan up), one key each;
//   - a year of usage_daily: each account active on about 3 days in 10, with 2 to 3 rows a day
//     (endpoint × status), some 400s and 429s;
//   - a year of keyless /convert counts and of conversions_daily (180 pairs a day, keyed and
//     keyless, latest and dated), and the roll-ups the recorder keeps beside the daily rows;
//   - 2,000 webhook subscriptions (40 accounts × 50) with a publication delivery for every
//     business day of the year, and their attempts for the last 90 days (the retention);
//   - 90 days of scheduler polls, a few a business day.
// Then each saved operation runs through the real internal endpoint (app.internal.fetch) on two
// ranges, this month so far and the whole year: a warm-up run, then BENCH_ANALYTICS_RUNS timed
// runs (default 9); the report gives p50 and max against the 100 ms goal.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { sql, type Kysely } from 'kysely';
import { pino } from 'pino';
import { buildApp, type App } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import type { Database } from '../src/db/database.js';
import { addDays } from '../src/domain/calendar.js';
import { LAST_DATE, NOW } from './fixtures.js';
import { seed } from './seed.js';
import { openBenchStorage } from './storage.js';

const ACCOUNTS = 10_000;
const GOAL_MS = 100;
const OPERATIONS = new URL('../docs/operations/', import.meta.url);

/** Rows for a year ending on `last`, every statement set-based. */
async function generate(db: Kysely<Database>, last: string): Promise<Record<string, number>> {
  const first = addDays(last, -364);
  await sql`
    INSERT INTO accounts (email, plan, status, created_at, billing_day, quota_period, quota_used)
    SELECT 'bench-' || i || '@example.test',
      CASE WHEN i % 100 < 50 THEN 'free' WHEN i % 100 < 75 THEN 'starter' WHEN i % 100 < 90 THEN 'professional'
           WHEN i % 100 < 98 THEN 'business' ELSE 'enterprise' END,
      CASE WHEN i % 50 = 0 THEN 'suspended' ELSE 'active' END,
      ${NOW}::timestamptz - make_interval(days => i % 730),
      1 + i % 28, date_trunc('month', ${last}::date)::date, i % 1200
    FROM generate_series(1, ${ACCOUNTS}) AS i`.execute(db);
  await sql`
    INSERT INTO api_keys (account_id, prefix, key_hash, last_four)
    SELECT id, 'bench' || row_number() OVER (ORDER BY id), md5(id::text), '0000' FROM accounts WHERE email LIKE 'bench-%'`.execute(db);
  // active on a day when a hash of the account and the day says so: about 3 in 10
  await sql`
    INSERT INTO usage_daily (day, account_id, key_id, endpoint, status, requests)
    SELECT d::date, k.account_id, k.id, e.endpoint, e.status, 1 + (abs(hashtext(k.id::text || d::text)) % 200)
    FROM generate_series(${first}::date, ${last}::date, interval '1 day') AS d
    CROSS JOIN api_keys k
    CROSS JOIN (VALUES ('Latest', 200, 0), ('Convert', 200, 0), ('Timeseries', 200, 1), ('LatestCurrency', 400, 2), ('Latest', 429, 3)) AS e(endpoint, status, kind)
    WHERE abs(hashtext(k.id::text || d::text)) % 10 < 3
      AND (e.kind = 0 OR (e.kind = 1 AND abs(hashtext(k.prefix)) % 2 = 0) OR (e.kind = 2 AND abs(hashtext(k.id::text || d::text)) % 7 = 0)
           OR (e.kind = 3 AND abs(hashtext(k.id::text || d::text)) % 31 = 0))`.execute(db);
  // the roll-ups the usage recorder keeps beside usage_daily (src/db/usage.ts)
  await sql`
    INSERT INTO usage_totals_daily (day, endpoint, status, requests)
    SELECT day, endpoint, status, sum(requests) FROM usage_daily GROUP BY day, endpoint, status`.execute(db);
  await sql`
    INSERT INTO usage_account_daily (day, account_id, requests)
    SELECT day, account_id, sum(requests) FROM usage_daily GROUP BY day, account_id`.execute(db);
  await sql`
    INSERT INTO usage_account_monthly (month, account_id, requests)
    SELECT date_trunc('month', day)::date, account_id, sum(requests) FROM usage_daily GROUP BY 1, 2`.execute(db);
  await sql`
    INSERT INTO usage_account_yearly (year, account_id, requests)
    SELECT date_trunc('year', day)::date, account_id, sum(requests) FROM usage_daily GROUP BY 1, 2`.execute(db);
  await sql`
    INSERT INTO keyless_usage_daily (day, endpoint, status, requests)
    SELECT d::date, 'Convert', s, 1 + (abs(hashtext(d::text || s)) % 5000)
    FROM generate_series(${first}::date, ${last}::date, interval '1 day') AS d CROSS JOIN unnest(ARRAY[200, 304, 400, 401, 429]) AS s`.execute(db);
  await sql`
    WITH codes AS (SELECT code, row_number() OVER (ORDER BY code) AS n FROM (SELECT DISTINCT code FROM rates) c)
    INSERT INTO conversions_daily (day, from_code, to_code, keyed, dated, requests)
    SELECT d::date, f.code, t.code, keyed, dated, 1 + (abs(hashtext(d::text || f.code || t.code || keyed::text || dated::text)) % 300)
    FROM generate_series(${first}::date, ${last}::date, interval '1 day') AS d
    CROSS JOIN codes f CROSS JOIN codes t
    CROSS JOIN (VALUES (true, false), (true, true), (false, false)) AS v(keyed, dated)
    WHERE f.code <> t.code AND (f.n * 7 + t.n) % 2 = 0`.execute(db);
  await sql`
    INSERT INTO conversions_monthly (month, from_code, to_code, keyed, dated, requests)
    SELECT date_trunc('month', day)::date, from_code, to_code, keyed, dated, sum(requests) FROM conversions_daily GROUP BY 1, 2, 3, 4, 5`.execute(db);
  await sql`
    INSERT INTO webhook_subscriptions (id, account_id, url, secret_ciphertext, is_active, failure_count)
    SELECT md5('sub' || a.n || '-' || s), a.id, 'https://hooks-' || a.n || '.example.test/' || s, 'sealed',
      NOT (s = 1 AND a.n % 4 = 0), CASE WHEN s = 1 AND a.n % 4 = 0 THEN 10 WHEN s = 2 THEN a.n % 3 ELSE 0 END
    FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM accounts WHERE plan = 'enterprise' LIMIT 40) a
    CROSS JOIN generate_series(1, 50) AS s`.execute(db);
  await sql`
    INSERT INTO webhook_deliveries (id, subscription_id, event, rate_date, publication_id, payload, state, attempts, next_attempt_at, created_at, finished_at)
    SELECT gen_random_uuid(), s.id, 'rates.published', r.date, r.publication_id, '{}',
      CASE WHEN abs(hashtext(s.id || r.date::text)) % 100 < 95 THEN 'delivered' WHEN abs(hashtext(s.id || r.date::text)) % 100 < 98 THEN 'failed' ELSE 'abandoned' END,
      1 + abs(hashtext(s.id || r.date::text)) % 100 / 95 * 5, r.date + time '16:05', r.date + time '16:05', r.date + time '16:06'
    FROM webhook_subscriptions s
    CROSS JOIN (SELECT DISTINCT date, min(publication_id) AS publication_id FROM rates WHERE date BETWEEN ${first} AND ${last} GROUP BY date) r`.execute(db);
  await sql`
    INSERT INTO webhook_attempts (delivery_id, subscription_id, event, rate_date, attempt, attempted_at, duration_ms, http_status, outcome)
    SELECT d.id, d.subscription_id, d.event, d.rate_date, a, d.created_at + make_interval(mins => a), 20 + abs(hashtext(d.id::text || a)) % 400,
      CASE WHEN a = d.attempts AND d.state = 'delivered' THEN 200 ELSE 503 END, CASE WHEN a = d.attempts AND d.state = 'delivered' THEN 'delivered' ELSE 'failed' END
    FROM webhook_deliveries d CROSS JOIN LATERAL generate_series(1, d.attempts) AS a
    WHERE d.rate_date > ${addDays(last, -90)}`.execute(db);
  // the roll-ups the delivery worker keeps in step with them (src/db/webhooks.ts)
  await sql`
    INSERT INTO webhook_deliveries_daily (rate_date, state, deliveries, attempts)
    SELECT rate_date, state, count(*), sum(attempts) FROM webhook_deliveries GROUP BY rate_date, state`.execute(db);
  await sql`
    INSERT INTO webhook_attempt_durations (rate_date, duration_ms, attempts)
    SELECT rate_date, duration_ms, count(*) FROM webhook_attempts WHERE event = 'rates.published' GROUP BY rate_date, duration_ms`.execute(db);
  await sql`
    INSERT INTO rba_polls (polled_at, duration_ms, reason, expected_date, outcome, sources, days_stored, days_updated, newest_date, error)
    SELECT d + time '15:55' + make_interval(mins => p * 4), 300 + p * 10, 'slot', d::date,
      CASE WHEN p = 3 THEN 'stored' WHEN p = 1 AND extract(day from d) = 7 THEN 'failed' ELSE 'not_published' END,
      ARRAY['https://www.rba.gov.au/rss/rss-cb-exchange-rates.xml'], CASE WHEN p = 3 THEN 1 ELSE 0 END, 0,
      CASE WHEN p = 1 AND extract(day from d) = 7 THEN NULL ELSE d::date END,
      CASE WHEN p = 1 AND extract(day from d) = 7 THEN 'Cannot read the feed: no answer within 60 s' END
    FROM generate_series(${addDays(last, -89)}::date, ${last}::date, interval '1 day') AS d CROSS JOIN generate_series(1, 3) AS p
    WHERE extract(isodow from d) < 6`.execute(db);
  await sql`ANALYZE`.execute(db);
  const counts: Record<string, number> = {};
  for (const table of [
    'accounts',
    'api_keys',
    'usage_daily',
    'usage_totals_daily',
    'usage_account_daily',
    'usage_account_monthly',
    'usage_account_yearly',
    'keyless_usage_daily',
    'conversions_daily',
    'conversions_monthly',
    'webhook_subscriptions',
    'webhook_deliveries',
    'webhook_attempts',
    'webhook_deliveries_daily',
    'webhook_attempt_durations',
    'rba_polls',
    'rates',
  ] as const) {
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db);
    counts[table] = Number(rows[0]!.n);
  }
  return counts;
}

/** Milliseconds to the answer; an answer with errors (a statement cancelled past its limit) is an error. */
async function timeOperation(app: App, token: string, document: string, variables: Record<string, string>): Promise<number> {
  const started = performance.now();
  const response = await app.internal.fetch('http://internal.bench/graphql', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: document, variables }),
  });
  const result = (await response.json()) as { errors?: { message: string }[] };
  const ms = performance.now() - started;
  if (result.errors?.length) throw new Error(`operation failed: ${result.errors.map((e) => e.message).join('; ')}`);
  return ms;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

/** Runs the analytics bench and prints its report; an operation that answers with errors is reported as missing the goal. */
export async function benchAnalytics(runs: number): Promise<void> {
  const storage = await openBenchStorage();
  const token = randomBytes(24).toString('hex');
  const config = parseConfig({ LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn', WEBHOOK_KEY: randomBytes(32).toString('base64url') });
  const app = buildApp({ config, db: storage.db, operatorToken: token, clock: () => NOW, logger: pino({ level: config.LOG_LEVEL }) });
  try {
    console.log(`\n=== analytics: the saved operations over a year of usage for ${ACCOUNTS.toLocaleString('en-US')} accounts ===`);
    console.log(`storage: ${storage.label}`);
    await seed(app, token);
    const started = performance.now();
    const counts = await generate(storage.db, LAST_DATE);
    console.log(
      `generated in ${((performance.now() - started) / 1000).toFixed(1)} s: ${Object.entries(counts)
        .map(([t, n]) => `${t} ${n.toLocaleString('en-US')}`)
        .join(', ')}`,
    );
    const ranges = { month: { from: `${LAST_DATE.slice(0, 8)}01`, to: LAST_DATE }, year: { from: addDays(LAST_DATE, -364), to: LAST_DATE } };
    console.log(
      `ranges: this month ${ranges.month.from}..${ranges.month.to}, the year ${ranges.year.from}..${ranges.year.to}; ${runs} timed runs after one warm-up`,
    );
    console.log(
      `load average at start (1, 5, 15 min): ${loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')}\n`,
    );
    const files = readdirSync(OPERATIONS)
      .filter((f) => f.endsWith('.graphql'))
      .sort();
    let missed = 0;
    console.log(`${'operation'.padEnd(32)} ${'range'.padEnd(6)} ${'p50 ms'.padStart(8)} ${'max ms'.padStart(8)}  goal ${GOAL_MS} ms`);
    for (const file of files) {
      const document = readFileSync(new URL(file, OPERATIONS), 'utf8');
      for (const [name, variables] of Object.entries(ranges)) {
        const times: number[] = [];
        try {
          await timeOperation(app, token, document, variables);
          for (let i = 0; i < runs; i++) times.push(await timeOperation(app, token, document, variables));
        } catch (error) {
          missed++;
          console.log(`${file.padEnd(32)} ${name.padEnd(6)} FAILED: ${(error as Error).message}`);
          continue;
        }
        times.sort((a, b) => a - b);
        const p50 = percentile(times, 0.5);
        const max = times.at(-1)!;
        if (max >= GOAL_MS) missed++;
        console.log(`${file.padEnd(32)} ${name.padEnd(6)} ${p50.toFixed(1).padStart(8)} ${max.toFixed(1).padStart(8)}  ${max < GOAL_MS ? 'met' : 'MISSED'}`);
      }
    }
    console.log(
      `\nload average at end (1, 5, 15 min): ${loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')}; ${missed === 0 ? 'every operation under' : `${missed} operation × range over`} ${GOAL_MS} ms`,
    );
  } finally {
    await app.close();
    await storage.destroy();
  }
}
