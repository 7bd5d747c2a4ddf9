// The readiness check a balancer's health check asks (deploy/haproxy.cfg): GET /ready on the
// internal port, 200 while the process takes requests and 503 from the moment it is asked to stop,
// while its public listener still answers, so that the balancer stops sending it requests before
// the listener closes. It holds no data, so it needs no operator token, and it is answered before
// anything else on the internal port: a health check every half second costs nothing.
import type { IncomingMessage, ServerResponse } from 'node:http';

export const READY_PATH = '/ready';

export class Readiness {
  private stopping = false;

  /** From now on the check answers 503. */
  stop(): void {
    this.stopping = true;
  }

  get ready(): boolean {
    return !this.stopping;
  }

  /** The answer to a request for READY_PATH. */
  answer(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Length': '0' });
      res.end();
      return;
    }
    const body = this.stopping ? 'stopping\n' : 'ready\n';
    res.writeHead(this.stopping ? 503 : 200, {
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(body)),
      'Cache-Control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }
}
