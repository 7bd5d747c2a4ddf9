// One delivery attempt (D27, D28, D30 in docs/decisions.md) against a real HTTPS receiver on
// 127.0.0.1. Names reach it through an injected resolver; private targets need allowPrivate (D34),
// as in tests of the service.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWebhookSender, RESPONSE_BODY_KEPT_BYTES, type SenderOptions, type WebhookRequest } from '../../src/webhooks/send.js';
import { resolveWebhookTarget, type Resolver } from '../../src/webhooks/target.js';
import { OPENSSL_AVAILABLE } from '../support/certificate.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { tableResolver } from '../support/dns.js';

const TIMEOUT_MS = 300;

describe.skipIf(!OPENSSL_AVAILABLE)('createWebhookSender', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });
  beforeEach(() => receiver.clear());

  const { resolve: loopback } = tableResolver({ 'receiver.test': ['127.0.0.1'], localhost: ['127.0.0.1'], 'other.test': ['127.0.0.1'] });

  function sender(overrides: Partial<SenderOptions> = {}, resolve: Resolver = loopback) {
    return createWebhookSender({
      policy: { allowPrivate: true, resolve, resolveTimeoutMs: 1000 },
      timeoutMs: TIMEOUT_MS,
      maxResponseBytes: 16 * 1024,
      ca: receiver.ca,
      ...overrides,
    });
  }
  const body = JSON.stringify({ event: 'rates.test', date: '2026-01-02', base: 'AUD', rates: { USD: '0.6543' } });
  const request = (path: string, host = 'receiver.test'): WebhookRequest => ({
    url: receiver.url(path, host),
    body,
    headers: { 'content-type': 'application/json', 'x-exchangerates-event': 'rates.test' },
  });

  it('a 200 is ok; the receiver gets the POST with the body, the headers and a Content-Length', async () => {
    const result = await sender()(request('/ok'));
    expect(result).toEqual({ ok: true, status: 200, error: null, responseBody: expect.any(String) });
    expect(receiver.deliveries).toHaveLength(1);
    const [delivery] = receiver.deliveries;
    expect(delivery).toMatchObject({ path: '/ok', rawBody: body, json: JSON.parse(body), answeredWith: 200, servername: 'receiver.test' });
    expect(delivery!.headers).toMatchObject({
      'content-type': 'application/json',
      'x-exchangerates-event': 'rates.test',
      'content-length': String(Buffer.byteLength(body)),
      host: `receiver.test:${receiver.port}`,
    });
  });

  it('any 2xx is ok', async () => {
    receiver.behave('/accepted', { status: 202 });
    receiver.behave('/no-content', { status: 204 });
    await expect(sender()(request('/accepted'))).resolves.toEqual({ ok: true, status: 202, error: null, responseBody: expect.any(String) });
    await expect(sender()(request('/no-content'))).resolves.toEqual({ ok: true, status: 204, error: null, responseBody: expect.any(String) });
  });

  it('the signature the caller puts in the headers is what a subscriber checks against the raw body', async () => {
    const { createHmac } = await import('node:crypto');
    const secret = 'whsec_test';
    receiver.setSecret('/signed', secret);
    receiver.setSecret('/badly-signed', secret);
    const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    const send = sender();
    await send({ ...request('/signed'), headers: { ...request('/signed').headers, 'x-exchangerates-signature': signature } });
    await send({ ...request('/badly-signed'), headers: { ...request('/badly-signed').headers, 'x-exchangerates-signature': 'sha256=00' } });
    await send(request('/unsigned-path'));
    expect(receiver.deliveries.map((d) => [d.path, d.signatureValid])).toEqual([
      ['/signed', true],
      ['/badly-signed', false],
      ['/unsigned-path', null],
    ]);
  });

  it('a 500 is not ok, with status 500', async () => {
    receiver.behave('/fail', { status: 500 });
    await expect(sender()(request('/fail'))).resolves.toEqual({ ok: false, status: 500, error: 'HTTP 500', responseBody: expect.any(String) });
  });

  it('modes can be given in sequence: two 500s, then 200', async () => {
    receiver.behave('/flaky', { status: 500 }, { status: 503 }, { status: 200 });
    const send = sender();
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await send(request('/flaky'))).status);
    expect(statuses).toEqual([500, 503, 200, 200]);
    expect(receiver.deliveries.map((d) => d.answeredWith)).toEqual([500, 503, 200, 200]);
  });

  it('a 302 is not ok, has status 302, and the redirect target is not requested', async () => {
    receiver.behave('/moved', { redirect: receiver.url('/redirect-target') });
    const result = await sender()(request('/moved'));
    expect(result).toEqual({ ok: false, status: 302, error: 'redirect (302) not followed', responseBody: expect.any(String) });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(receiver.deliveries.map((d) => d.path)).toEqual(['/moved']);
  });

  it('a receiver that never answers fails after the timeout, with no status', async () => {
    receiver.behave('/hang', 'hang');
    const started = Date.now();
    const result = await sender()(request('/hang'));
    const elapsed = Date.now() - started;
    expect(result).toEqual({ ok: false, status: null, error: `timed out after ${TIMEOUT_MS} ms waiting for the answer`, responseBody: null });
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 1000);
    expect(receiver.deliveries.map((d) => d.answeredWith)).toEqual(['hang']);
    // The sender closed its socket: the receiver is not left holding the connection.
    await expect.poll(() => receiver.openConnections(), { timeout: 1000 }).toBe(0);
  });

  it('a 200 whose body never ends fails after the timeout: the timeout covers the whole attempt', async () => {
    receiver.behave('/slow-body', { status: 200, bodyBytes: 10, hold: true });
    const started = Date.now();
    const result = await sender()(request('/slow-body'));
    expect(result).toEqual({ ok: false, status: 200, error: `timed out after ${TIMEOUT_MS} ms waiting for the response body`, responseBody: 'x'.repeat(10) });
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1000);
    await expect.poll(() => receiver.openConnections(), { timeout: 1000 }).toBe(0);
  });

  it('a connection closed without an answer fails with no status', async () => {
    receiver.behave('/close', 'close');
    const result = await sender()(request('/close'));
    expect(result).toEqual({ ok: false, status: null, error: 'connection closed without an answer', responseBody: null });
    expect(receiver.deliveries.map((d) => d.answeredWith)).toEqual(['close']);
  });

  it("the receiver's body is kept as text up to the bound, an invalid byte or NUL as U+FFFD", async () => {
    receiver.behave('/says', { status: 400, body: 'bad\u0000 request: ünknown' });
    expect(await sender()(request('/says'))).toEqual({ ok: false, status: 400, error: 'HTTP 400', responseBody: 'bad\uFFFD request: ünknown' });
    receiver.behave('/says', { status: 400, body: `${'x'.repeat(RESPONSE_BODY_KEPT_BYTES - 1)}é` });
    expect((await sender()(request('/says'))).responseBody).toBe(`${'x'.repeat(RESPONSE_BODY_KEPT_BYTES - 1)}\uFFFD`);
  });

  it('a 5 MB response body is not read: the attempt is ok as soon as maxResponseBytes have come', async () => {
    receiver.behave('/big', { status: 200, bodyBytes: 5 * 1024 * 1024 });
    const started = Date.now();
    const result = await sender({ timeoutMs: 10_000 })(request('/big'));
    expect(result).toEqual({ ok: true, status: 200, error: null, responseBody: 'x'.repeat(RESPONSE_BODY_KEPT_BYTES) });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('a body that keeps coming does not hold the attempt once maxResponseBytes have come', async () => {
    // 64 KiB and then the response stays open: only reading to the end would wait for the timeout.
    receiver.behave('/endless', { status: 200, bodyBytes: 64 * 1024, hold: true });
    const started = Date.now();
    await expect(sender({ timeoutMs: 5000, maxResponseBytes: 16 * 1024 })(request('/endless'))).resolves.toEqual({
      ok: true,
      status: 200,
      error: null,
      responseBody: expect.any(String),
    });
    expect(Date.now() - started).toBeLessThan(2000);
    await expect(sender({ maxResponseBytes: 1024 * 1024 })(request('/endless'))).resolves.toMatchObject({
      ok: false,
      status: 200,
      responseBody: expect.any(String),
    });
  });

  it('a header the caller built wrongly fails the attempt without throwing', async () => {
    const result = await sender()({ ...request('/bad-header'), headers: { 'x-bad': 'a\nb' } });
    expect(result).toEqual({ ok: false, status: null, error: 'request not sent (ERR_INVALID_CHAR)', responseBody: null });
    expect(receiver.deliveries).toEqual([]);
  });

  it('a connection refused fails with no status', async () => {
    const closed = await startWebhookReceiver();
    const url = closed.url('/gone', 'receiver.test');
    await closed.close();
    await expect(sender()({ ...request('/gone'), url })).resolves.toEqual({ ok: false, status: null, error: 'connection refused', responseBody: null });
  });

  describe('target checks at every attempt (D26, D30)', () => {
    it('a name resolving to a private address is not contacted when private targets are not allowed', async () => {
      const send = sender({ policy: { allowPrivate: false, resolve: loopback, resolveTimeoutMs: 1000 } });
      const result = await send(request('/private'));
      expect(result).toEqual({ ok: false, status: null, error: 'url host receiver.test resolves to an address that is not public', responseBody: null });
      const literal = await send(request('/private', '127.0.0.1'));
      expect(literal).toEqual({ ok: false, status: null, error: 'url host 127.0.0.1 is not a public address', responseBody: null });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(receiver.deliveries).toEqual([]);
    });

    it('DNS rebinding: accepted as public when checked, 127.0.0.1 at the delivery: refused, nothing sent', async () => {
      // The first answer is only checked, never connected to: these tests send nothing off this machine.
      const answers = [['93.184.216.34'], ['127.0.0.1']];
      let calls = 0;
      const rebinding: Resolver = async () => answers[Math.min(calls++, answers.length - 1)]!;
      const policy = { allowPrivate: false, resolve: rebinding, resolveTimeoutMs: 1000 };
      const url = receiver.url('/rebind', 'receiver.test');
      await expect(resolveWebhookTarget(new URL(url), policy)).resolves.toEqual(['93.184.216.34']);
      const result = await sender({ policy })({ ...request('/rebind'), url });
      expect(result).toEqual({ ok: false, status: null, error: 'url host receiver.test resolves to an address that is not public', responseBody: null });
      expect(calls).toBe(2);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(receiver.deliveries).toEqual([]);
    });

    it('the socket connects to the address just checked: one resolution per attempt, no second lookup', async () => {
      // Answers change at every call: 127.0.0.1 (the receiver) first, then 127.0.0.2 (nobody listens).
      // Were the socket to look the name up again, the first attempt would go to 127.0.0.2 and fail.
      let calls = 0;
      const changing: Resolver = async () => (calls++ === 0 ? ['127.0.0.1'] : ['127.0.0.2']);
      const send = sender({}, changing);
      await expect(send(request('/pinned'))).resolves.toEqual({ ok: true, status: 200, error: null, responseBody: expect.any(String) });
      expect(calls).toBe(1);
      await expect(send(request('/pinned'))).resolves.toEqual({ ok: false, status: null, error: 'connection refused', responseBody: null });
      expect(calls).toBe(2);
      expect(receiver.deliveries).toHaveLength(1);
    });

    it('a resolver that never answers fails the attempt after its own timeout', async () => {
      const never: Resolver = () => new Promise<string[]>(() => {});
      const send = sender({ policy: { allowPrivate: true, resolve: never, resolveTimeoutMs: 100 } });
      await expect(send(request('/never'))).resolves.toEqual({
        ok: false,
        status: null,
        error: 'url host receiver.test did not resolve within 100 ms',
        responseBody: null,
      });
    });

    it('an unknown name, an http URL or nonsense fails without throwing', async () => {
      const send = sender();
      await expect(send(request('/x', 'nowhere.test'))).resolves.toEqual({
        ok: false,
        status: null,
        error: 'url host nowhere.test does not resolve',
        responseBody: null,
      });
      await expect(send({ ...request('/x'), url: `http://127.0.0.1:${receiver.port}/x` })).resolves.toEqual({
        ok: false,
        status: null,
        error: 'url must use https',
        responseBody: null,
      });
      await expect(send({ ...request('/x'), url: 'not a url' })).resolves.toEqual({ ok: false, status: null, error: 'url is not valid', responseBody: null });
      expect(receiver.deliveries).toEqual([]);
    });
  });

  describe('certificate checks', () => {
    it('without the receiver CA the attempt fails in TLS and nothing is delivered', async () => {
      const send = createWebhookSender({ policy: { allowPrivate: true, resolve: loopback, resolveTimeoutMs: 1000 }, timeoutMs: 2000, maxResponseBytes: 1024 });
      const result = await send(request('/untrusted'));
      expect(result).toEqual({ ok: false, status: null, error: 'TLS handshake failed (DEPTH_ZERO_SELF_SIGNED_CERT)', responseBody: null });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(receiver.deliveries).toEqual([]);
    });

    it('the host name is checked against the certificate and sent as SNI', async () => {
      const send = sender();
      await expect(send(request('/sni', 'localhost'))).resolves.toEqual({ ok: true, status: 200, error: null, responseBody: expect.any(String) });
      expect(receiver.deliveries.map((d) => d.servername)).toEqual(['localhost']);
      // other.test resolves to the same receiver, but the certificate does not name it.
      await expect(send(request('/sni', 'other.test'))).resolves.toEqual({
        ok: false,
        status: null,
        error: 'TLS handshake failed (ERR_TLS_CERT_ALTNAME_INVALID)',
        responseBody: null,
      });
      expect(receiver.deliveries).toHaveLength(1);
    });

    it('an IP literal is checked against the certificate IP and sends no SNI', async () => {
      await expect(sender()(request('/ip', '127.0.0.1'))).resolves.toEqual({ ok: true, status: 200, error: null, responseBody: expect.any(String) });
      expect(receiver.deliveries.map((d) => d.servername)).toEqual([null]);
    });
  });
});
