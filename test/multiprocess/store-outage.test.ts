// Issue 8: no store fault loses a unit or hangs a client. A service process on a Postgres server of
// the test's own, under a steady keyed load, while the server is stopped, frozen, or the service is
// killed: every answer comes within 2 s (a 503 `service_unavailable` while the store is away), the
// service recovers by itself, and the stored count equals the number of 200 answers, exactly (after
// a kill it may be higher, by no more than the requests the kill cut off mid-flight). The instant a
// stopped or frozen server can hit by chance, a grant's commit carried out with its answer lost, is
// also made to happen on demand.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountWithKeyVia, importFixtureVia, startService, type RunningService } from '../support/cli.js';
import { startCommitCutter } from '../support/commit-cutter.js';
import { startOwnPostgres, type OwnPostgres } from '../support/postgres.js';

const BOUND_MS = 2_000;
const REQUESTS_PER_SECOND = 10;

interface Answer {
  path: string;
  sentAt: number;
  ms: number;
  /** the HTTP status, or the client's error when the connection failed */
  status: number | string;
  type?: string;
}

async function ask(baseUrl: string, path: string, key?: string): Promise<Answer> {
  const sentAt = Date.now();
  try {
    const response = await fetch(`${baseUrl}${path}`, {
      headers: key ? { Authorization: `Bearer ${key}` } : {},
      signal: AbortSignal.timeout(15_000),
    });
    const body = (await response.json()) as { error?: { type?: string } };
    return { path, sentAt, ms: Date.now() - sentAt, status: response.status, ...(body.error?.type && { type: body.error.type }) };
  } catch (error) {
    return { path, sentAt, ms: Date.now() - sentAt, status: String((error as Error).cause ?? error) };
  }
}

/**
 * Keyed requests at a steady rate until stopped, and `busy` clients besides that each send their
 * next request as soon as the last is answered (so that requests arrive while a grant is out, and
 * grants follow one another); every answer, in the order they were sent.
 */
function steadyLoad(service: RunningService, key: string, { path = '/latest?symbols=USD', busy = 0 } = {}) {
  const answers: Promise<Answer>[] = [];
  const settled: Answer[] = [];
  let stopped = false;
  const send = () => {
    const answer = ask(service.publicUrl, path, key);
    answers.push(answer);
    void answer.then((a) => settled.push(a));
    return answer;
  };
  const timer = setInterval(() => void send(), 1000 / REQUESTS_PER_SECOND);
  const clients = Array.from({ length: busy }, async () => {
    while (!stopped) await send();
  });
  return {
    /** resolves once `count` answers of requests sent from `since` on have `status` */
    async answered(status: number, count: number, since = Date.now(), withinMs = 30_000): Promise<void> {
      const started = Date.now();
      while (settled.filter((a) => a.sentAt >= since && a.status === status).length < count) {
        if (Date.now() - started > withinMs) throw new Error(`fewer than ${count} answers ${status} within ${withinMs} ms`);
        await sleep(50);
      }
    },
    /** resolves once a request sent from now on is answered 200 */
    async recovered(withinMs: number): Promise<number> {
      const since = Date.now();
      while (Date.now() - since < withinMs) {
        const settled = await Promise.all(answers);
        if (settled.some((a) => a.sentAt >= since && a.status === 200)) return Date.now() - since;
        await sleep(100);
      }
      throw new Error(`no 200 within ${withinMs} ms`);
    },
    /** how many requests sent from `since` on are answered (or failed) */
    sentSince(since: number): number {
      return settled.filter((a) => a.sentAt >= since).length;
    },
    async stop(): Promise<Answer[]> {
      clearInterval(timer);
      stopped = true;
      await Promise.all(clients);
      return Promise.all(answers);
    },
  };
}

