// The reference deployment (deploy/haproxy.cfg) under mixed keyed load: three processes on one
// Postgres behind HAProxy, with subscriptions on a real HTTPS receiver.
// First, every process is frozen at once for longer than a health check waits (a machine too busy
// to run them): every answer is 2xx, 304 or 4xx, every count is exact, and each process, once
// awake, answers the load again.
// Then the process that leads is killed outright (SIGKILL), and the one that takes the lead is
// restarted (SIGTERM, then started again), while new rate days are published before the kill,
// between the kill and the restart, and after it. Every answer a client gets is 2xx, 304 or 4xx,
// save requests the balancer had sent to the killed process; each account's stored count equals
// the successes the clients saw, give or take the requests in flight at the kill; the lead moves
// within the scheduler's bound after the kill, and at once after the SIGTERM; every publication
// reaches every subscription once.
// Last, every process is restarted in turn (a rolling restart): every answer is 2xx, 304 or 4xx,
// and every count is exact.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { HAPROXY_TEMPLATE, freePort, haproxyConfig, startHaproxy, waitUntilReady, type Haproxy, type ServerPorts } from '../../deploy/cluster.js';
import { billingPeriod } from '../../src/domain/billing.js';
import { PLAN_LIMITS } from '../../src/domain/plans.js';
import { accountWithKeyVia, createCliStore, importFixtureVia, importTableVia, startService, type CliStore, type RunningService } from '../support/cli.js';
import { syntheticDay } from '../support/rates.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const HAPROXY = spawnSync('haproxy', ['-v']).status === 0;
const PROCESSES = 3;
const ACCOUNTS = 6;
/** the scheduler's try for a free lead (src/jobs/rba-scheduler.ts), and room for a machine busy with the whole suite */
const LEAD_BOUND_MS = 15_000 + 5_000;
const LIMIT = PLAN_LIMITS.professional.monthlyRequests;
/** the last account starts this close to its limit, so its requests end in 429s */
const LEFT = 30;
/**
 * how long every process is frozen at once: long enough for a check of each to go unanswered (a check
 * every 500 ms, each given 1 s), too short for two in a row to
 */
const STALL_MS = 1_600;
/**
 * how soon the balancer sees a process gone: its next check within 500 ms, refused, and two more a
 * tenth of a second apart (deploy/haproxy.cfg), with a margin
 */
const DETECTION_MS = 1_500;
/** days the fixture holds, and a weekend that answers with the Friday before */
const DAYS = ['2026-05-11', '2026-05-09', '2026-01-07', '2025-01-10', '2025-01-09'];
/** business days after the fixture's newest, each a publication when stored: before the kill, between the kill and the restart, after it */
const PUBLISHED = ['2026-05-12', '2026-05-13', '2026-05-14'];
/** accounts with subscriptions that stay, and how many each (Professional allows 3) */
const SUBSCRIBERS = 3;
const SUBSCRIPTIONS_EACH = 2;
/** the shortest lease the configuration allows: how long a delivery claimed by the killed process stays its */
const LEASE_SECONDS = 15;
/**
 * How late the receiver, in this process busy with the load, may read a delivery the killed process
 * wrote to its socket before it died: such a copy is stamped when read, after the kill.
 */
const RECEIVER_LAG_MS = 2_000;

interface Answer {
  /** its X-Request-Id, which the balancer's log line of it carries */
  id: string;
  account: number;
  method: string;
  path: string;
  /** whether a success takes a unit: a keyed data request */
  counted: boolean;
  startedAt: number;
  endedAt: number;
  /** the HTTP status, or 0 when the connection failed */
  status: number;
  error?: string;
}

const answered = (a: Answer) => (a.status >= 200 && a.status < 300) || a.status === 304 || (a.status >= 400 && a.status < 500);

