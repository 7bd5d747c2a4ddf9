// A service asked to stop (SIGTERM) answers everything it has in flight and counts exactly what it
// answered (D36 in docs/decisions.md), says so on its readiness check while it still serves, closes
// its listener, and exits within 10 s. Runs on the suite's store: PGlite, or Postgres.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountWithKeyVia, createCliStore, importFixtureVia, startService, type CliStore, type RunningService } from '../support/cli.js';

// long enough for a burst to be answered on a busy machine before the listener closes
const DELAY_MS = 3_000;

let store: CliStore;
let service: RunningService;
beforeAll(async () => {
  store = await createCliStore();
  service = await startService({ ...store.env, SHUTDOWN_DELAY_MS: String(DELAY_MS), WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  await importFixtureVia(service, 'f11.1-data.csv');
}, 90_000);
afterAll(async () => {
  await service?.stop('SIGKILL');
  await store?.close();
});

/** Everything the server sends on `socket` until it closes it. */
function readToEnd(socket: Socket): Promise<string> {
  let received = '';
  socket.setEncoding('latin1').on('data', (chunk: string) => (received += chunk));
  return new Promise((resolve, reject) => {
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

describe('stopping on SIGTERM', () => {
  it('answers the requests in flight, counts exactly the answered ones, turns /ready to 503 first, and exits 0', async () => {
    const { key } = await accountWithKeyVia(service, 'graceful-stop@example.test', 'professional');
    const auth = { Authorization: `Bearer ${key}` };
    const ready = service.internalUrl.replace(/\/graphql$/, '/ready');
    const readyAnswer = await fetch(ready);
    expect([readyAnswer.status, await readyAnswer.text(), readyAnswer.headers.get('cache-control')]).toEqual([200, 'ready\n', 'no-store']);
    expect((await fetch(ready, { method: 'POST' })).status).toBe(405);

    // A request in flight for the whole stop: its headers are in, its body comes after the listener closed.
    const { port } = new URL(service.publicUrl);
    const body = JSON.stringify({ url: 'https://127.0.0.1:9/hook', description: 'sent across a stop' });
    const slow = connect(Number(port), '127.0.0.1');
    const slowAnswer = readToEnd(slow);
    await new Promise((resolve) => slow.once('connect', resolve));
    slow.write(
      `POST /api/webhook-subscriptions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );

    // Keyed data requests sent at the instant of the signal: every one is answered, and counted.
    const burst = Array.from({ length: 40 }, () => fetch(`${service.publicUrl}/latest?symbols=USD`, { headers: auth }).then((r) => r.status));
    const signalled = Date.now();
    service.child.kill('SIGTERM');
    const statuses = await Promise.all(burst);
    expect(statuses.every((s) => s === 200)).toBe(true);

    await expect.poll(() => fetch(ready).then((r) => r.status), { interval: 20, timeout: 2_000 }).toBe(503);
    // During the delay the service still serves, and closes each connection after its answer.
    const during = await fetch(`${service.publicUrl}/latest?symbols=USD`, { headers: auth });
    expect(during.status).toBe(200);
    expect(during.headers.get('connection')).toBe('close');
    expect(Date.now() - signalled).toBeLessThan(DELAY_MS);

    // Then the listener closes: a new connection is refused while the slow request is still open.
    await expect
      .poll(
        () =>
          fetch(service.publicUrl).then(
            () => 'accepted',
            (error: Error) => String((error.cause as { code?: string })?.code),
          ),
        {
          interval: 50,
          timeout: 3_000,
        },
      )
      .toBe('ECONNREFUSED');
    slow.write(body.slice(10));
    const answer = await slowAnswer;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);

    expect(await service.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(10_000);

    const stored = await store.withDb((db) =>
      db.selectFrom('accounts').select('quota_used').where('email', '=', 'graceful-stop@example.test').executeTakeFirstOrThrow(),
    );
    expect(stored.quota_used).toBe(statuses.length + 1);
    const subscriptions = await store.withDb((db) => db.selectFrom('webhook_subscriptions').select('description').execute());
    expect(subscriptions).toEqual([{ description: 'sent across a stop' }]);
  }, 60_000);
});
