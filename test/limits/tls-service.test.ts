// D20 (docs/decisions.md) end to end: the real service (its bundle, as `npm start` runs it) serving
// TLS itself from TLS_CERT_FILE / TLS_KEY_FILE, with a self-signed certificate from test/support/certificate.ts (the
// `openssl` binary); and a configuration with only one of the two files stopping the service with
// exit code 2 and a message.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCertificate, OPENSSL_AVAILABLE, type TestCertificate } from '../support/certificate.js';
import { createCliStore, startService, type CliStore, type RunningService } from '../support/cli.js';
import { exchange, expectEnvelope, parseResponses } from '../support/raw-http.js';
import { get, portOf } from './net.js';

// A service given only one of the two files must stop with exit code 2. Both are started at once,
// while the TLS service below starts, and checked at the end.
const HALF_CONFIGURED: Record<string, Record<string, string>> = {
  'only TLS_CERT_FILE': { TLS_CERT_FILE: '/nonexistent/cert.pem' },
  'only TLS_KEY_FILE': { TLS_KEY_FILE: '/nonexistent/key.pem' },
};
const halfConfigured = new Map<string, Promise<Error | null>>();
let configDir: string;
beforeAll(() => {
  configDir = mkdtempSync(join(tmpdir(), 'aud-rates-tls-config-'));
  for (const [what, tls] of Object.entries(HALF_CONFIGURED)) {
    const started = startService({ DATA_DIR: join(configDir, what.replace(/\W+/g, '-')), ...tls }, 60_000);
    halfConfigured.set(
      what,
      started.then(
        async (service) => {
          await service.stop();
          return null;
        },
        (e: Error) => e,
      ),
    );
  }
});
afterAll(async () => {
  await Promise.all(halfConfigured.values());
  rmSync(configDir, { recursive: true, force: true });
});

describe.skipIf(!OPENSSL_AVAILABLE)('the service serving TLS itself', () => {
  let certificate: TestCertificate;
  let store: CliStore;
  let service: RunningService;

  beforeAll(async () => {
    certificate = createCertificate();
    store = await createCliStore();
    // Listening on every interface, so that a peer other than loopback can reach it too.
    service = await startService({ ...store.env, TLS_CERT_FILE: certificate.certFile, TLS_KEY_FILE: certificate.keyFile });
  }, 90_000);
  afterAll(async () => {
    await service?.stop();
    await store?.close();
    certificate?.cleanup();
  });

  it('without WEBHOOK_ALLOW_PRIVATE_TARGETS, its log claims no private webhook targets (D34)', async () => {
    // service.json can be seen a moment before the line that follows it reaches the log.
    await vi.waitFor(() => expect(service.output()).toContain('listening on'), { timeout: 15_000 });
    expect(service.output()).not.toContain('WEBHOOK_ALLOW_PRIVATE_TARGETS is on');
  });

  it('service.json names an https publicUrl', () => {
    const file = JSON.parse(readFileSync(join(store.dataDir, 'service.json'), 'utf8'));
    expect(file.publicUrl).toMatch(/^https:\/\/[^/]+:\d+$/);
    expect(file.publicUrl).toBe(service.publicUrl);
  });

  it('GET /symbols over https, trusting only the generated certificate, is 200', async () => {
    const res = await get(`https://127.0.0.1:${portOf(service.publicUrl)}/symbols`, { ca: Buffer.from(certificate.cert) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, base: 'AUD', count: 21 });
    expect(Object.keys(res.body.symbols)).toHaveLength(21);
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('a client that does not trust the certificate is refused by TLS itself', async () => {
    await expect(get(`https://127.0.0.1:${portOf(service.publicUrl)}/symbols`)).rejects.toThrow(/self[- ]signed|certificate/i);
  });

  it("requests Node's parser refuses, and targets that are no path, are answered over TLS in the envelope", async () => {
    const port = Number(portOf(service.publicUrl));
    const cases: [string, number, string][] = [
      ['POST /api/webhook-subscriptions HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400, 'bad_request'],
      [`GET /${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431, 'headers_too_large'],
      ['GET http://[/ HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad_request'],
    ];
    for (const [request, status, type] of cases) {
      const answer = await exchange(port, request, { tls: { ca: certificate.cert } });
      expectEnvelope(parseResponses(answer.received)[0], status, type);
    }
    const root = await exchange(port, 'GET // HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', { tls: { ca: certificate.cert } });
    expect(parseResponses(root.received)[0]!.status).toBe(200);
    expect(service.child.exitCode).toBeNull();
  });

  it('plain HTTP to the TLS port gets no HTTP answer', async () => {
    const answer = await get(`http://127.0.0.1:${portOf(service.publicUrl)}/symbols`).then(
      (res) => res.status,
      () => 'refused',
    );
    expect(answer === 'refused' || (typeof answer === 'number' && answer >= 400)).toBe(true);
  });
});

describe('TLS configuration', () => {
  it.each(Object.keys(HALF_CONFIGURED))('%s: the service exits with code 2 and says both go together', async (what) => {
    const error = await halfConfigured.get(what)!;
    expect(error, 'the service must not start').not.toBeNull();
    expect(error!.message).toMatch(/exited \(2\) before listening/);
    expect(error!.message).toContain('TLS_CERT_FILE and TLS_KEY_FILE go together');
  });
});