describe.skipIf(!process.env.DATABASE_URL || !HAPROXY)('three processes behind HAProxy under load', () => {
  let store: CliStore;
  let receiver: WebhookReceiver;
  let haproxy: Haproxy;
  let balancer: string;
  const ports: ServerPorts[] = [];
  const processes: (RunningService | null)[] = [];
  const dirs: string[] = [];
  let env: Record<string, string>;
  const keys: string[] = [];
  /** the subscriptions that stay for the whole file, each on a path of its own */
  const hooks: { id: string; path: string }[] = [];

  const start = (i: number) => startService({ ...env, DATA_DIR: dirs[i]!, PORT: String(ports[i]!.public), INTERNAL_PORT: String(ports[i]!.internal) });

  /**
   * Whether HAProxy logged, after `since` (an offset into its output), a request that process `i`
   * answered, its log line going on after the timers with `rest` (a pattern: the status, say).
   */
  const answeredBy = (i: number, since: number, rest = '') => new RegExp(` service/app${i + 1} [-\\d/]+ ${rest}`).test(haproxy.output().slice(since));

  /**
   * Sends keyless requests through the balancer until each of `servers` (indexes of processes) has
   * answered one that HAProxy logged after `since` (an offset into its output): it is in rotation.
   */
  async function untilServing(servers: readonly number[], since = 0): Promise<void> {
    const deadline = Date.now() + 10_000;
    const served = (i: number) => answeredBy(i, since);
    while (!servers.every(served)) {
      if (Date.now() > deadline) throw new Error(`not every server came into rotation:\n${haproxy.output().slice(since)}`);
      await fetch(`${balancer}/symbols`).then((r) => r.arrayBuffer());
      await sleep(50);
    }
  }

  /** Starts process `i` again and waits until it is ready and the balancer sends it requests. */
  async function startAgain(i: number): Promise<void> {
    const since = haproxy.output().length;
    processes[i] = await start(i);
    await waitUntilReady(ports[i]!.internal);
    await untilServing([i], since);
  }

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    store = await createCliStore();
    const work = mkdtempSync(join(tmpdir(), 'aud-rates-haproxy-'));
    writeFileSync(join(work, 'receiver-ca.pem'), receiver.ca);
    env = {
      ...store.env,
      OPERATOR_TOKEN: randomBytes(24).toString('base64url'),
      WEBHOOK_KEY: randomBytes(32).toString('base64url'),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_LEASE_SECONDS: String(LEASE_SECONDS),
      NODE_EXTRA_CA_CERTS: join(work, 'receiver-ca.pem'),
      TRUST_PROXY: '127.0.0.1',
      SCHEDULER: 'on',
      // the leader polls, and finds nothing: the tests never reach the RBA
      RBA_RSS_URL: join(work, 'no-feed.xml'),
      RBA_CSV_URL: join(work, 'no-table.csv'),
      SHUTDOWN_DELAY_MS: '1500',
    };
    for (let i = 0; i < PROCESSES; i++) {
      dirs.push(mkdtempSync(join(tmpdir(), 'aud-rates-haproxy-')));
      ports.push({ public: await freePort(), internal: await freePort() });
    }
    dirs.push(work);
    processes.push(...(await Promise.all(ports.map((_, i) => start(i)))));
    await importFixtureVia(processes[0]!, 'f11.1-data.csv');
    for (let account = 0; account < ACCOUNTS; account++) {
      keys.push((await accountWithKeyVia(processes[account % PROCESSES]!, `cluster-${account}@example.test`, 'professional')).key);
    }
    for (let subscriber = 0; subscriber < SUBSCRIBERS; subscriber++) {
      const { key } = await accountWithKeyVia(processes[subscriber % PROCESSES]!, `subscriber-${subscriber}@example.test`, 'professional');
      for (let n = 0; n < SUBSCRIPTIONS_EACH; n++) {
        const path = `/subscriber-${subscriber}/${n}`;
        const response = await fetch(`${processes[n % PROCESSES]!.publicUrl}/api/webhook-subscriptions`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ url: receiver.url(path) }),
        });
        const body = (await response.json()) as { signingSecret: string; subscription: { id: string } };
        expect(response.status, JSON.stringify(body)).toBe(200);
        receiver.setSecret(path, body.signingSecret);
        hooks.push({ id: body.subscription.id, path });
      }
    }
    await store.withDb(async (db) => {
      const email = `cluster-${ACCOUNTS - 1}@example.test`;
      const { billing_day } = await db.selectFrom('accounts').select('billing_day').where('email', '=', email).executeTakeFirstOrThrow();
      await db
        .updateTable('accounts')
        .set({ quota_used: LIMIT - LEFT, quota_period: billingPeriod(billing_day, new Date()).start })
        .where('email', '=', email)
        .execute();
    });
    const bind = `127.0.0.1:${await freePort()}`;
    balancer = `http://${bind}`;
    const configFile = join(work, 'haproxy.cfg');
    writeFileSync(configFile, haproxyConfig(readFileSync(HAPROXY_TEMPLATE, 'utf8'), { bind, servers: ports }));
    haproxy = await startHaproxy(configFile, bind);
    // every server up (two good checks): each has served a request through the balancer
    await untilServing(ports.map((_, i) => i));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(processes.flatMap((p) => (p ? [p.stop('SIGKILL')] : [])));
    await haproxy?.stop();
    await store?.close();
    await receiver?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** The processes whose log says they lead now (the last word of each says which). */
  const leaders = () =>
    processes.flatMap((p, i) => {
      if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return [];
      const said = p.output().match(/"msg":"(leading: this process polls the RBA|no longer leading[^"]*)"/g) ?? [];
      return said.at(-1)?.includes('"msg":"leading') ? [i] : [];
    });

  /** Each load account's stored count, in the order of `keys`. */
  const storedCounts = () =>
    store.withDb(async (db) => {
      const rows = await db.selectFrom('accounts').select(['email', 'quota_used']).where('email', 'like', 'cluster-%').execute();
      return keys.map((_, account) => rows.find((row) => row.email === `cluster-${account}@example.test`)!.quota_used);
    });

  /** Stores `date` (every code) through process `i`: a publication, with a delivery to each subscription. */
  async function publish(i: number, date: string): Promise<void> {
    const result = await importTableVia(processes[i]!, 'haproxy cluster test', { format: 'csv', publicationDate: date, days: [syntheticDay(date)] });
    expect(result.published).toBe(date);
    // the load's own subscriptions of the moment get one too
    expect(result.deliveries).toBeGreaterThanOrEqual(hooks.length);
  }

  /** Mixed keyed requests of every account through the balancer, one after another per account, until `stop()`. */
  function load(name: string) {
    const answers: Answer[] = [];
    let stopped = false;
    const loops = keys.map(async (key, account) => {
      const auth = { Authorization: `Bearer ${key}` };
      let etag: string | null = null;
      let subscription: string | null = null;
      for (let i = 0; !stopped; i++) {
        const day = DAYS[i % DAYS.length]!;
        const requests: [string, string, RequestInit, boolean][] = [
          ['GET', '/latest?symbols=USD,EUR', {}, true],
          ['GET', `/${day}`, {}, true],
          ['GET', `/timeseries?start_date=2025-06-01&end_date=2026-05-11&symbols=JPY`, {}, true],
          ['GET', `/convert?from=USD&to=GBP&amount=${i + 1}`, {}, true],
          ['GET', '/latest?symbols=USD', etag ? { headers: { 'If-None-Match': etag } } : {}, true],
          subscription
            ? ['DELETE', `/api/webhook-subscriptions/${subscription}`, {}, false]
            : [
                'POST',
                '/api/webhook-subscriptions',
                { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ url: 'https://127.0.0.1:9/hook' }) },
                false,
              ],
          ['GET', '/api/webhook-subscriptions', {}, false],
        ];
        const [method, path, init, counted] = requests[i % requests.length]!;
        const startedAt = Date.now();
        const id = `${name}-${account}-${i}`;
        const answer: Answer = { id, account, method, path, counted, startedAt, endedAt: 0, status: 0 };
        try {
          const response = await fetch(`${balancer}${path}`, {
            ...init,
            method,
            headers: { ...auth, 'X-Request-Id': id, ...(init.headers as Record<string, string>) },
          });
          const text = await response.text();
          answer.status = response.status;
          if (path === '/latest?symbols=USD' && response.status === 200) etag = response.headers.get('etag');
          if (method === 'POST' && response.status === 200) subscription = (JSON.parse(text) as { subscription: { id: string } }).subscription.id;
          if (method === 'DELETE' && response.status < 500) subscription = null;
        } catch (error) {
          answer.error = String((error as Error).cause ?? error);
        }
        answer.endedAt = Date.now();
        answers.push(answer);
      }
    });
    const stop = async () => {
      stopped = true;
      await Promise.all(loops);
    };
    /** resolves once `count` requests started from `since` on were answered 200 */
    const served = (count: number, since = 0) =>
      expect
        .poll(() => answers.filter((a) => a.startedAt >= since && a.status === 200).length, { timeout: 20_000, interval: 50 })
        .toBeGreaterThanOrEqual(count);
    // a test that fails midway leaves no load running into the next
    onTestFinished(stop);
    return { answers, stop, served };
  }

  /** What HAProxy said of its servers (each going down or up, and why): the context of an answer that failed. */
  const serverStates = () =>
    haproxy
      .output()
      .split('\n')
      .filter((line) => /^Server service\/app\d+ is /.test(line))
      .join('\n');

  /** HAProxy's log line of a request, by its X-Request-Id; null when it logged none. */
  const logLine = (a: Answer) =>
    haproxy
      .output()
      .split('\n')
      .find((line) => line.includes(`{${a.id}}`)) ?? null;

  /** Each account's successes (200 and 304 of counted requests): what its count must have grown by. */
  const successes = (answers: readonly Answer[], account: number) =>
    answers.filter((a) => a.account === account && a.counted && (a.status === 200 || a.status === 304)).length;

  /**
   * Every answer of `answers` was 2xx, 304 or 4xx, save those `excused` (failures listed with
   * HAProxy's log lines and what it said of its servers), and each account's count grew by exactly
   * its successes since `before`. Returns the counts now.
   */
  async function expectAllAnsweredAndCounted(
    answers: readonly Answer[],
    before: readonly number[],
    excused: (a: Answer) => boolean = () => false,
  ): Promise<number[]> {
    await sleep(200); // HAProxy logs a request once its answer is sent
    expect(
      answers.filter((a) => !answered(a) && !excused(a)).map((a) => `${a.method} ${a.path}: ${a.error ?? a.status}: ${logLine(a)}`),
      serverStates(),
    ).toEqual([]);
    const after = await storedCounts();
    for (let account = 0; account < ACCOUNTS; account++) {
      expect(after[account]! - before[account]!, `account ${account}`).toBe(successes(answers, account));
    }
    return after;
  }

  it('keeps every process in rotation through a moment in which none can answer', async () => {
    const before = await storedCounts();
    const traffic = load('stall');
    await traffic.served(20);
    // Every process is frozen at once (as when the machine is too busy to run them), for longer than
    // the balancer gives a check: one failed check must not take them all out of the rotation.
    const live = processes.filter((p): p is RunningService => p !== null);
    const stalledAt = Date.now();
    try {
      for (const p of live) p.child.kill('SIGSTOP');
      await sleep(STALL_MS);
    } finally {
      for (const p of live) p.child.kill('SIGCONT');
    }
    // Each process, once awake, answers the load: how many answers that takes depends on the machine.
    const woke = haproxy.output().length;
    await expect.poll(() => ports.map((_, i) => answeredBy(i, woke, '200 .*\\{stall-')), { timeout: 10_000 }).toEqual(ports.map(() => true));
    await traffic.stop();

    // A request whose statement was in flight when its process froze may be answered 503 by that
    // process (on waking, the wait has outlasted the store's bound, and a unit it took is given
    // back); the balancer itself answers nothing, and no connection fails.
    const answeredByItsProcess = (a: Answer) => a.status === 503 && / service\/app\d+ /.test(logLine(a) ?? '');
    await expectAllAnsweredAndCounted(traffic.answers, before, answeredByItsProcess);
    expect(serverStates()).not.toMatch(/ is DOWN/);
    expect(traffic.answers.some((a) => a.status === 200 && a.endedAt < stalledAt)).toBe(true);
  });

  it('answers every request but those in flight on the killed process, counts exactly, moves the lead, delivers each publication once', async () => {
    await expect.poll(() => leaders().length, { timeout: 10_000 }).toBe(1);
    const killed = leaders()[0]!;
    const before = await storedCounts();
    const traffic = load('kill');
    await traffic.served(20);
    await publish(killed, PUBLISHED[0]!);
    // the publication's deliveries are under way when its process is killed
    await expect.poll(() => receiver.deliveries.some((d) => d.json?.date === PUBLISHED[0]), { timeout: 10_000, interval: 20 }).toBe(true);

    // The leader is killed outright: another takes the lead at its next try.
    const killedAt = Date.now();
    processes[killed]!.child.kill('SIGKILL');
    await processes[killed]!.exited;
    processes[killed] = null;
    await expect.poll(() => leaders().length, { timeout: LEAD_BOUND_MS, interval: 100 }).toBe(1);
    expect(Date.now() - killedAt).toBeLessThan(LEAD_BOUND_MS);
    const restarted = leaders()[0]!;
    await publish(restarted, PUBLISHED[1]!);

    // The new leader is stopped (SIGTERM) and started again: the lead moves at once.
    const signalledAt = Date.now();
    processes[restarted]!.child.kill('SIGTERM');
    await expect.poll(() => leaders().filter((i) => i !== restarted).length, { timeout: 3_000, interval: 50 }).toBe(1);
    const stopped = await processes[restarted]!.exited;
    expect(stopped).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalledAt).toBeLessThan(10_000);
    await startAgain(restarted);
    await publish(restarted, PUBLISHED[2]!);
    await sleep(500);
    await traffic.stop();

    const { answers } = traffic;
    const inFlightAtKill = (a: Answer) => a.startedAt <= killedAt && a.endedAt >= killedAt;
    const failed = answers.filter((a) => !answered(a));
    // A failure is only ever a request the balancer had sent to the killed process: in flight at the
    // kill, or sent there in the moment before its health check saw it gone (a GET is tried again
    // elsewhere; another method may have taken effect, so the balancer closes the client's
    // connection, as the process did, and may log nothing of it). What it logged names that process.
    await sleep(200);
    const elsewhere = failed.filter((a) => {
      const line = logLine(a);
      return a.endedAt < killedAt || a.startedAt > killedAt + DETECTION_MS || (line !== null && !line.includes(` service/app${killed + 1} `));
    });
    expect(
      elsewhere.map((a) => `${a.method} ${a.path}: ${a.error ?? a.status} at ${a.startedAt - killedAt} ms after the kill: ${logLine(a)}`),
      serverStates(),
    ).toEqual([]);
    expect(failed.length).toBeLessThanOrEqual(ACCOUNTS);
    expect(answers.filter((a) => a.status === 304).length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.startedAt > signalledAt && a.status === 200).length).toBeGreaterThan(0);

    const after = await storedCounts();
    for (let account = 0; account < ACCOUNTS; account++) {
      const used = after[account]! - before[account]!;
      const seen = successes(answers, account);
      expect(used - seen, `account ${account}: ${used} counted, ${seen} seen`).toBeGreaterThanOrEqual(0);
      expect(used - seen, `account ${account}: ${used} counted, ${seen} seen`).toBeLessThanOrEqual(
        answers.filter((a) => a.account === account && a.counted && inFlightAtKill(a)).length,
      );
    }
    expect(after[ACCOUNTS - 1]).toBe(LIMIT);

    // Every publication of the run reaches every subscription that stays, once. A delivery is leased
    // to the process that claims it, and its outcome written after the receiver's answer, in batches
    // a tenth of a second apart; one the killed process had sent but not yet recorded is sent again,
    // with the same id, once its lease runs out. That is the one duplicate tolerated: two copies, the
    // first before the kill and the second after, of the publication made before the kill, and the
    // database holds the one attempt recorded. Once every delivery is recorded, the outbox is drained.
    const key = (d: { subscription_id: string; rate_date: string }) => `${d.subscription_id} ${d.rate_date}`;
    const expected = hooks
      .flatMap((hook) => PUBLISHED.map((date) => ({ subscription_id: hook.id, rate_date: date, state: 'delivered', attempts: 1 })))
      .sort((a, b) => key(a).localeCompare(key(b)));
    const recorded = () =>
      store.withDb((db) =>
        db
          .selectFrom('webhook_deliveries')
          .select(['id', 'subscription_id', 'rate_date', 'state', 'attempts'])
          .where(
            'subscription_id',
            'in',
            hooks.map((hook) => hook.id),
          )
          .execute(),
      );
    await expect
      .poll(
        async () =>
          (await recorded())
            .map(({ subscription_id, rate_date, state, attempts }) => ({ subscription_id, rate_date, state, attempts }))
            .sort((a, b) => key(a).localeCompare(key(b))),
        {
          timeout: (LEASE_SECONDS + 15) * 1000,
          interval: 250,
        },
      )
      .toEqual(expected);
    const deliveries = await recorded();
    const copiesOf = (id: string) => receiver.deliveries.filter((d) => d.headers['x-exchangerates-delivery'] === id);
    expect(receiver.deliveries.filter((d) => !deliveries.some((row) => row.id === d.headers['x-exchangerates-delivery']))).toEqual([]);
    for (const row of deliveries) {
      const copies = copiesOf(row.id);
      const path = hooks.find((hook) => hook.id === row.subscription_id)!.path;
      expect(copies.length, `delivery ${row.id} of ${row.rate_date} to ${path}`).toBeGreaterThan(0);
      for (const copy of copies) {
        expect({
          path: copy.path,
          event: copy.headers['x-exchangerates-event'],
          date: copy.json?.date,
          signed: copy.signatureValid,
          answer: copy.answeredWith,
        }).toEqual({
          path,
          event: 'rates.published',
          date: row.rate_date,
          signed: true,
          answer: 200,
        });
      }
    }
    const twice = deliveries.filter((row) => copiesOf(row.id).length > 1);
    for (const row of twice) {
      const [first, second, ...more] = copiesOf(row.id);
      expect({
        date: row.rate_date,
        more: more.length,
        firstSentBeforeKill: first!.at <= killedAt + RECEIVER_LAG_MS,
        secondAfterKill: second!.at > killedAt,
      }).toEqual({
        date: PUBLISHED[0],
        more: 0,
        firstSentBeforeKill: true,
        secondAfterKill: true,
      });
    }
  }, 120_000);

  it('restarts every process in turn under load: every answer 2xx, 304 or 4xx, every count exact', async () => {
    // the process the kill above took is back before the restarts begin
    for (const i of processes.keys()) if (!processes[i]) await startAgain(i);
    const before = await storedCounts();
    const traffic = load('rolling');
    await traffic.served(20);
    for (let i = 0; i < PROCESSES; i++) {
      const signalledAt = Date.now();
      processes[i]!.child.kill('SIGTERM');
      expect(await processes[i]!.exited).toEqual({ code: 0, signal: null });
      expect(Date.now() - signalledAt).toBeLessThan(10_000);
      await startAgain(i);
    }
    await traffic.served(20, Date.now());
    await traffic.stop();

    // The balancer tries a refused connection elsewhere, and a stopping process answers what it
    // has in flight: no request fails, whatever its method.
    const after = await expectAllAnsweredAndCounted(traffic.answers, before);
    expect(traffic.answers.filter((a) => a.status === 200).length).toBeGreaterThan(100);
    expect(after[ACCOUNTS - 1]).toBe(LIMIT);
    await expect.poll(() => leaders().length, { timeout: LEAD_BOUND_MS, interval: 100 }).toBe(1);
  }, 90_000);
});
