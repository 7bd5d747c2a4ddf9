// The readiness check a balancer's health check asks (deploy/haproxy.cfg): GET /ready on the
// internal port, 200 while the process takes requests and 503 from the moment it is asked to stop,
// while its public listener still answers, so that the balancer stops sending it requests before
// the listener closes. It holds no data, so it needs no operator token.
import type { Answer } from '../rest/exchange.js';

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

  /** The answer to GET /ready. */
  answer(): Answer {
    return {
      status: this.stopping ? 503 : 200,
      body: this.stopping ? 'stopping\n' : 'ready\n',
      headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' },
    };
  }
}
