// Every refusal of POST /mcp (D40, D11, D12, D20 in docs/decisions.md): the key's as the REST API
// gives them (401 in the envelope with WWW-Authenticate), the twin's as tool results with isError
// holding its envelope, the protocol's as JSON-RPC errors; and the stored count after each.
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { graphql } from '../../src/graphql.js';
import { appForFile } from '../support/app.js';
import { account, stored, NOW, MONTHLY, PERIOD } from '../limits/support.js';
import { listenerFor, mcpClient, post, rest, toolCall, type RawAnswer } from './support.js';

const t = appForFile({ now: NOW }, 'f11.1-data.csv');
const listener = listenerFor(t);

const REVOKE = graphql('mutation($p: Text!) { revokeApiKey(prefix: $p) { id } }');
const SET_STATUS = graphql('mutation($e: EmailAddress!, $s: AccountStatus!) { setAccountStatus(email: $e, status: $s) { status } }');
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

function expectEnvelope(answer: RawAnswer, status: number, type: string, info?: RegExp): void {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.json).toEqual({ success: false, error: { code: status, type, info: expect.any(String) } });
  if (info) expect(answer.json.error.info).toMatch(info);
  expect(answer.headers.get('x-request-id')).toBeTruthy();
}

function expectRpcError(answer: RawAnswer, status: number, code: number): void {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.json).toMatchObject({ jsonrpc: '2.0', error: { code, message: expect.any(String) } });
}

/** The tool result of a raw tools/call: an error result holding the envelope, read back. */
function toolError(answer: RawAnswer): { status: number; type: string; info: string; text: string } {
  expect(answer.status, answer.text).toBe(200);
  const { result } = answer.json;
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const text = result.content[0].text as string;
  const envelope = JSON.parse(text);
  expect(envelope).toEqual({ success: false, error: { code: expect.any(Number), type: expect.any(String), info: expect.any(String) } });
  return { status: envelope.error.code, type: envelope.error.type, info: envelope.error.info, text };
}

