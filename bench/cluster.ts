// The cluster run (BENCH_ONLY=cluster, or after the other phases when BENCH_DATABASE_URL is set):
// the reference deployment (deploy/haproxy.cfg) on this machine, with 1 and then 3 processes of
// the built service (dist/main.js) on one Postgres database, measured through the balancer with
// autocannon: keyed `/latest`, every connection a customer of its own (each request takes a unit
// of its account's quota, committed before its answer leaves). Printed per run: requests per second,
// latency, the database's commits per second (pg_stat_database's xact_commit over the measured
// seconds) and the requests answered per commit: what batching the grants saves.
// Then what the database alone sustains of the statement every keyed request waits for: the quota
// grant (src/db/quota.ts's grantUnits, sent as the service sends it under load: each grant a
// transaction, its commit riding in the next grant's round trip) from 1, 2, 4 and 8 connections at
// once, each connection granting to accounts of its own; printed: grants and units per second.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { pino } from 'pino';
import { HAPROXY_TEMPLATE, ROOT, freePort, haproxyConfig, startHaproxy, waitUntilReady, type ServerPorts } from '../deploy/cluster.js';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import type { Database } from '../src/db/database.js';
import { grantUnits, type GrantAsk } from '../src/db/quota.js';
import { billingPeriod } from '../src/domain/billing.js';
import { PLAN_LIMITS } from '../src/domain/plans.js';
import { measure, type LoadOptions } from './load.js';
import { seed } from './seed.js';
import { openBenchStorage } from './storage.js';

const PROCESS_COUNTS = [1, 3];
const GRANT_CONNECTIONS = [1, 2, 4, 8];
/** each grant asks this many accounts for this many units each, as a grant for several customers' waiting requests does */
const ASKS_PER_GRANT = 6;
const UNITS_PER_ASK = 2;
/** how long after a run the backends have surely reported their commits (they do at most once a second) */
const STATS_SETTLE_MS = 1_500;

