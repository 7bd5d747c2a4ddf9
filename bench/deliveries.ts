// The delivery phase of `npm run bench`: a publication fanned out to 2,000 webhook subscriptions
// (40 Enterprise accounts x 50) on a local HTTPS receiver running in a child process
// (bench/receiver.ts). The service is the real app in this process, on the bench storage
// (bench/storage.ts), with WEBHOOK_ALLOW_PRIVATE_TARGETS so deliveries may reach 127.0.0.1 and the
// receiver's self-signed certificate trusted. Measured: the import transaction that records the
// deliveries, then app.deliveries.runDue() until every attempt is recorded.
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { sql, type Insertable } from 'kysely';
import { pino } from 'pino';
import { buildApp, type App } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { insertAccount } from '../src/db/accounts.js';
import type { WebhookSubscriptionsTable } from '../src/db/database.js';
import { importRates } from '../src/jobs/import-rates.js';
import { generateSigningSecret } from '../src/webhooks/secret-box.js';
import { createCertificate } from '../test/support/certificate.js';
import { cpuSecondsOf } from './cpu.js';
import { NOW, fixtureDays } from './fixtures.js';
import type { ReceiverCommand, ReceiverMessage, ReceiverStats } from './receiver.js';
import { openBenchStorage, type BenchStorage } from './storage.js';

const RECEIVER = fileURLToPath(new URL('./receiver.ts', import.meta.url));

/** The issue's target: every delivery of a 2,000-subscription publication within 20 s. */
const TARGET_DELIVERIES = 2_000;
const TARGET_SECONDS = 20;
const SUBSCRIPTIONS_PER_ACCOUNT = 50; // the Enterprise plan's limit
const INSERT_BATCH = 500;

export interface DeliveriesOptions {
  /** subscriptions (and so deliveries); 2,000 unless BENCH_DELIVERIES says otherwise */
  subscriptions: number;
}

interface Receiver {
  pid: number;
  port: number;
  stats(): Promise<ReceiverStats>;
  close(): Promise<void>;
}