describe('the key, as the REST API checks it', () => {
  it('no key: 401 unauthorized in the envelope with WWW-Authenticate: Bearer, for every message', async () => {
    for (const body of [INITIALIZE, toolCall('get_latest_rates'), toolCall('list_currencies')]) {
      const answer = await post(listener, body);
      expectEnvelope(answer, 401, 'unauthorized', /API key is required/);
      expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  it('a malformed, a revoked key and a suspended account are refused; the SDK client cannot connect; nothing counted', async () => {
    expectEnvelope(await post(listener, INITIALIZE, { key: 'not-a-key' }), 401, 'invalid_api_key');

    const revoked = await account(t, 'professional');
    await t.operator(REVOKE, { p: revoked.key.split('_')[0]! });
    const answer = await post(listener, toolCall('get_latest_rates'), { key: revoked.key });
    expectEnvelope(answer, 401, 'invalid_api_key');
    expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    await expect(mcpClient(listener, revoked.key)).rejects.toThrow();
    expect((await stored(t, revoked.email)).used).toBe(0);

    const suspended = await account(t, 'professional');
    expect((await t.operator(SET_STATUS, { e: suspended.email, s: 'suspended' })).errors).toBeUndefined();
    expectEnvelope(await post(listener, toolCall('get_latest_rates'), { key: suspended.key }), 401, 'account_suspended');
    await expect(mcpClient(listener, suspended.key)).rejects.toThrow();
    expect((await stored(t, suspended.email)).used).toBe(0);
  });
});

describe('the HTTP rules of the public edge', () => {
  it('GET and DELETE are 405 in the envelope with Allow: POST, before the key is asked for', async () => {
    const { key } = await account(t, 'professional');
    for (const method of ['GET', 'DELETE']) {
      for (const options of [{ method }, { method, key }]) {
        const answer = await post(listener, undefined, options);
        expectEnvelope(answer, 405, 'method_not_allowed');
        expect(answer.headers.get('allow')).toBe('POST, OPTIONS');
      }
    }
  });

  it('plain HTTP from another machine is 403 https_required; over TLS it is answered', async () => {
    const { key } = await account(t, 'professional');
    const init = {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json' },
      body: JSON.stringify(INITIALIZE),
    };
    const plain = await t.app.web.fetch('http://rates.test/mcp', init, { req: { socket: { remoteAddress: '203.0.113.9' } } });
    expect(plain.status).toBe(403);
    expect((await plain.json()).error.type).toBe('https_required');
    const tls = await t.app.web.fetch('https://rates.test/mcp', init, { req: { socket: { remoteAddress: '203.0.113.9', encrypted: true } } });
    expect(tls.status).toBe(200);
    expect((await tls.json()).result.serverInfo.name).toBe('aud-rates');
  });

  it('a 1 MB body is refused cleanly (400 in the envelope), and the listener answers on', async () => {
    const { key, email } = await account(t, 'professional');
    const huge = JSON.stringify({ ...toolCall('get_latest_rates'), padding: 'x'.repeat(1024 * 1024) });
    expectEnvelope(await post(listener, huge, { key }), 400, 'bad_request', /too large/);
    expectEnvelope(await post(listener, huge), 401, 'unauthorized');
    expect((await post(listener, toolCall('get_latest_rates'), { key })).json.result.isError).toBeFalsy();
    expect((await stored(t, email)).used).toBe(1);
  });
});

describe('protocol errors are JSON-RPC errors, and never count', () => {
  it('an unknown tool', async () => {
    const { key, email } = await account(t, 'professional');
    const client = await mcpClient(listener, key);
    const refused = await client.callTool({ name: 'get_rates', arguments: {} }).catch((error: unknown) => error);
    await client.close();
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((refused as McpError).message).toMatch(/Unknown tool 'get_rates'.*get_latest_rates/);
    const raw = await post(listener, toolCall('nope'), { key });
    expectRpcError(raw, 200, ErrorCode.InvalidParams);
    expect((await stored(t, email)).used).toBe(0);
  });

  it.each([
    ['a body that is not JSON', '{"jsonrpc": "2.0", "id": 1, "method": ', 400, ErrorCode.ParseError],
    ['JSON that is no JSON-RPC message', '{"hello": "world"}', 400, ErrorCode.ParseError],
    ['a JSON string', '"tools/call"', 400, ErrorCode.ParseError],
    ['null', 'null', 400, ErrorCode.ParseError],
    ['a batch', JSON.stringify([toolCall('get_latest_rates'), toolCall('get_latest_rates')]), 400, ErrorCode.InvalidRequest],
    ['an empty batch', '[]', 400, ErrorCode.InvalidRequest],
    ['an unknown method', JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'resources/list' }), 200, ErrorCode.MethodNotFound],
    ['a tools/call with a field JSON-RPC does not have', JSON.stringify({ ...toolCall('get_latest_rates'), extra: 1 }), 400, ErrorCode.ParseError],
    ['a tools/call with a fractional id', JSON.stringify({ ...toolCall('get_latest_rates'), id: 1.5 }), 400, ErrorCode.ParseError],
    // a call the server cannot read is invalid params, said in one sentence
    ['tools/call without a name', JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: {} }), 200, ErrorCode.InvalidParams],
    ['a name that is an object', JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: { a: 1 } } }), 200, ErrorCode.InvalidParams],
    [
      'arguments that are a list',
      JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'convert', arguments: [1] } }),
      200,
      ErrorCode.InvalidParams,
    ],
    [
      'arguments that are null',
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'convert', arguments: null } }),
      200,
      ErrorCode.InvalidParams,
    ],
    [
      'arguments that are text',
      JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'convert', arguments: 'from=USD' } }),
      200,
      ErrorCode.InvalidParams,
    ],
  ])('%s', async (_, body, status, code) => {
    const { key, email } = await account(t, 'professional');
    const answer = await post(listener, body, { key });
    expectRpcError(answer, status, code);
    // one sentence, not a validation dump
    expect(answer.json.error.message).not.toMatch(/\n/);
    expect((await stored(t, email)).used).toBe(0);
  });

  it('a body not sent as JSON, or a client that does not accept JSON and event streams: the transport refuses', async () => {
    const { key, email } = await account(t, 'professional');
    expectRpcError(await post(listener, toolCall('get_latest_rates'), { key, headers: { 'Content-Type': 'text/plain' } }), 415, -32000);
    expectRpcError(await post(listener, toolCall('get_latest_rates'), { key, headers: { Accept: 'application/json' } }), 406, -32000);
    expectRpcError(await post(listener, toolCall('get_latest_rates'), { key, headers: { 'Mcp-Protocol-Version': '1999-01-01' } }), 400, -32000);
    expect((await stored(t, email)).used).toBe(0);
  });

  it('a tools/call sent as a notification (no id) is taken in, 202, and neither answered nor counted', async () => {
    const { key, email } = await account(t, 'professional');
    const notification: Record<string, unknown> = toolCall('get_latest_rates');
    delete notification.id;
    const answer = await post(listener, notification, { key });
    expect(answer.status).toBe(202);
    expect(answer.text).toBe('');
    expect((await stored(t, email)).used).toBe(0);
  });
});

const RANGE = { start_date: '2026-05-01', end_date: '2026-05-11' };
const RANGE_QUERY = '?start_date=2026-05-01&end_date=2026-05-11';
const RANGE_TOOLS = [
  ['get_timeseries', '/timeseries'],
  ['get_fluctuation', '/fluctuation'],
] as const;

