// The example of every operation of the OpenAPI document is a real request and the answer it gets
// from the RBA's real data (seed/): the test builds each request from the document as the docs
// page's "Test Request" and code samples do, sends it with a key to an app holding the seed, and
// compares the answer with the document's example. The answers a route does not give in its own
// file are recorded in src/rest/openapi/examples.json: `npm run docs:examples` runs this file with
// RECORD_EXAMPLES=1, which writes them there instead of failing on a difference.
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiPath } from '../../src/rest/openapi/document.js';
import { representationsOf, type RouteExample } from '../../src/rest/route.js';
import { routes } from '../../src/rest/routes.js';
import { parseRbaFile } from '../../src/rba/index.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { tableResolver } from '../support/dns.js';

const SEED = new URL('../../seed/f11.1-data_2026-05-11.csv', import.meta.url);
const RECORDED = new URL('../../src/rest/openapi/examples.json', import.meta.url);
const RECORDING = process.env.RECORD_EXAMPLES === '1';

let t: TestApp;
let key: string;
let document: any;
beforeAll(async () => {
  // the examples' webhook host is public to the service (nothing here looks up a real name)
  const { resolve } = tableResolver({ 'hooks.example.com': ['93.184.216.34'] });
  // the day after the seed's newest rates (11 May 2026), before that day's publication
  t = await startTestApp({ now: '2026-05-12T03:00:00Z', config: { PUBLIC_URL: 'https://rates.example' }, webhookNetwork: { resolve, timeoutMs: 200 } });
  await t.importTable(parseRbaFile(readFileSync(SEED), 'seed'), 'seed');
  key = await t.createKey('business');
  document = await (await t.request('/openapi.json')).json();
}, 120_000);
afterAll(() => t.close());

interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  examples?: { default?: { value: string; 'x-disabled'?: boolean } };
}

/**
 * The request the docs page makes of an operation (Scalar's rule): each parameter's `default`
 * example, a path segment always, a query parameter when it is required or its example says
 * `x-disabled: false`; the body's example.
 */
function pageRequest(path: string, operation: any): { target: string; body: unknown } {
  const query = new URLSearchParams();
  let target = path;
  for (const parameter of (operation.parameters ?? []) as Parameter[]) {
    const example = parameter.examples?.default;
    const disabled = typeof example?.['x-disabled'] === 'boolean' ? example['x-disabled'] : !parameter.required && parameter.in !== 'path';
    if (disabled) continue;
    expect(example, `${path} ${parameter.name}: a parameter the page sends needs an example`).toBeDefined();
    if (parameter.in === 'path') target = target.replace(`{${parameter.name}}`, encodeURIComponent(example!.value));
    else query.append(parameter.name, example!.value);
  }
  return { target: query.size ? `${target}?${query}` : target, body: operation.requestBody?.content['application/json'].example };
}

/** A request target as what it asks: the decoded path and the query's pairs in order. */
const asked = (target: string) => {
  const url = new URL(target, 'http://example.invalid');
  return { path: decodeURIComponent(url.pathname), query: [...url.searchParams] };
};

/** The ids the service gave, in the place of the example's. */
const SUBSCRIPTION_ID = /^\/api\/webhook-subscriptions\/([^/?]+)/;
const ALERT_ID = /^\/api\/alerts\/([^/?]+)/;

/** `expected` with each field that `varies` names (a dotted path) standing for any value of its example's type. */
function withVarying(expected: unknown, varies: readonly string[] = []): unknown {
  const copy = structuredClone(expected) as any;
  for (const path of varies) {
    const keys = path.split('.');
    const last = keys.pop()!;
    const holder = keys.reduce((value, k) => value[k], copy);
    holder[last] = expect.any(holder[last].constructor);
  }
  return copy;
}

const JSON_TYPE = { 'Content-Type': 'application/json' };
const recordedNow: Record<string, Pick<RouteExample, 'response' | 'csv' | 'ndjson'>> = {};

