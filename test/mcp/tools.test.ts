// POST /mcp with the SDK's own client against the real listener (D40 in docs/decisions.md): the
// tools listed, each call answered with exactly its REST twin's JSON and counted exactly as its twin.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appForFile } from '../support/app.js';
import { account, stored, NOW } from '../limits/support.js';
import { listenerFor, mcpClient, post, rest, toolCall } from './support.js';

const t = appForFile({ now: NOW }, 'f11.1-data.csv');
const listener = listenerFor(t);
let key: string;
let email: string;
let client: Client;
beforeAll(async () => {
  ({ key, email } = await account(t, 'professional', { billingDay: 20 }));
  client = await mcpClient(listener, key);
});
afterAll(() => client?.close());

const used = async () => (await stored(t, email)).used;

const DATA_TOOLS = ['get_latest_rates', 'get_rates_for_date', 'convert', 'get_timeseries', 'get_fluctuation', 'get_period_averages'];
const FREE_TOOLS = ['list_currencies', 'get_service_status', 'get_publication_calendar', 'get_usage'];

describe('initialize and tools/list', () => {
  it('initializes over Streamable HTTP and lists the ten tools, none of it counted', async () => {
    const before = await used();
    const fresh = await mcpClient(listener, key);
    expect(fresh.getServerVersion()).toMatchObject({ name: 'aud-rates' });
    expect(fresh.getServerCapabilities()).toMatchObject({ tools: {} });
    const { tools } = await fresh.listTools();
    await fresh.ping();
    await fresh.close();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...DATA_TOOLS, ...FREE_TOOLS].sort());
    for (const tool of tools) {
      expect(tool.description!.length).toBeGreaterThan(60);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.annotations).toMatchObject({ readOnlyHint: true });
      // what an agent reads cites no project notes
      expect(JSON.stringify(tool)).not.toMatch(/\bD\d+\b|docs\/|src\//);
    }
    const convert = tools.find((tool) => tool.name === 'convert')!;
    expect(convert.inputSchema.required).toEqual(['from', 'to', 'amount']);
    expect(Object.keys(convert.inputSchema.properties!)).toEqual(['from', 'to', 'amount', 'date']);
    // the twin's parameters, as an agent writes them: a list of codes as an array (or the twin's comma-separated text)
    expect(tools.find((tool) => tool.name === 'get_latest_rates')!.inputSchema.properties!.symbols).toMatchObject({ type: ['array', 'string'] });
    expect(Object.keys(tools.find((tool) => tool.name === 'get_rates_for_date')!.inputSchema.properties!)).toEqual(['date', 'symbols', 'base', 'fallback']);
    expect(await used()).toBe(before);
  });
});

/** Each tool call beside the REST request it twins. */
const TWINS: [tool: string, args: Record<string, unknown>, path: string][] = [
  ['get_latest_rates', {}, '/latest'],
  ['get_latest_rates', { symbols: ['USD', 'EUR', 'JPY'] }, '/latest?symbols=USD,EUR,JPY'],
  ['get_rates_for_date', { date: '2026-05-11' }, '/2026-05-11'],
  ['get_rates_for_date', { date: '2026-05-09' }, '/2026-05-09'],
  ['get_rates_for_date', { date: '2026-05-09', fallback: 'previous' }, '/2026-05-09?fallback=previous'],
  ['get_rates_for_date', { date: '2026-05-09', symbols: ['USD', 'JPY'], fallback: 'nearest' }, '/2026-05-09?symbols=USD,JPY&fallback=nearest'],
  ['convert', { from: 'USD', to: 'EUR', amount: 100 }, '/convert?from=USD&to=EUR&amount=100'],
  ['convert', { from: 'AUD', to: 'JPY', amount: '1234.5678', date: '2026-05-02' }, '/convert?from=AUD&to=JPY&amount=1234.5678&date=2026-05-02'],
  ['convert', { from: 'USD', to: 'TWI', amount: 1 }, '/convert?from=USD&to=TWI&amount=1'],
  [
    'get_timeseries',
    { start_date: '2026-04-01', end_date: '2026-04-30', symbols: ['USD', 'GBP'] },
    '/timeseries?start_date=2026-04-01&end_date=2026-04-30&symbols=USD,GBP',
  ],
  ['get_timeseries', { start_date: '2026-05-02', end_date: '2026-05-03' }, '/timeseries?start_date=2026-05-02&end_date=2026-05-03'],
  ['get_fluctuation', { start_date: '2026-04-01', end_date: '2026-05-11' }, '/fluctuation?start_date=2026-04-01&end_date=2026-05-11'],
  ['get_fluctuation', { start_date: '2025-01-01', end_date: '2026-05-11' }, '/fluctuation?start_date=2025-01-01&end_date=2026-05-11'],
  ['get_period_averages', { period: '2026-04' }, '/averages?period=2026-04'],
  [
    'get_period_averages',
    { start_date: '2026-04-01', end_date: '2026-05-11', symbols: ['USD', 'JPY'], interval: 'month' },
    '/averages?start_date=2026-04-01&end_date=2026-05-11&symbols=USD,JPY&interval=month',
  ],
  ['list_currencies', {}, '/symbols'],
  ['get_service_status', {}, '/status'],
  ['get_publication_calendar', { year: 2026 }, '/calendar?year=2026'],
  ['get_publication_calendar', { start_date: '2026-05-11', end_date: '2026-06-12' }, '/calendar?start_date=2026-05-11&end_date=2026-06-12'],
  ['get_publication_calendar', { year: 2017 }, '/calendar?year=2017'],
];