describe("the twin's refusals are tool results with isError and its envelope", () => {
  /** Calls the tool and its twin; both refuse alike and take nothing. */
  async function refusedAlike(key: string, email: string, tool: string, args: Record<string, unknown>, path: string, status: number, type: string) {
    const before = (await stored(t, email)).used;
    const answer = await post(listener, toolCall(tool, args), { key });
    const refused = toolError(answer);
    const twin = await rest(listener, path, key);
    expect(twin.status).toBe(status);
    expect(refused).toMatchObject({ status, type, text: twin.text });
    // the twin's quota headers too: where the quota stands, as the refusal left it
    const quotaHeaders = (headers: Headers) => Object.fromEntries([...headers].filter(([name]) => name.startsWith('x-ratelimit-')));
    expect(quotaHeaders(twin.headers)).toHaveProperty('x-ratelimit-remaining-monthly');
    expect(quotaHeaders(answer.headers)).toEqual(quotaHeaders(twin.headers));
    expect((await stored(t, email)).used).toBe(before);
  }

  it('Free asking for a date: 403 plan_restricted, from every dated tool', async () => {
    const { key, email } = await account(t, 'free');
    await refusedAlike(key, email, 'get_rates_for_date', { date: '2026-05-11' }, '/2026-05-11', 403, 'plan_restricted');
    await refusedAlike(
      key,
      email,
      'convert',
      { from: 'USD', to: 'EUR', amount: 5, date: '2026-05-11' },
      '/convert?from=USD&to=EUR&amount=5&date=2026-05-11',
      403,
      'plan_restricted',
    );
    for (const [tool, path] of RANGE_TOOLS) await refusedAlike(key, email, tool, RANGE, `${path}${RANGE_QUERY}`, 403, 'plan_restricted');
  });

  it('Starter past its 30-day window: 403; inside it, answered and counted', async () => {
    const { key, email } = await account(t, 'starter');
    await refusedAlike(key, email, 'get_rates_for_date', { date: '2026-03-02' }, '/2026-03-02', 403, 'plan_restricted');
    await refusedAlike(key, email, 'get_timeseries', RANGE, `/timeseries${RANGE_QUERY}`, 403, 'plan_restricted');
    const answered = await post(listener, toolCall('get_rates_for_date', { date: '2026-05-11' }), { key });
    expect(answered.json.result.structuredContent).toMatchObject({ success: true, date: '2026-05-11' });
    expect((await stored(t, email)).used).toBe(1);
  });

  it('quota used up: 429 rate_limit_exceeded as a tool error, with the quota headers; the free tools still answer', async () => {
    const { key, email } = await account(t, 'professional', { billingDay: 20, used: MONTHLY.professional, period: PERIOD });
    const answer = await post(listener, toolCall('get_latest_rates'), { key });
    const refused = toolError(answer);
    expect(refused).toMatchObject({ status: 429, type: 'rate_limit_exceeded', info: expect.stringMatching(/Monthly quota of 50000/) });
    expect(answer.headers.get('x-ratelimit-remaining-monthly')).toBe('0');
    expect(answer.headers.get('x-ratelimit-limit-monthly')).toBe('50000');
    // when to try again, as the twin's Retry-After says it: in the result an agent reads, and on the answer
    const twin = await rest(listener, '/latest', key);
    const retryAfter = twin.headers.get('retry-after')!;
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(answer.headers.get('retry-after')).toBe(retryAfter);
    expect(answer.json.result.content[1]).toEqual({ type: 'text', text: `Try again in ${retryAfter} seconds.` });
    await refusedAlike(key, email, 'convert', { from: 'USD', to: 'EUR', amount: 1 }, '/convert?from=USD&to=EUR&amount=1', 429, 'rate_limit_exceeded');
    expect((await post(listener, toolCall('list_currencies'), { key })).json.result.structuredContent.success).toBe(true);
    expect((await post(listener, toolCall('get_service_status'), { key })).json.result.structuredContent.status).toBe('operational');
    expect((await stored(t, email)).used).toBe(MONTHLY.professional);
  });

  it('Free allowance used up: 429 as a tool error', async () => {
    const { key, email } = await account(t, 'free', { used: MONTHLY.free });
    await refusedAlike(key, email, 'get_latest_rates', { symbols: ['USD'] }, '/latest?symbols=USD', 429, 'rate_limit_exceeded');
  });

  it('no data: 404 not_found', async () => {
    const { key, email } = await account(t, 'professional');
    await refusedAlike(key, email, 'get_rates_for_date', { date: '2026-05-10' }, '/2026-05-10', 404, 'not_found');
    await refusedAlike(
      key,
      email,
      'get_timeseries',
      { start_date: '2026-05-09', end_date: '2026-05-10' },
      '/timeseries?start_date=2026-05-09&end_date=2026-05-10',
      404,
      'not_found',
    );
    // periods past the data up to the last a name can give, whose end is 9999-12-31
    for (const period of ['9999', '9999-12', '9999-Q4', '9999-H2']) {
      await refusedAlike(key, email, 'get_period_averages', { period }, `/averages?period=${period}`, 404, 'not_found');
    }
  });
});

