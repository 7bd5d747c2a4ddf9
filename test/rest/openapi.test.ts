// GET /openapi.json (issue 12): an OpenAPI 3.1 document generated from the route table, valid by a
// maintained validator, holding every route and nothing else, the status codes docs/api.md §4.1
// and the decisions give each endpoint, bounds and a description for every property, and only words
// a customer can follow: no decision numbers, no repository paths. That every operation's example is
// what the service answers from the RBA's real data: openapi-examples.test.ts.
// Every other HTTP test checks its answers against this document (test/support/openapi-conformance.ts).
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_CSP } from '../../src/rest/docs-pages.js';
import { openApiPath } from '../../src/rest/openapi/document.js';
import { routes } from '../../src/rest/routes.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { tableResolver } from '../support/dns.js';
import { sample, scrape } from '../support/prometheus.js';

let t: TestApp;
let key: string;
let document: any;
beforeAll(async () => {
  // the examples' webhook host is public to the service (nothing here looks up a real name)
  const { resolve } = tableResolver({ 'hooks.example.com': ['93.184.216.34'] });
  t = await startTestApp({ config: { PUBLIC_URL: 'https://rates.example.test' }, webhookNetwork: { resolve, timeoutMs: 200 } });
  await t.importFixture('f11.1-data.csv');
  key = await t.createKey('business');
  document = await (await t.request('/openapi.json')).json();
});
afterAll(() => t.close());