describe('every tool answers exactly what its REST twin answers, and counts as it does', () => {
  it.each(TWINS)('%s %j is GET %s', async (tool, args, path) => {
    const before = await used();
    const result = await client.callTool({ name: tool, arguments: args });
    const afterTool = await used();
    const twin = await rest(listener, path, key);
    const afterTwin = await used();

    expect(result.content).toEqual([{ type: 'text', text: twin.text }]);
    if (twin.status === 200) {
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual(JSON.parse(twin.text));
    } else {
      expect(result.isError).toBe(true);
      expect(JSON.parse(twin.text)).toMatchObject({ success: false, error: { code: twin.status } });
    }
    expect(afterTool - before, 'units taken by the tool').toBe(afterTwin - afterTool);
    expect(afterTool - before).toBe(twin.status === 200 && DATA_TOOLS.includes(tool) ? 1 : 0);
  });

  it('covers every tool, with a success of each', () => {
    const succeeded = new Set(TWINS.filter(([, , path]) => !/2026-05-09$|TWI|2025-01-01|2017/.test(path)).map(([tool]) => tool));
    // get_usage is twinned below, once the usage records are written
    expect([...succeeded, 'get_usage'].sort()).toEqual([...DATA_TOOLS, ...FREE_TOOLS].sort());
  });

  it('get_usage is GET /usage, never counted, and counts the MCP calls under mcp', async () => {
    await client.callTool({ name: 'get_latest_rates', arguments: { symbols: ['USD'] } });
    await t.app.usage.flush();
    const before = await used();
    const result = await client.callTool({ name: 'get_usage', arguments: {} });
    const twin = await rest(listener, '/usage', key);
    expect(await used()).toBe(before);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(JSON.parse(twin.text));
    expect(result.structuredContent).toMatchObject({ plan: 'professional', used: before, remaining: 50000 - before });
    expect((result.structuredContent as { endpoints: { mcp: number } }).endpoints.mcp).toBeGreaterThan(0);
  });
});