function startReceiver(cert: { cert: string; key: string }, secrets: string[]): Promise<Receiver> {
  const child: ChildProcess = fork(RECEIVER, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const command = (c: ReceiverCommand) => child.send(c);
  const next = <T extends ReceiverMessage['type']>(type: T): Promise<Extract<ReceiverMessage, { type: T }>> =>
    new Promise((resolve, reject) => {
      const onMessage = (message: ReceiverMessage) => {
        if (message.type === 'error') return done(() => reject(new Error(`receiver: ${message.message}`)));
        if (message.type === type) done(() => resolve(message as Extract<ReceiverMessage, { type: T }>));
      };
      const onExit = (code: number | null) => done(() => reject(new Error(`the receiver process exited with code ${code}`)));
      const done = (then: () => void) => {
        child.off('message', onMessage);
        child.off('exit', onExit);
        then();
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
    });

  const listening = next('listening');
  command({ type: 'start', cert: cert.cert, key: cert.key, secrets });
  return listening.then(({ port }) => ({
    pid: child.pid!,
    port,
    async stats() {
      const answer = next('stats');
      command({ type: 'stats' });
      return (await answer).stats;
    },
    async close() {
      if (child.connected) child.disconnect(); // the receiver exits when its channel closes
      const code = await Promise.race([exited, new Promise<'late'>((r) => setTimeout(() => r('late'), 5_000).unref())]);
      if (code === 'late') child.kill();
    },
  }));
}

/** Stored rates up to the day before the publication, and `count` subscriptions in accounts of 50. */
async function seedSubscriptions(app: App, count: number, port: number, secrets: string[]): Promise<void> {
  const days = fixtureDays();
  const stored = await importRates(app.services, { source: 'bench fixtures', format: 'csv', publicationDate: null, days: days.slice(0, -1) });
  if (stored.deliveries !== 0) throw new Error(`seeding the rates recorded ${stored.deliveries} deliveries`);

  const { db } = app.services;
  const rows: Insertable<WebhookSubscriptionsTable>[] = [];
  for (let a = 0; a * SUBSCRIPTIONS_PER_ACCOUNT < count; a++) {
    const account = await insertAccount(db, { email: `bench-webhooks-${a}@example.test`, plan: 'enterprise', signedUpAt: NOW });
    if (!account) throw new Error(`account ${a} exists already`);
    for (let n = a * SUBSCRIPTIONS_PER_ACCOUNT; n < Math.min(count, (a + 1) * SUBSCRIPTIONS_PER_ACCOUNT); n++) {
      rows.push({
        id: randomBytes(16).toString('hex'),
        account_id: account.id,
        url: `https://127.0.0.1:${port}/hook/${n}`,
        // Most want every code; every fifth a few, so the payload is cut to size as in real use.
        currencies: n % 5 === 4 ? ['USD', 'EUR', 'GBP', 'JPY'] : null,
        description: `bench subscription ${n}`,
        secret_ciphertext: app.services.webhooks.box.seal(secrets[n]!),
      });
    }
  }
  for (let i = 0; i < rows.length; i += INSERT_BATCH) {
    await db
      .insertInto('webhook_subscriptions')
      .values(rows.slice(i, i + INSERT_BATCH))
      .execute();
  }
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const ms = (value: number) => `${Math.round(value).toLocaleString('en-US')} ms`;
const count = (value: number) => value.toLocaleString('en-US');
const share = (value: number | null) => (value === null ? 'n/a' : `${Math.round(value * 100)}%`);

let cleanup: (() => Promise<void>) | null = null;

/** Closes whatever the phase has open (for an interrupted run). */
export function abortDeliveries(): Promise<void> {
  return cleanup?.() ?? Promise.resolve();
}

/** Runs the phase and prints its report; resolves false when a delivery failed or a signature was wrong. */
export async function benchDeliveries(options: DeliveriesOptions): Promise<boolean> {
  const n = options.subscriptions;
  const accounts = Math.ceil(n / SUBSCRIPTIONS_PER_ACCOUNT);
  console.log(
    `\n=== webhook deliveries: ${count(n)} subscriptions (${accounts} Enterprise accounts x ${SUBSCRIPTIONS_PER_ACCOUNT}), receiver in a child process ===`,
  );
  const started = performance.now();

  const cert = createCertificate();
  cert.cleanup(); // the PEM texts are all the bench needs
  const secrets = Array.from({ length: n }, () => generateSigningSecret());
  let receiver: Receiver | null = null;
  let storage: BenchStorage | null = null;
  let app: App | null = null;
  cleanup = async () => {
    cleanup = null;
    try {
      await app?.close();
    } finally {
      try {
        await storage?.destroy();
      } finally {
        await receiver?.close();
      }
    }
  };

  try {
    receiver = await startReceiver(cert, secrets);
    storage = await openBenchStorage();
    const config = parseConfig({
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      WEBHOOK_KEY: randomBytes(32).toString('base64url'),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    });
    app = buildApp({
      config,
      db: storage.db,
      operatorToken: randomBytes(24).toString('hex'),
      clock: () => NOW,
      logger: pino({ level: config.LOG_LEVEL }),
      webhookNetwork: { ca: [cert.cert] },
    });
    await seedSubscriptions(app, n, receiver.port, secrets);
    console.log(`storage: ${storage.label}`);
    console.log(
      `receiver pid ${receiver.pid} on https://127.0.0.1:${receiver.port} (self-signed RSA 2048); set up in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    // Each attempt's send (target check, connect, TLS, POST, answer), timed from outside the sender.
    const attemptMs: number[] = [];
    const webhooks = app.services.webhooks;
    const send = webhooks.send.bind(webhooks);
    webhooks.send = async (request) => {
      const t = performance.now();
      try {
        return await send(request);
      } finally {
        attemptMs.push(performance.now() - t);
      }
    };

    const publication = fixtureDays().at(-1)!;
    const cpu0 = { own: cpuSecondsOf(process.pid), receiver: cpuSecondsOf(receiver.pid) };
    const load0 = loadavg()[0]!;
    const t0Wall = performance.timeOrigin + performance.now();
    const t0 = performance.now();
    const outcome = await importRates(app.services, { source: 'bench publication', format: 'csv', publicationDate: publication.date, days: [publication] });
    const t1 = performance.now();
    const attempted = await app.deliveries.runDue();
    const t2 = performance.now();
    const cpu1 = { own: cpuSecondsOf(process.pid), receiver: cpuSecondsOf(receiver.pid) };
    const load1 = loadavg()[0]!;

    const recordingMs = t1 - t0;
    const deliveringMs = t2 - t1;
    const totalMs = t2 - t0;
    const states = await sql<{ state: string; n: number }>`select state, count(*)::int as n from webhook_deliveries group by state order by state`.execute(
      storage.db,
    );
    const delivered = states.rows.find((r) => r.state === 'delivered')?.n ?? 0;
    const stats = await receiver.stats();
    attemptMs.sort((a, b) => a - b);
    const sinceStart = stats.arrivals.map((at) => at - t0Wall).sort((a, b) => a - b);

    console.log(
      `recorded: ${count(outcome.deliveries)} deliveries for ${publication.date} in the import transaction; attempted by runDue: ${count(attempted)}`,
    );
    console.log('');
    console.log(`recording (the import transaction)    ${ms(recordingMs)}`);
    console.log(`delivering (runDue)                   ${ms(deliveringMs)}  ->  ${count(Math.round((attempted / deliveringMs) * 1000))} deliveries/s`);
    console.log(`total, publication to last recorded   ${ms(totalMs)}  ->  ${count(Math.round((delivered / totalMs) * 1000))} deliveries/s overall`);
    console.log(
      `one attempt's send, p50 / p99         ${ms(percentile(attemptMs, 50))} / ${ms(percentile(attemptMs, 99))}  (target check, connect, TLS, POST, answer)`,
    );
    console.log(
      `publication to arrival, p50 / p99     ${ms(percentile(sinceStart, 50))} / ${ms(percentile(sinceStart, 99))}  (first ${ms(sinceStart[0] ?? NaN)}, last ${ms(sinceStart.at(-1) ?? NaN)})`,
    );
    // CPU seconds per delivery hardly depend on what else the machine runs; the shares and times do.
    const used = (before: number | null, after: number | null) => (before === null || after === null ? null : after - before);
    const cpuLine = (name: string, seconds: number | null) =>
      seconds === null ? `${name} n/a` : `${name} ${share(seconds / (totalMs / 1000))} of a core, ${((seconds * 1000) / n).toFixed(2)} ms per delivery`;
    console.log(
      `CPU while measured                    ${cpuLine('this process', used(cpu0.own, cpu1.own))}; ${cpuLine('receiver', used(cpu0.receiver, cpu1.receiver))}`,
    );
    console.log(`machine load average (1 min)          ${load0.toFixed(1)} before, ${load1.toFixed(1)} after, on ${availableParallelism()} cores`);
    console.log(`delivery states: ${states.rows.map((r) => `${r.state} ${count(r.n)}`).join(', ') || 'none'}`);
    console.log(
      `receiver: ${count(stats.requests)} POSTs, ${count(stats.valid)} valid signatures, ${count(stats.invalid)} invalid, ` +
        `${count(stats.distinctIds)} distinct delivery ids, ${count(stats.repeatedIds)} repeated, ${count(stats.clientErrors)} connection errors`,
    );

    const failures: string[] = [];
    if (outcome.deliveries !== n) failures.push(`${count(outcome.deliveries)} deliveries recorded, not ${count(n)}`);
    if (delivered !== n) failures.push(`${count(delivered)} delivered, not ${count(n)}`);
    if (stats.valid !== n) failures.push(`${count(stats.valid)} valid signatures at the receiver, not ${count(n)}`);
    if (stats.invalid > 0) failures.push(`${count(stats.invalid)} invalid signatures`);
    if (stats.distinctIds !== n) failures.push(`${count(stats.distinctIds)} distinct delivery ids, not ${count(n)}`);

    const met = failures.length === 0 && totalMs <= TARGET_SECONDS * 1000;
    const verdict = n === TARGET_DELIVERIES ? (met ? 'met' : 'NOT met') : `not judged (measured with ${count(n)})`;
    console.log(`\ntarget: ${count(TARGET_DELIVERIES)} within ${TARGET_SECONDS} s — ${verdict} (${(totalMs / 1000).toFixed(1)} s)`);
    if (failures.length > 0) console.error(`\n!!! FAILED: ${failures.join('; ')} — the figures above are not valid !!!`);
    return failures.length === 0;
  } finally {
    await cleanup?.();
  }
}
