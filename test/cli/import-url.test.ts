// `cli import <url>`: the file is fetched over HTTP (from a node:http server in this test) and
// imported like a local one; a URL answering 404 is refused with one `{"error"}` object and
// nothing stored. The CLI runs as a real child process opening the database itself.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliStore, fixturePath, oneJson, runCli, succeeded, type CliStore } from '../support/cli.js';

let stores: CliStore[] = [];
let server: Server;
let base: string;
const requests: string[] = [];

beforeAll(async () => {
  stores = await Promise.all([createCliStore(), createCliStore()]);
  server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (req.url !== '/statistics/tables/csv/f11.1-data.csv') {
      res.writeHead(404, { 'Content-Type': 'text/html' }).end('<!doctype html><title>Not found</title>');
      return;
    }
    const body = readFileSync(fixturePath('f11.1-data.csv'));
    res.writeHead(200, { 'Content-Type': 'text/csv', 'Content-Length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await Promise.all(stores.map((s) => s.close()));
});

describe.concurrent('cli import from a URL', () => {
  it('imports a file served over HTTP and records the URL as its source', { timeout: 60_000 }, async () => {
    const store = stores[0]!;
    const url = `${base}/statistics/tables/csv/f11.1-data.csv`;
    const summary = succeeded(await runCli(['import', url], store.env));
    expect(summary).toEqual({ days: 8, inserted: 8, updated: 0, firstDate: '2023-01-03', lastDate: '2026-05-11' });
    expect(requests).toContain('GET /statistics/tables/csv/f11.1-data.csv');
    const { counts, publications } = await store.withDb(async (db) => ({
      counts: await db
        .selectFrom('rates')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
      publications: await db.selectFrom('publications').select(['source', 'format', 'inserted']).execute(),
    }));
    expect(Number(counts.n)).toBe(5 * 19 + 3 * 20);
    expect(publications).toEqual([{ source: url, format: 'csv', inserted: 8 }]);
  });

  it('refuses a URL that answers 404 and stores nothing', { timeout: 60_000 }, async () => {
    const store = stores[1]!;
    const url = `${base}/statistics/tables/csv/f11.1-data-missing.csv`;
    const result = await runCli(['import', url], store.env);
    const output = oneJson(result);
    expect(result.code).toBe(1);
    expect(Object.keys(output)).toEqual(['error']);
    expect(output.error).toContain('404');
    expect(output.error).toContain(url);
    expect(requests).toContain('GET /statistics/tables/csv/f11.1-data-missing.csv');
    expect(await store.counts()).toMatchObject({ rates: 0, publications: 0 });
  });
});