/** Calls `visit` with every object of the document (schemas among them) and where it is. */
function walk(value: any, at: string, visit: (object: any, at: string) => void): void {
  if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${at}[${i}]`, visit));
  else if (value && typeof value === 'object') {
    visit(value, at);
    for (const [name, inner] of Object.entries(value)) walk(inner, `${at}.${name}`, visit);
  }
}

const operations = (doc: any) =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item as object).map((method) => `${method.toUpperCase()} ${path}`));

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(document.servers).toEqual([{ url: 'https://rates.example.test' }]);
  });

  it('holds every route of the table and the two documentation paths, nothing else', () => {
    const expected = [...routes.map((r) => `${r.method} ${openApiPath(r.path)}`), 'GET /openapi.json', 'GET /docs'];
    expect(operations(document).sort()).toEqual(expected.sort());
  });

  // docs/api.md §4.1 and §4.2 (405 is described once, in components.responses).
  const SPEC: Record<string, number[]> = {
    'GET /convert': [200, 400, 401, 429, 503],
    'GET /latest': [200, 401, 503],
    'GET /latest/{currency}': [200, 400, 401, 503],
    'GET /timeseries': [200, 400, 401, 404],
    'GET /{date}': [200, 400, 401, 404],
    'GET /{date}/{currency}': [200, 400, 401, 404],
    'GET /status': [200, 503],
    'POST /api/webhook-subscriptions': [200, 400, 401, 403],
    'GET /api/webhook-subscriptions': [200, 401],
    'DELETE /api/webhook-subscriptions/{id}': [200, 401, 404],
    'POST /api/webhook-subscriptions/{id}/test': [200, 401, 404],
  };
  it.each(Object.entries(SPEC))('%s documents the statuses of the contract', (operation, statuses) => {
    const [method, path] = operation.split(' ') as [string, string];
    const documented = Object.keys(document.paths[path][method.toLowerCase()].responses).map(Number);
    expect(documented).toEqual(expect.arrayContaining(statuses));
  });

  it('403 plan_restricted where D13 applies, 429 where quotas apply, 405 once', () => {
    const errorTypes = (path: string, status: number) =>
      document.paths[path].get.responses[status]?.content['application/json'].schema.properties.error.properties.type.enum;
    for (const path of ['/timeseries', '/fluctuation', '/{date}', '/{date}/{currency}', '/convert'])
      expect(errorTypes(path, 403), path).toContain('plan_restricted');
    for (const path of ['/latest', '/latest/{currency}']) expect(errorTypes(path, 403), path).not.toContain('plan_restricted');
    for (const path of ['/convert', '/latest', '/latest/{currency}', '/timeseries', '/fluctuation', '/{date}', '/{date}/{currency}']) {
      expect(errorTypes(path, 429), path).toEqual(['rate_limit_exceeded']);
      expect(document.paths[path].get.security).toContainEqual({ bearer: [] });
    }
    for (const path of ['/', '/status', '/symbols']) {
      expect(document.paths[path].get.responses[429], path).toBeUndefined();
      expect(document.paths[path].get.security).toEqual([]);
    }
    expect(document.paths['/convert'].get.security).toEqual([{}, { bearer: [] }]);
    expect(JSON.stringify(document.paths)).not.toContain('"405"');
    expect(document.components.responses.MethodNotAllowed.content['application/json'].schema.properties.error.properties.code.const).toBe(405);
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('gives the parameters with their formats and the rate-limit and stale headers', () => {
    const series = document.paths['/timeseries'].get;
    expect(series.parameters.map((p: any) => [p.name, p.in, p.required])).toEqual([
      ['start_date', 'query', true],
      ['end_date', 'query', true],
      ['symbols', 'query', false],
      ['base', 'query', false],
    ]);
    expect(series.parameters[0].schema).toMatchObject({ type: 'string', format: 'date' });
    expect(series.parameters[2].schema).toMatchObject({ type: 'string', maxLength: 256 });
    expect(Object.keys(series.responses[200].headers)).toEqual(
      expect.arrayContaining(['X-RateLimit-Remaining-Monthly', 'X-Data-Stale', 'X-RBA-Source-Date', 'ETag', 'Content-Disposition']),
    );
    expect(Object.keys(series.responses[200].content)).toEqual([
      'application/json',
      'text/csv',
      'application/x-ndjson',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    ]);
    expect(Object.keys(document.paths['/export'].get.responses[200].content)).toEqual([
      'text/csv',
      'application/x-ndjson',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    ]);
    expect(document.paths['/export'].get.responses[406].content['application/json'].schema.properties.error.properties.type.enum).toEqual(['not_acceptable']);
    expect(Object.keys(document.paths['/convert'].get.responses[200].headers)).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Window']));
  });

  it('carries what a user needs beyond the schema in its description', () => {
    const guide: string = document.info.description;
    for (const needed of [
      'one Australian dollar buys',
      'exactly the digits the RBA published',
      'weekend',
      'Sydney',
      'plan_restricted',
      'X-Data-Stale',
      'X-ExchangeRates-Signature',
      'timingSafeEqual',
      'hmac.compare_digest',
      'hash_equals',
      'hmac.Equal',
    ]) {
      expect(guide).toContain(needed);
    }
  });

  it('names no decision number and no file of the repository in any of its texts', () => {
    const texts: string[] = [];
    const collect = (value: unknown): void => {
      if (typeof value === 'string') texts.push(value);
      else if (value && typeof value === 'object') {
        for (const [name, inner] of Object.entries(value)) {
          texts.push(name);
          collect(inner);
        }
      }
    };
    collect(document);
    expect(texts.length).toBeGreaterThan(500);
    expect(texts.filter((text) => /\bD[0-9]+\b/.test(text))).toEqual([]);
    expect(texts.filter((text) => /\b(src|docs|test)\/|\.(md|ts)\b/.test(text))).toEqual([]);
  });

  it('gives no integer the bounds of a safe integer, only bounds of its own', () => {
    const bounds: string[] = [];
    walk(document, '', (schema, at) => {
      for (const bound of ['minimum', 'maximum'] as const) if (Math.abs(schema[bound]) === Number.MAX_SAFE_INTEGER) bounds.push(`${at}.${bound}`);
    });
    expect(bounds).toEqual([]);
    expect(document.components.schemas.UsageResponse.properties.used).toEqual(expect.objectContaining({ type: 'integer', minimum: 0 }));
    expect(document.components.schemas.UsageResponse.properties.used.maximum).toBeUndefined();
  });

  it('describes every property of every schema in a sentence', () => {
    const undescribed: string[] = [];
    let properties = 0;
    walk(document, '', (schema, at) => {
      for (const [name, property] of Object.entries<any>(schema.properties ?? {})) {
        properties++;
        if (!/^[A-Z`].{10,}/.test(property.description ?? '')) undescribed.push(`${at}.${name}`);
      }
    });
    expect(properties).toBeGreaterThan(100);
    expect(undescribed).toEqual([]);
  });

  it('describes each parameter in words, with the value of its operation’s example', () => {
    const convert = document.paths['/convert'].get.parameters;
    expect(convert.map((p: any) => [p.name, p.examples.default.value])).toEqual([
      ['from', 'USD'],
      ['to', 'EUR'],
      ['amount', '100'],
      ['date', '2025-06-30'],
    ]);
    for (const operation of operations(document)) {
      const [method, path] = operation.split(' ') as [string, string];
      for (const parameter of document.paths[path][method.toLowerCase()].parameters ?? []) {
        expect(parameter.description, `${operation} ${parameter.name}`).toMatch(/^[A-Z].{20,}/);
        expect(parameter.schema.pattern, `${operation} ${parameter.name}`).toBeUndefined();
      }
    }
  });
});