describe('the HTTP answer', () => {
  it("carries the twin's X-RateLimit-* headers and the request id on a counted call", async () => {
    const before = await used();
    const answer = await post(listener, toolCall('get_latest_rates', { symbols: ['USD'] }), { key, headers: { 'X-Request-Id': 'agent-call-1' } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.headers.get('x-request-id')).toBe('agent-call-1');
    expect(answer.headers.get('x-ratelimit-limit-monthly')).toBe('50000');
    expect(answer.headers.get('x-ratelimit-remaining-monthly')).toBe(String(50000 - before - 1));
    expect(answer.headers.get('x-ratelimit-reset')).toBe('2026-05-20T00:00:00.000Z');
    expect(answer.json.result.structuredContent).toMatchObject({ success: true, rates: { USD: expect.any(Number) } });
    const twin = await rest(listener, '/latest?symbols=USD', key);
    expect(twin.headers.get('x-ratelimit-remaining-monthly')).toBe(String(50000 - before - 2));
  });

  it('carries none on a free tool, tools/list or a ping, and a new request id each time', async () => {
    for (const body of [toolCall('list_currencies'), { jsonrpc: '2.0', id: 7, method: 'tools/list' }, { jsonrpc: '2.0', id: 8, method: 'ping' }]) {
      const answer = await post(listener, body, { key });
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({ jsonrpc: '2.0', id: body.id, result: expect.any(Object) });
      expect(answer.headers.get('x-ratelimit-remaining-monthly')).toBeNull();
      expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("answers a tools/call in the SDK's shape, its id echoed as sent and the twin's body written as it is", async () => {
    const twin = await rest(listener, '/latest?symbols=USD,JPY', key);
    for (const id of ['call-α', 0, 9007199254740991]) {
      const answer = await post(listener, { ...toolCall('get_latest_rates', { symbols: ['USD', 'JPY'] }), id }, { key });
      expect(answer.status).toBe(200);
      const result = `{"content":[{"type":"text","text":${JSON.stringify(twin.text)}}],"structuredContent":${twin.text}}`;
      expect(answer.text).toBe(`{"result":${result},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`);
    }
  });

  it("carries the twin's stale-data headers while the data is stale, and none on a free tool", async () => {
    t.setNow('2026-05-12T08:00:01Z'); // two hours and a second past the 12th's publication, which never came
    try {
      const stale = await post(listener, toolCall('get_rates_for_date', { date: '2026-05-11' }), { key });
      const twin = await rest(listener, '/2026-05-11', key);
      expect(twin.headers.get('x-data-stale')).toBe('true');
      for (const answer of [stale, twin]) expect(answer.headers.get('x-rba-source-date')).toBe('2026-05-11');
      expect(stale.headers.get('x-data-stale')).toBe('true');
      const free = await post(listener, toolCall('list_currencies'), { key });
      expect(free.headers.get('x-data-stale')).toBeNull();
    } finally {
      t.setNow(NOW);
    }
    const fresh = await post(listener, toolCall('get_latest_rates'), { key });
    expect(fresh.headers.get('x-data-stale')).toBeNull();
  });

  it('answers a notification 202 with no body', async () => {
    const answer = await post(listener, { jsonrpc: '2.0', method: 'notifications/initialized' }, { key });
    expect(answer.status).toBe(202);
    expect(answer.text).toBe('');
  });
});

describe('metrics and usage analytics', () => {
  it('count each tool call as mcp:<tool> with its status, for the Usage page and the operators', async () => {
    const { key: own, email: ownEmail } = await account(t, 'professional', { billingDay: 20 });
    const agent = await mcpClient(listener, own);
    await agent.callTool({ name: 'get_latest_rates', arguments: {} });
    await agent.callTool({ name: 'get_latest_rates', arguments: { symbols: ['USD'] } });
    await agent.callTool({ name: 'get_rates_for_date', arguments: { date: '2026-05-09' } });
    await agent.callTool({ name: 'list_currencies', arguments: {} });
    await agent.close();
    await t.app.usage.flush();
    const account_ = await t.db.selectFrom('accounts').select('id').where('email', '=', ownEmail).executeTakeFirstOrThrow();
    const rows = await t.db
      .selectFrom('usage_daily')
      .select(['endpoint', 'status', 'requests'])
      .where('account_id', '=', account_.id)
      .orderBy('endpoint')
      .orderBy('status')
      .execute();
    expect(rows.map((r) => ({ ...r, requests: Number(r.requests) }))).toEqual([
      { endpoint: 'mcp:get_latest_rates', status: 200, requests: 2 },
      { endpoint: 'mcp:get_rates_for_date', status: 404, requests: 1 },
      { endpoint: 'mcp:list_currencies', status: 200, requests: 1 },
    ]);
    const report = await t.operatorText(
      '{ usage(from: "2026-05-01", to: "2026-05-31", groupBy: [ENDPOINT]) { groups { edges { node { endpoint requests } } } } }',
    );
    const endpoints = (report.data.usage.groups.edges as { node: { endpoint: string } }[]).map((e) => e.node.endpoint);
    expect(endpoints).toEqual(expect.arrayContaining(['mcp:get_latest_rates', 'mcp:get_rates_for_date', 'mcp:list_currencies']));

    const metrics = await t.app.services.metrics.registry.getSingleMetricAsString('http_requests_total');
    expect(metrics).toMatch(/http_requests_total\{route="mcp:get_latest_rates",method="POST",status="200"\} [1-9]/);
    expect(metrics).toMatch(/http_requests_total\{route="mcp:get_rates_for_date",method="POST",status="404"\} [1-9]/);
    expect(metrics).toMatch(/http_requests_total\{route="\/mcp",method="POST",status="200"\} [1-9]/);
  });
});