async function commitsOf(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const name = new URL(databaseUrl).pathname.slice(1);
    const { rows } = await client.query<{ n: string }>('select xact_commit as n from pg_stat_database where datname = $1', [name]);
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

/**
 * Grants to `asks` on one connection of `db`, one grant after another, from now until `until`, as
 * the service grants while requests keep coming: `begin; select …` first, then `commit; begin;
 * select …` (the previous grant's commit in the next one's round trip), and a last commit. Counts
 * every grant, and those answered from `from` on; `full` is false when one granted fewer units than
 * asked.
 */
function grantUntil(
  db: Kysely<Database>,
  asks: readonly GrantAsk[],
  from: number,
  until: number,
): Promise<{ grants: number; measured: number; full: boolean }> {
  return db.connection().execute(async (connection) => {
    let grants = 0;
    let measured = 0;
    let full = true;
    for (let open = false; Date.now() < until; open = true) {
      const granted = await grantUnits(connection, asks, open ? 'commit, begin' : 'begin');
      grants++;
      if (Date.now() >= from) measured++;
      full &&= granted.every((grant, i) => grant?.granted === asks[i]!.wanted);
    }
    await sql`commit`.execute(connection);
    return { grants, measured, full };
  });
}

/**
 * The grant statement alone on the bench's database, from each of GRANT_CONNECTIONS connections at
 * once, each granting to ASKS_PER_GRANT Enterprise accounts of its own (no two wait for each other's
 * row locks). Valid when every grant gave the units asked and the accounts' stored counts grew by
 * exactly the units granted.
 */
async function benchGrants(db: Kysely<Database>, options: Pick<LoadOptions, 'duration' | 'warmup'>): Promise<boolean> {
  const accounts = await db.selectFrom('accounts').select(['id', 'billing_day']).where('email', 'like', 'bench-%').orderBy('email').execute();
  const most = Math.max(...GRANT_CONNECTIONS);
  if (accounts.length < most * ASKS_PER_GRANT) throw new Error(`the grant run needs ${most * ASKS_PER_GRANT} accounts, the seed made ${accounts.length}`);
  const limit = PLAN_LIMITS.enterprise.monthlyRequests;
  const asksOf = (connection: number): GrantAsk[] =>
    accounts.slice(connection * ASKS_PER_GRANT, (connection + 1) * ASKS_PER_GRANT).map((account) => ({
      accountId: account.id,
      count: { period: billingPeriod(account.billing_day, new Date()).start },
      limit,
      wanted: UNITS_PER_ASK,
    }));
  const stored = async () => Number((await sql<{ n: string }>`select sum(quota_used) as n from accounts`.execute(db)).rows[0]!.n);

  let ok = true;
  const rows: string[] = [];
  for (const connections of GRANT_CONNECTIONS) {
    const before = await stored();
    const from = Date.now() + options.warmup * 1000;
    const runs = await Promise.all(Array.from({ length: connections }, (_, c) => grantUntil(db, asksOf(c), from, from + options.duration * 1000)));
    const sum = (of: (run: (typeof runs)[number]) => number) => runs.reduce((total, run) => total + of(run), 0);
    const exact = runs.every((run) => run.full) && (await stored()) - before === sum((run) => run.grants) * ASKS_PER_GRANT * UNITS_PER_ASK;
    ok &&= exact;
    const grantsPerSec = sum((run) => run.measured) / options.duration;
    rows.push(
      [
        String(connections).padStart(11),
        grantsPerSec.toFixed(0).padStart(8),
        (grantsPerSec * ASKS_PER_GRANT * UNITS_PER_ASK).toFixed(0).padStart(8),
        ((connections * 1000) / grantsPerSec).toFixed(2).padStart(12),
        (exact ? 'yes' : 'NO').padStart(12),
      ].join('  '),
    );
  }
  console.log(
    `\nthe grant statement alone: ${ASKS_PER_GRANT} accounts x ${UNITS_PER_ASK} units per grant, each grant a commit, ` +
      `${options.warmup} s warm-up + ${options.duration} s measured per run`,
  );
  console.log('connections  grants/s   units/s  ms per grant  counts exact');
  for (const row of rows) console.log(row);
  if (!ok) console.error('\n!!! a grant gave fewer units than asked, or the stored counts differ: the grant figures are not valid !!!');
  return ok;
}

export async function benchCluster(options: Omit<LoadOptions, 'serverPid'>): Promise<boolean> {
  console.log('\n=== cluster: N processes behind HAProxy on one Postgres database ===');
  const serverUrl = process.env.BENCH_DATABASE_URL;
  if (!serverUrl) {
    console.log('skipped: set BENCH_DATABASE_URL (several processes share a Postgres server)');
    return true;
  }
  if (spawnSync('haproxy', ['-v']).status !== 0) {
    console.log('skipped: haproxy is not installed (apt-get install haproxy)');
    return true;
  }
  const build = spawnSync(process.execPath, ['scripts/build-if-changed.js'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('building dist/ failed');

  const storage = await openBenchStorage(serverUrl);
  const work = mkdtempSync(join(tmpdir(), 'aud-rates-bench-cluster-'));
  const shared = {
    DATABASE_URL: storage.databaseUrl!,
    OPERATOR_TOKEN: randomBytes(24).toString('base64url'),
    WEBHOOK_KEY: randomBytes(32).toString('base64url'),
    TRUST_PROXY: '127.0.0.1',
    SCHEDULER: 'off',
    RBA_HISTORY_URLS: 'off',
    SHUTDOWN_DELAY_MS: '0',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
  };
  const children: ChildProcess[] = [];
  try {
    // The history and the accounts, stored once by an app in this process.
    const seeder = buildApp({ config: parseConfig(shared), db: storage.db, operatorToken: shared.OPERATOR_TOKEN, logger: pino({ level: 'silent' }) });
    const seeded = await seed(seeder, shared.OPERATOR_TOKEN);
    await seeder.close();
    console.log(`storage: ${storage.label}; ${seeded.days} days of rates, ${seeded.accountKeys.length} accounts`);
    console.log(`load: ${options.connections} connections, ${options.warmup} s warm-up + ${options.duration} s measured per run\n`);

    let ok = true;
    const rows: string[] = [];
    for (const count of PROCESS_COUNTS) {
      const ports: ServerPorts[] = [];
      for (let i = 0; i < count; i++) ports.push({ public: await freePort(), internal: await freePort() });
      const started = ports.map((p, i) => {
        const child = spawn(process.execPath, ['--enable-source-maps', '--max-semi-space-size=64', 'dist/main.js'], {
          cwd: ROOT,
          env: { ...process.env, ...shared, PORT: String(p.public), INTERNAL_PORT: String(p.internal), DATA_DIR: join(work, `${count}-${i + 1}`) },
          stdio: ['ignore', 'ignore', 'inherit'],
        });
        children.push(child);
        return child;
      });
      await Promise.all(ports.map((p) => waitUntilReady(p.internal)));
      const bind = `127.0.0.1:${await freePort()}`;
      const configFile = join(work, `haproxy-${count}.cfg`);
      // no request log under load: it would cost the balancer more than the requests
      const config = haproxyConfig(readFileSync(HAPROXY_TEMPLATE, 'utf8'), { bind, servers: ports }).replace(/^\s*log stdout .*$/m, '');
      writeFileSync(configFile, config);
      const haproxy = await startHaproxy(configFile, bind);
      await sleep(1_200); // every server up: two good checks

      const target = {
        name: `/latest (keyed) through HAProxy, ${count} process${count > 1 ? 'es' : ''}`,
        url: `http://${bind}/latest`,
        headers: {},
        connectionHeaders: seeded.accountKeys.map((key) => ({ Authorization: `Bearer ${key}` })),
        check: () => undefined,
      };
      if (options.warmup > 0) await measure(target, { ...options, duration: options.warmup, warmup: 0, serverPid: started[0]!.pid! });
      await sleep(STATS_SETTLE_MS);
      const before = await commitsOf(shared.DATABASE_URL);
      const result = await measure(target, { ...options, warmup: 0, serverPid: started[0]!.pid! });
      await sleep(STATS_SETTLE_MS);
      const commits = ((await commitsOf(shared.DATABASE_URL)) - before) / options.duration;
      ok &&= result.non2xx === 0 && result.errors === 0;
      rows.push(
        [
          String(count).padStart(9),
          result.reqPerSec.toFixed(0).padStart(8),
          `${result.p50} / ${result.p99}`.padStart(13),
          commits.toFixed(0).padStart(10),
          (result.reqPerSec / Math.max(commits, 1)).toFixed(1).padStart(13),
          `${result.non2xx + result.errors}`.padStart(13),
        ].join('  '),
      );

      await haproxy.stop();
      for (const child of started) child.kill('SIGTERM');
      await Promise.all(started.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)))));
    }
    console.log('processes     req/s  p50/p99 (ms)  commits/s  req per commit  non-2xx/errors');
    for (const row of rows) console.log(row);
    if (!ok) console.error('\n!!! the cluster run had non-2xx answers or errors: its figures are not valid !!!');
    return (await benchGrants(storage.db, options)) && ok;
  } finally {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await storage.destroy();
    rmSync(work, { recursive: true, force: true });
  }
}