describe('GET /openapi.json and GET /docs', () => {
  it('/openapi.json needs no key, is public and cacheable, and answers 304 to its ETag', async () => {
    const response = await t.request('/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toMatch(/^public/);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    const etag = response.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await t.request('/openapi.json', { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    const head = await t.request('/openapi.json', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('is never metered, even with a key', async () => {
    const remaining = async () => Number((await t.request('/latest', { key })).headers.get('x-ratelimit-remaining-monthly'));
    const before = await remaining();
    for (let i = 0; i < 3; i++) expect((await t.request('/openapi.json', { key })).status).toBe(200);
    expect((await t.request('/docs', { key })).status).toBe(200);
    expect(await remaining()).toBe(before - 1);
  });

  it("is counted in the operators' metrics by its path, method and status", async () => {
    const before = await scrape(t);
    for (let i = 0; i < 2; i++) expect((await t.request('/openapi.json')).status).toBe(200);
    expect((await t.request('/docs', { method: 'DELETE' })).status).toBe(405);
    const after = await scrape(t);
    const increase = (labels: Record<string, string>) =>
      Number(sample(after, 'http_requests_total', labels)?.value ?? 0) - Number(sample(before, 'http_requests_total', labels)?.value ?? 0);
    expect(increase({ route: '/openapi.json', method: 'GET', status: '200' })).toBe(2);
    expect(increase({ route: '/docs', method: 'DELETE', status: '405' })).toBe(1);
  });

  it('other methods are 405 with Allow', async () => {
    const response = await t.json('/openapi.json', { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(response.body).toMatchObject({ success: false, error: { code: 405, type: 'method_not_allowed' } });
  });

  it('/docs is the page with the bundled renderer and a same-origin CSP', async () => {
    const response = await t.request('/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(DOCS_CSP);
    const html = await response.text();
    expect(html).toContain('data-url="/openapi.json"');
    expect(html).not.toMatch(/https?:\/\//);
    const renderer = await t.request('/docs/scalar.js');
    expect(renderer.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await renderer.text()).length).toBeGreaterThan(1_000_000);
  });

  it("GET /'s documentation is PUBLIC_URL/docs when DOCUMENTATION_URL is unset, DOCUMENTATION_URL otherwise", async () => {
    expect((await t.json('/')).body.documentation).toBe('https://docs.example.test/api');
    const own = await startTestApp({ config: { PUBLIC_URL: 'https://rates.example.test', DOCUMENTATION_URL: '' } });
    try {
      expect((await own.json('/')).body.documentation).toBe('https://rates.example.test/docs');
    } finally {
      await own.close();
    }
  });
});
