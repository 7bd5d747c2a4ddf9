// A stand-in for www.rba.gov.au on loopback: each path answers what the test says, request by
// request, and every request is counted.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fixturePath } from '../support/cli.js';

export type Answer = { status: number; body: string | Buffer; type?: string };
/** What a path answers, given how many times it was asked before (0 for the first request). */
export type Route = (count: number) => Answer;

export const fixture = (name: string, type = name.endsWith('.xml') ? 'application/rss+xml' : 'text/csv'): Answer => ({
  status: 200,
  body: readFileSync(fixturePath(name)),
  type,
});
export const failure = (status = 500): Answer => ({ status, body: '<!doctype html><title>Server error</title>', type: 'text/html' });

export interface RbaServer {
  url(path: string): string;
  route(path: string, route: Route): void;
  requests(path: string): number;
  close(): Promise<void>;
}

export async function startRbaServer(): Promise<RbaServer> {
  const routes = new Map<string, Route>();
  const counts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    const count = counts.get(path) ?? 0;
    counts.set(path, count + 1);
    const route = routes.get(path);
    const answer = route ? route(count) : failure(404);
    // Every answer closes its connection. A connection kept alive could be closed by the server's idle
    // timer just as a slow test reused it: the poll would fail (ECONNRESET) and count an attempt more.
    res
      .writeHead(answer.status, {
        'Content-Type': answer.type ?? 'application/octet-stream',
        'Content-Length': Buffer.byteLength(answer.body),
        Connection: 'close',
      })
      .end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path) => `${base}${path}`,
    route: (path, route) => void routes.set(path, route),
    requests: (path) => counts.get(path) ?? 0,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
