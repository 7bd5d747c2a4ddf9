// GraphiQL on the internal port: the page loads without the token and asks nothing of another
// origin (every src and href, and every url() in its styles, is inline or relative); queries need
// the token, given once through the sign-in form as an HttpOnly, SameSite=Strict cookie.
import { Parser } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { OPERATOR_TOKEN, appForFile } from '../support/app.js';

const t = appForFile();

const ORIGIN = 'http://internal.test';
const internal = (path: string, init: RequestInit = {}) => t.app.internal.fetch(`${ORIGIN}${path}`, { redirect: 'manual', ...init });
const query = (headers: Record<string, string>) =>
  internal('/graphql', { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify({ query: '{ version }' }) });

/** Every URL the document references: attributes that load or link, and url(…) in its styles. */
function referencedUrls(html: string): string[] {
  const urls: string[] = [];
  let style: string | null = null;
  const parser = new Parser({
    onopentag(name, attributes) {
      if (name === 'style') style = '';
      for (const attribute of ['src', 'href', 'action', 'srcset', 'poster', 'data']) {
        if (attributes[attribute] !== undefined) urls.push(attributes[attribute]);
      }
    },
    ontext(text) {
      if (style !== null) style += text;
    },
    onclosetag(name) {
      if (name !== 'style' || style === null) return;
      for (const [, url] of style.matchAll(/url\(\s*["']?([^"')]*)/g)) urls.push(url!);
      for (const [, url] of style.matchAll(/@import\s+(?:url\()?\s*["']?([^"');\s]*)/g)) urls.push(url!);
      style = null;
    },
  });
  parser.write(html);
  parser.end();
  return urls;
}

/** Stays on the page's origin: relative, or inline content. */
const local = (url: string) => new URL(url, `${ORIGIN}/graphql`).origin === ORIGIN || /^(data|blob):/.test(url);

describe('GraphiQL page', () => {
  it('loads for a browser without the token, and every asset it references is inline or on this origin', async () => {
    const response = await internal('/graphql', { headers: { Accept: 'text/html,application/xhtml+xml' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).toContain('YogaGraphiQL.renderYogaGraphiQL');
    const urls = referencedUrls(html);
    expect(urls.length).toBeGreaterThan(10); // the favicon and the fonts at least
    expect(urls.some((url) => url.startsWith('data:font/'))).toBe(true);
    expect(urls.filter((url) => !local(url))).toEqual([]);
    // and a browser is told so: it may not fetch from anywhere else
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:/);
  });

  it('points GraphiQL at this endpoint, sending the cookie along (same origin)', async () => {
    const html = await (await internal('/graphql', { headers: { Accept: 'text/html' } })).text();
    expect(html).toContain('"endpoint":"/graphql"');
    expect(html).toContain('"credentials":"same-origin"');
  });
});

describe('signing in', () => {
  it('refuses a query without the token (401, naming the sign-in form)', async () => {
    const response = await query({});
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(await response.json()).toEqual({
      errors: [{ message: 'Operator token required: send it as a bearer token, or sign in at /sign-in on this port', extensions: { code: 'unauthorized' } }],
    });
  });

  it('serves a form that posts the token in the body, never in a URL', async () => {
    const response = await internal('/sign-in', { headers: { Accept: 'text/html' } });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toMatch(/<form method="post" action="\/sign-in">/);
    expect(html).toMatch(/<input type="password" name="token"/);
    expect(referencedUrls(html).filter((url) => !local(url))).toEqual([]);
  });

  it('refuses a wrong token without a cookie', async () => {
    const response = await internal('/sign-in', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: 'not-the-operator-token-at-all' }).toString(),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(await response.text()).toContain('That is not the operator token');
  });

  it('sets an HttpOnly, SameSite=Strict session cookie for the right token, which then carries queries', async () => {
    const response = await internal('/sign-in', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: OPERATOR_TOKEN }).toString(),
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/graphql');
    const cookie = response.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^operator_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(cookie).not.toContain(OPERATOR_TOKEN);
    const session = cookie.split(';')[0]!;

    const signedIn = await query({ Cookie: `theme=dark; ${session}` });
    expect(signedIn.status).toBe(200);
    expect(await signedIn.json()).toEqual({ data: { version: expect.any(String) } });

    const forged = await query({ Cookie: `${session.slice(0, -2)}xx` });
    expect(forged.status).toBe(401);
  });

  it('still accepts the bearer token, and refuses a wrong one even with a valid cookie', async () => {
    expect((await query({ Authorization: `Bearer ${OPERATOR_TOKEN}` })).status).toBe(200);
    const signIn = await internal('/sign-in', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `token=${encodeURIComponent(OPERATOR_TOKEN)}`,
    });
    const session = signIn.headers.get('set-cookie')!.split(';')[0]!;
    expect((await query({ Authorization: 'Bearer wrong-token', Cookie: session })).status).toBe(401);
  });
});