describe('the example of every operation', () => {
  it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s: the docs page sends its request and gets its answer', async (_name, route) => {
    const own = route.doc!.example;
    const operation = document.paths[openApiPath(route.path)][route.method.toLowerCase()];
    const sent = pageRequest(openApiPath(route.path), operation);
    expect(asked(sent.target)).toEqual(asked(own.request));
    expect(sent.body).toEqual(own.body);
    const shown = (type: string) => operation.responses[200].content[type]?.example;
    if (own.replayedBy) {
      // the document shows it; the test it names sends such requests against real deliveries, checked against the schema
      expect(shown('application/json')).toEqual(own.response);
      return;
    }
    let target = sent.target;
    let expected = own.response;
    let ownKey = key;
    const alertId = ALERT_ID.exec(target)?.[1] ?? (route.path.startsWith('/api/alerts') ? '' : undefined);
    const exampleId = alertId !== undefined ? undefined : (SUBSCRIPTION_ID.exec(target)?.[1] ?? (route.path.startsWith('/api/') ? '' : undefined));
    // each account example on an account of its own, with the alert or subscription of the creation's example
    const created = async (creation: string, id: string, read: (body: any) => string) => {
      ownKey = await t.createKey('business');
      if (id === '' && route.method !== 'GET') return;
      const create = routes.find((r) => r.name === creation)!.doc!.example;
      const made = await t.json(create.request, { key: ownKey, method: 'POST', headers: JSON_TYPE, body: create.body });
      if (id === '') return;
      target = target.replace(id, read(made.body));
      expected = JSON.parse(JSON.stringify(expected).replaceAll(id, read(made.body)));
    };
    if (alertId !== undefined) await created('CreateAlert', alertId, (body) => body.alert.id);
    if (exampleId !== undefined) await created('CreateWebhookSubscription', exampleId, (body) => body.subscription.id);
    if (route.name === 'Usage') ownKey = await t.createKey('business');

    const response = await t.request(target, { key: ownKey, method: route.method, ...(sent.body ? { headers: JSON_TYPE, body: sent.body } : {}) });
    const answer = await response.text();
    expect(response.status, answer).toBe(200);
    const formats = representationsOf(route);
    const files = async (accept: string) => (await t.request(target, { key, headers: { Accept: accept } })).text();
    const record: Pick<RouteExample, 'response' | 'csv' | 'ndjson'> = {};
    if (route.respond) record.response = JSON.parse(answer);
    if (formats.includes('csv')) record.csv = route.respond ? await files('text/csv') : answer;
    if (formats.includes('ndjson')) record.ndjson = await files('application/x-ndjson');

    if (own.response !== undefined) {
      // an answer with fields that vary from one request to another, given in the route's file
      expect(record.response).toEqual(withVarying(expected, own.varies));
      expect(shown('application/json')).toEqual(own.response);
    } else {
      recordedNow[route.name] = record;
      if (RECORDING) return;
      if (route.respond) expect(shown('application/json'), 'the recorded answer: npm run docs:examples').toEqual(record.response);
    }
    if (record.csv !== undefined) expect(shown('text/csv'), 'the recorded answer: npm run docs:examples').toBe(record.csv);
    if (record.ndjson !== undefined) expect(shown('application/x-ndjson'), 'the recorded answer: npm run docs:examples').toBe(record.ndjson);
  });

  it('every answer not given in a route file is recorded', () => {
    const names = routes.filter((r) => !r.doc!.example.replayedBy && r.doc!.example.response === undefined).map((r) => r.name);
    expect(Object.keys(recordedNow).sort()).toEqual([...names].sort());
    const ordered = `${JSON.stringify(Object.fromEntries(names.map((name) => [name, recordedNow[name]])), null, 2)}\n`;
    if (RECORDING) writeFileSync(RECORDED, ordered);
    expect(readFileSync(RECORDED, 'utf8')).toBe(ordered);
  });
});
