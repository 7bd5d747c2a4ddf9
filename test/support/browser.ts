// The browser tests' shared parts: Debian's Chromium driven by playwright-core (never a downloaded
// browser), and a handler served on a real loopback listener for it to load.
import { existsSync } from 'node:fs';
import { pino } from 'pino';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions } from 'playwright-core';
import { LISTENER_LIMITS } from '../../src/http/limits.js';
import { createListener, type Handler, listen } from '../../src/http/server.js';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_AVAILABLE = existsSync(CHROMIUM);

/** Headless, and quiet: without the background-networking flags Chromium calls out at every start. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

export interface ServedHandler {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  close(): Promise<void>;
}

/** A handler on the service's own listener (its limits and refusals), on an ephemeral loopback port. */
export async function serveOnLoopback(handler: Handler): Promise<ServedHandler> {
  const server = createListener(handler, { limits: LISTENER_LIMITS, logger: pino({ level: 'silent' }) });
  const origin = await listen(server, 0, '127.0.0.1');
  return {
    origin,
    close: async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
}

/** A Chromium context carrying the session cookies a sign-in over HTTP gave (`Browser` in ./dashboard.ts). */
export async function contextWithCookies(
  browser: Browser,
  cookies: ReadonlyMap<string, string>,
  origin: string,
  options: BrowserContextOptions,
): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  await context.addCookies([...cookies].map(([name, value]) => ({ name, value, url: origin })));
  return context;
}
