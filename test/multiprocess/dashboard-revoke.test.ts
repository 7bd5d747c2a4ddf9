// Two service processes on one Postgres database: a key revoked on the dashboard of one is refused
// (401 invalid_api_key) by the other as soon as the revoke's page has answered, though the other
// had the key cached. The sign-in link comes from the first process's log, as a local user reads it
// without a mail server.
import { describe, expect, it, vi } from 'vitest';
import { accountWithKeyVia, servicesOnOneStore, type RunningService } from '../support/cli.js';

describe.skipIf(!process.env.DATABASE_URL)('a key revoked on the dashboard of one process', () => {
  const { services } = servicesOnOneStore(2, 'f11.1-data.csv');

  /** A browser's visit to one process's dashboard: the session cookie it was given, sent back. */
  function visit(service: RunningService) {
    let cookie = '';
    const send = async (path: string, form?: Record<string, string>) => {
      const response = await fetch(`${service.publicUrl}${path}`, {
        method: form ? 'POST' : 'GET',
        redirect: 'manual',
        headers: {
          ...(cookie ? { Cookie: cookie } : {}),
          ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'same-origin' } : {}),
        },
        ...(form ? { body: new URLSearchParams(form).toString() } : {}),
      });
      const set = response.headers.get('set-cookie');
      if (set) cookie = set.split(';')[0]!;
      return { status: response.status, html: await response.text() };
    };
    return { send };
  }

  /**
   * The last sign-in link a process logged for `email`. The log line comes through the process's
   * stdout, which may reach this test after the page's answer does, so it is waited for.
   */
  function loggedLink(service: RunningService, email: string): Promise<string> {
    return vi.waitFor(() => {
      const lines = service
        .output()
        .split('\n')
        .filter((line) => line.includes('"link"') && line.includes(email));
      expect(lines.length).toBeGreaterThan(0);
      return JSON.parse(lines.at(-1)!).link as string;
    }, 10_000);
  }

  it('is refused by the other at once', async () => {
    const email = 'mp-dashboard@example.test';
    const { key } = await accountWithKeyVia(services[0]!, email, 'professional');
    // the other process has the key cached before the revocation
    expect((await services[1]!.get('/latest?symbols=USD', key)).status).toBe(200);

    const browser = visit(services[0]!);
    expect((await browser.send('/dashboard/sign-in-link', { email })).status).toBe(200);
    const token = new URL(await loggedLink(services[0]!, email)).searchParams.get('token')!;
    expect((await browser.send('/dashboard/sign-in', { token })).status).toBe(303);
    const keys = await browser.send('/dashboard/keys');
    expect(keys.status).toBe(200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(keys.html)![1]!;
    const id = /href="\/dashboard\/keys\/revoke\?id=([0-9a-f-]{36})"/.exec(keys.html)![1]!;

    expect((await services[1]!.get('/latest?symbols=USD', key)).status).toBe(200);
    expect((await browser.send('/dashboard/keys/revoke', { csrf, id })).status).toBe(303);
    const refused = await services[1]!.get('/latest?symbols=USD', key);
    expect(refused.status).toBe(401);
    expect(refused.body.error.type).toBe('invalid_api_key');
    expect((await services[0]!.get('/latest?symbols=USD', key)).status).toBe(401);
  });
});