describe.skipIf(!process.env.DATABASE_URL)(
  "store faults under load, on a Postgres server of the test's own (skipped without DATABASE_URL: needs initdb and pg_ctl)",
  () => {
    let store: OwnPostgres;
    let service: RunningService;
    const dirs: string[] = [];
    let accounts = 0;

    const env = () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'aud-rates-outage-'));
      dirs.push(dataDir);
      // the production bounds, which the 2 s asserted here rest on
      return { DATA_DIR: dataDir, DATABASE_URL: store.url, DATABASE_CONNECT_TIMEOUT_MS: '1000', DATABASE_STATEMENT_TIMEOUT_MS: '1000' };
    };

    beforeAll(async () => {
      store = await startOwnPostgres();
      service = await startService(env());
      await importFixtureVia(service, 'f11.1-data.csv');
    }, 60_000);

    afterAll(async () => {
      await service?.stop();
      await store?.destroy();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    async function newAccount(via: RunningService): Promise<{ email: string; key: string }> {
      const email = `outage-${++accounts}@example.test`;
      return { email, ...(await accountWithKeyVia(via, email, 'professional')) };
    }

    async function storedCount(email: string): Promise<number> {
      const [row] = await store.query<{ quota_used: number }>('select quota_used from accounts where email = $1', [email]);
      return Number(row!.quota_used);
    }

    const describeAnswers = (answers: Answer[]) =>
      answers.map((a) => `+${a.sentAt - answers[0]!.sentAt}ms ${a.path} ${a.status}${a.type ? ` ${a.type}` : ''} in ${a.ms}ms`).join('\n');

    it(
      'stopped mid-load (pg_ctl stop -m immediate, then start): 503s within 2 s, recovery without a restart, 200s == stored count',
      { timeout: 60_000 },
      async () => {
        const { email, key } = await newAccount(service);
        const load = steadyLoad(service, key);
        await load.answered(200, 10);
        await store.stop();
        const stoppedAt = Date.now();
        await load.answered(503, 25, stoppedAt);
        const startingAt = Date.now();
        await store.start();
        await load.recovered(15_000);
        await load.answered(200, 10);
        const answers = await load.stop();

        const report = describeAnswers(answers);
        const duringOutage = answers.filter((a) => a.sentAt >= stoppedAt && a.sentAt + a.ms < startingAt);
        expect(duringOutage.length, report).toBeGreaterThan(20);
        for (const a of duringOutage) expect({ status: a.status, type: a.type }, report).toEqual({ status: 503, type: 'service_unavailable' });
        for (const a of answers) {
          expect([200, 503], report).toContain(a.status);
          expect(a.ms, report).toBeLessThan(BOUND_MS);
        }
        expect(answers.at(-1)!.status, report).toBe(200);
        expect(await storedCount(email), report).toBe(answers.filter((a) => a.status === 200).length);
      },
    );

    it(
      'frozen mid-load (SIGSTOP to the server, then SIGCONT): keyed /latest and /status answer 503 within 2 s, then recover; 200s == stored count',
      { timeout: 60_000 },
      async () => {
        const { email, key } = await newAccount(service);
        const load = steadyLoad(service, key);
        await load.answered(200, 10);
        store.freeze();
        const frozenAt = Date.now();
        let probes: Answer[];
        try {
          // once the load is answered 503, the service knows the store is away
          await load.answered(503, 25, frozenAt);
          probes = await Promise.all([
            ask(service.publicUrl, '/status'),
            ask(service.publicUrl, '/latest', key),
            ask(service.publicUrl, '/convert?from=USD&to=EUR&amount=1'),
          ]);
        } finally {
          store.thaw();
        }
        const thawedAt = Date.now();
        await load.recovered(15_000);
        await load.answered(200, 10);
        const answers = await load.stop();

        const report = describeAnswers([...answers, ...probes]);
        for (const probe of probes) {
          expect(probe.status, report).toBe(503);
          expect(probe.ms, report).toBeLessThan(BOUND_MS);
        }
        const duringFreeze = answers.filter((a) => a.sentAt >= frozenAt && a.sentAt + a.ms < thawedAt);
        expect(duringFreeze.length, report).toBeGreaterThan(20);
        for (const a of duringFreeze) expect({ status: a.status, type: a.type }, report).toEqual({ status: 503, type: 'service_unavailable' });
        for (const a of answers) {
          expect([200, 503], report).toContain(a.status);
          expect(a.ms, report).toBeLessThan(BOUND_MS);
        }
        expect(answers.at(-1)!.status, report).toBe(200);
        // Statements the frozen server held run when it wakes: a grant among them never commits (its
        // commit was never sent), and one whose commit it held is given back once the database says.
        await expect.poll(() => storedCount(email), { message: report, timeout: 10_000 }).toBe(answers.filter((a) => a.status === 200).length);
      },
    );

    // With nobody waiting behind the grant, or with requests waiting for the next one.
    it.each([
      { waiting: 'nobody', busy: 0 },
      { waiting: 'requests', busy: 4 },
    ] as const)(
      "a grant's commit carried out and its answer lost (the connection cut as the commit goes out, $waiting waiting): 503, the units given back, 200s == stored count",
      { timeout: 60_000 },
      async ({ busy }) => {
        const cutter = await startCommitCutter(store.url);
        const through = await startService({ ...env(), DATABASE_URL: cutter.url });
        try {
          const { email, key } = await newAccount(through);
          const load = steadyLoad(through, key, { busy });
          await load.answered(200, 10);
          await cutter.cutNextGrantCommit();
          await load.recovered(15_000);
          await load.answered(200, 10);
          const answers = await load.stop();

          const report = describeAnswers(answers);
          const refused = answers.filter((a) => a.status !== 200);
          expect(refused.length, report).toBeGreaterThan(0);
          for (const a of refused) expect({ status: a.status, type: a.type }, report).toEqual({ status: 503, type: 'service_unavailable' });
          for (const a of answers) expect(a.ms, report).toBeLessThan(BOUND_MS);
          // The grant did commit: it is refunded, once, for the requests that were answered 503.
          const refunds = async () =>
            store.query<{ units: number }>('select units from quota_refunds r join accounts a on a.id = r.account_id where a.email = $1', [email]);
          await expect.poll(async () => (await refunds()).length, { timeout: 10_000 }).toBeGreaterThan(0);
          // (a request that arrived while the cut grant was out fails with it, taking no unit)
          const [refund, ...more] = await refunds();
          expect(more, report).toEqual([]);
          expect(refund?.units, report).toBeGreaterThanOrEqual(1);
          expect(refund?.units, report).toBeLessThanOrEqual(refused.length);
          expect(await storedCount(email), report).toBe(answers.filter((a) => a.status === 200).length);
          expect(through.output()).toMatch(/its units are given back/);
        } finally {
          await through.stop();
          await cutter.close();
        }
      },
    );

    it('a service process killed with SIGKILL mid-load: 200s == stored count', { timeout: 60_000 }, async () => {
      const doomed = await startService(env());
      const { email, key } = await newAccount(doomed);
      const load = steadyLoad(doomed, key);
      await load.answered(200, 15);
      await doomed.stop('SIGKILL');
      // Requests keep coming after the kill: the ones in flight and these find no process.
      const killedAt = Date.now();
      await expect.poll(() => load.sentSince(killedAt), { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
      const answers = await load.stop();

      const report = describeAnswers(answers);
      const ok = answers.filter((a) => a.status === 200).length;
      expect(ok, report).toBeGreaterThan(10);
      expect(
        answers.some((a) => typeof a.status === 'string'),
        report,
      ).toBe(true);
      // The one window README's "Quota units and a stalled store" names: a grant committed just
      // before the kill, for a request whose answer was not yet written. Only a request the kill
      // cut off mid-flight can be in it; every other unit is a 200.
      const cutOff = answers.filter((a) => typeof a.status === 'string' && !a.status.includes('ECONNREFUSED')).length;
      const stored = await storedCount(email);
      expect(stored, report).toBeGreaterThanOrEqual(ok);
      expect(stored, report).toBeLessThanOrEqual(ok + cutOff);
    });
  },
);