describe('bad arguments of every tool: 400 bad_request as a tool error, nothing counted', () => {
  // Values the twin checks: the same envelope as its REST request.
  it.each([
    ['get_latest_rates', { symbols: ['XXX'] }, '/latest?symbols=XXX'],
    ['get_latest_rates', { symbols: [] }, '/latest?symbols='],
    ['get_rates_for_date', { date: '2024-02-30' }, '/2024-02-30'],
    ['get_rates_for_date', { date: '2026-05-11', fallback: 'sideways' }, '/2026-05-11?fallback=sideways'],
    ['convert', { from: 'USD', to: 'EUR', amount: -5 }, '/convert?from=USD&to=EUR&amount=-5'],
    ['convert', { from: 'USD', to: 'EUR', amount: '1e5' }, '/convert?from=USD&to=EUR&amount=1e5'],
    ['convert', { from: 'USD', to: 'EUR', amount: 1e21 }, '/convert?from=USD&to=EUR&amount=1e%2B21'],
    ['convert', { from: 'US', to: 'EUR', amount: 1 }, '/convert?from=US&to=EUR&amount=1'],
    ['convert', { from: 'USD', to: 'EUR', amount: 1, date: 'yesterday' }, '/convert?from=USD&to=EUR&amount=1&date=yesterday'],
    ['get_timeseries', { start_date: '2026-05-10', end_date: '2026-05-01' }, '/timeseries?start_date=2026-05-10&end_date=2026-05-01'],
    ['get_fluctuation', { start_date: '2026-5-1', end_date: '2026-05-11' }, '/fluctuation?start_date=2026-5-1&end_date=2026-05-11'],
    ['get_period_averages', { period: 'FY24' }, '/averages?period=FY24'],
    ['get_period_averages', { period: '0000' }, '/averages?period=0000'],
    [
      'get_period_averages',
      { period: '2026', start_date: '2026-01-01', end_date: '2026-01-31' },
      '/averages?period=2026&start_date=2026-01-01&end_date=2026-01-31',
    ],
    ['get_period_averages', { period: '2026-04', interval: 'week' }, '/averages?period=2026-04&interval=week'],
  ])('%s %j as GET %s', async (tool, args, path) => {
    const { key, email } = await account(t, 'professional');
    const refused = toolError(await post(listener, toolCall(tool, args), { key }));
    const twin = await rest(listener, path, key);
    expect(twin.status).toBe(400);
    expect(refused).toMatchObject({ status: 400, type: 'bad_request', text: twin.text });
    expect((await stored(t, email)).used).toBe(0);
  });

  // Arguments that make no request of the twin: refused by the tool, naming the argument.
  it.each([
    ['get_latest_rates', { nope: 'x' }, /Unknown argument 'nope' for get_latest_rates: it takes symbols, base/],
    ['get_latest_rates', { symbols: { USD: true } }, /Argument 'symbols' must be text, a number or a list of text/],
    ['get_rates_for_date', {}, /Missing required parameter 'date'/],
    ['get_rates_for_date', { date: 20260511 }, /Invalid date '20260511'/],
    ['convert', { from: 'USD', to: 'EUR' }, /Missing required parameter 'amount'/],
    ['convert', { from: 'USD', to: 'EUR', amount: true }, /Argument 'amount' must be text, a number or a list of text/],
    ['get_timeseries', { start_date: '2026-05-01' }, /Missing required parameter 'end_date'/],
    ['get_fluctuation', { start_date: null, end_date: '2026-05-11' }, /Missing required parameter 'start_date'/],
    ['list_currencies', { verbose: true }, /Unknown argument 'verbose' for list_currencies: it takes none/],
    ['get_service_status', { x: 1 }, /Unknown argument 'x'/],
  ])('%s %j', async (tool, args, info) => {
    const { key, email } = await account(t, 'professional');
    expect(toolError(await post(listener, toolCall(tool, args), { key }))).toMatchObject({
      status: 400,
      type: 'bad_request',
      info: expect.stringMatching(info),
    });
    expect((await stored(t, email)).used).toBe(0);
  });
});
