// What a customer reads cites no decision numbers and no repository paths (they cannot open
// either): every error `info` the service's code can produce, read from the sources, and the
// answers of real refused requests; and every dashboard page as rendered.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphql } from '../../src/graphql.js';
import { Browser, pageText, signedInBrowser, startDashboardApp, type DashboardApp } from '../support/dashboard.js';

/** A decision number (D13), a path into the repository, or a source or docs file's name. */
const INTERNAL_REFERENCE = /\bD\d+\b|\b(src|docs|test)\/|\w\.(ts|tsx|md)\b/;

const SRC = new URL('../../src/', import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Where an unknown part of a message stands: the parts around it are what is checked. */
const UNKNOWN = '…';
const MAX_SHAPES = 64;

/** The texts an expression can be, with UNKNOWN where it is not a literal (a number, a value from a request). */
function shapesOf(node: ts.Expression, constants: Map<string, ts.Expression>, depth = 0): string[] {
  if (depth > 8) return [UNKNOWN];
  const recurse = (n: ts.Expression) => shapesOf(n, constants, depth + 1);
  const join2 = (left: string[], right: string[]) => left.flatMap((l) => right.map((r) => l + r)).slice(0, MAX_SHAPES);
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text];
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node)) return recurse(node.expression);
  if (ts.isConditionalExpression(node)) return [...recurse(node.whenTrue), ...recurse(node.whenFalse)];
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) return join2(recurse(node.left), recurse(node.right));
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) return [...recurse(node.left), ...recurse(node.right)];
  if (ts.isTemplateExpression(node)) {
    let shapes = [node.head.text];
    for (const span of node.templateSpans) shapes = join2(join2(shapes, recurse(span.expression)), [span.literal.text]);
    return shapes;
  }
  if (ts.isIdentifier(node) && constants.has(node.text)) return recurse(constants.get(node.text)!);
  return [UNKNOWN];
}

interface Message {
  where: string;
  text: string;
}

/**
 * Every message given to an error a customer may read: the domain's errors and the HTTP refusals
 * (their classes and subclasses, found in the sources), the envelope's own `refusal` and
 * `errorEnvelope`, and the dashboard's page refusals.
 */
function errorMessagesInSources(): Message[] {
  const files = sourceFiles(SRC).map((path) => ({ path, source: ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true) }));
  const parents = new Map<string, string>();
  for (const { source } of files) {
    source.forEachChild(function visit(node): void {
      if (ts.isClassDeclaration(node) && node.name) {
        const base = node.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0]?.expression;
        if (base && ts.isIdentifier(base)) parents.set(node.name.text, base.text);
      }
      node.forEachChild(visit);
    });
  }
  const customerFacing = (name: string): boolean => {
    for (let n: string | undefined = name; n; n = parents.get(n)) if (['DomainError', 'HttpError', 'PageRefusal'].includes(n)) return true;
    return false;
  };
  const messages: Message[] = [];
  for (const { path, source } of files) {
    const constants = new Map<string, ts.Expression>();
    source.forEachChild(function collect(node): void {
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) constants.set(node.name.text, node.initializer);
      node.forEachChild(collect);
    });
    const where = (node: ts.Node) => `${path.slice(SRC.length)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const take = (node: ts.Node, args: readonly ts.Expression[]) => {
      for (const arg of args) for (const text of shapesOf(arg, constants)) messages.push({ where: where(node), text });
    };
    source.forEachChild(function visit(node): void {
      if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && customerFacing(node.expression.text)) take(node, node.arguments ?? []);
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && ['refusal', 'errorEnvelope'].includes(node.expression.text))
        take(node, node.arguments);
      // a subclass's own message, passed up
      if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.SuperKeyword) {
        const owner = ts.findAncestor(node, ts.isClassDeclaration);
        if (owner?.name && customerFacing(owner.name.text)) take(node, node.arguments);
      }
      node.forEachChild(visit);
    });
  }
  return messages;
}

describe('error infos in the sources', () => {
  const messages = errorMessagesInSources();

  it('are found: the refusals of every layer', () => {
    const texts = messages.map((m) => m.text);
    expect(messages.length).toBeGreaterThan(150);
    for (const known of [
      ' not included; the ', // a plan's history window
      'url must use https', // a webhook's URL
      'Send one Authorization header, not several', // the key's own rules
      'HTTPS is required: plain HTTP is refused', // the edge's HTTPS rule, for every surface
      'This form was sent from another site. Open the dashboard and try again.',
    ]) {
      expect(
        texts.some((t) => t.includes(known)),
        known,
      ).toBe(true);
    }
  });

  it('cite no decision numbers and no repository paths', () => {
    expect(messages.filter((m) => INTERNAL_REFERENCE.test(m.text))).toEqual([]);
  });
});

describe('what customers are shown', () => {
  let t: DashboardApp;
  beforeAll(async () => {
    t = await startDashboardApp({ now: '2026-05-12T03:00:00Z', config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', SUPPORT_EMAIL: 'help@rates.example' } });
    await t.importFixture('f11.1-data.csv');
  }, 60_000);
  afterAll(() => t?.close());

  /** A key's or a secret's characters could spell a decision number by chance: they are no text of ours. */
  const withoutSecrets = (text: string) =>
    text
      .replace(/\b[a-z]+_[A-Za-z0-9]{56}\b/g, 'KEY')
      .replace(/\b[a-z]+_…[A-Za-z0-9]{4}\b/g, 'KEY')
      .replace(/whsec_[A-Za-z0-9_-]+/g, 'SECRET');

  it("in every dashboard page's text", async () => {
    const pages = new Map<string, string>();
    const read = async (name: string, response: Promise<Response>) => pages.set(name, withoutSecrets(pageText(await (await response).text())));
    const visitor = new Browser(t);
    await read('sign in', visitor.get('/dashboard'));
    await read('sign-in link refused', visitor.post('/dashboard/sign-in-link', { email: 'not an address' }));
    await read('check e-mail', visitor.post('/dashboard/sign-in-link', { email: 'reader@example.com' }));
    const { link } = await t.mailbox.next();
    await read('confirm sign-in', visitor.get(`${new URL(link).pathname}${new URL(link).search}`));
    await read('incomplete link', visitor.get('/dashboard/sign-in?token=short'));
    await read('used link', visitor.post('/dashboard/sign-in', { token: 'A'.repeat(43) }));
    await read('not found', visitor.get('/dashboard/nowhere'));
    await read('method not allowed', visitor.request('/dashboard/usage', { method: 'DELETE' }));
    await read('another site', visitor.post('/dashboard/sign-out', { csrf: 'x' }, { 'Sec-Fetch-Site': 'cross-site' }));
    await read('signed out', visitor.post('/dashboard/sign-out', { csrf: 'x' }));

    const free = await signedInBrowser(t, 'reader@example.com');
    await read('overview', free.get('/dashboard'));
    await read('keys, none', free.get('/dashboard/keys'));
    let html = await (await free.get('/dashboard/keys')).text();
    await read('key generated', free.post('/dashboard/keys', { csrf: Browser.csrfOf(html) }));
    html = await (await free.get('/dashboard/keys')).text();
    await read('replace unconfirmed', free.post('/dashboard/keys', { csrf: Browser.csrfOf(html) }));
    const keyId = /revoke\?id=([^"]+)"/.exec(html)![1]!;
    await read('revoke', free.get(`/dashboard/keys/revoke?id=${keyId}`));
    await read('revoke unknown', free.get('/dashboard/keys/revoke?id=nothing'));
    await read('forged form', free.post('/dashboard/keys', { csrf: 'forged' }));
    await read('usage, none', free.get('/dashboard/usage'));
    await read('webhooks on Free', free.get('/dashboard/webhooks'));
    await read('alerts on Free', free.get('/dashboard/alerts'));
    await read('plan', free.get('/dashboard/plan'));

    const email = 'pro-reader@example.com';
    const key = await t.createKey('professional', email);
    for (const path of ['/latest', '/2026-05-11/USD', '/latest?symbols=XYZ', '/2017-01-03']) await t.request(path, { key });
    await t.app.usage.flush();
    const pro = await signedInBrowser(t, email);
    await read('usage', pro.get('/dashboard/usage'));
    html = await (await pro.get('/dashboard/webhooks')).text();
    const csrf = Browser.csrfOf(html);
    await read('webhooks, none', Promise.resolve(new Response(html)));
    await read('webhook refused', pro.post('/dashboard/webhooks', { csrf, url: 'http://example.com/hook', currencies: 'USD AUD' }));
    // nothing listens on port 9 of this machine: the test fails, and says why
    await read('webhook created', pro.post('/dashboard/webhooks', { csrf, url: 'https://127.0.0.1:9/hook', currencies: 'usd' }));
    const id = (await t.db.selectFrom('webhook_subscriptions').select('id').executeTakeFirstOrThrow()).id;
    const tested = await pro.post('/dashboard/webhooks/test', { csrf, id });
    await read('webhook test failed', pro.get(tested.headers.get('location')!));
    await read('delete subscription', pro.get(`/dashboard/webhooks/delete?id=${id}`));
    await read('alerts, none', pro.get('/dashboard/alerts'));
    await read('alert refused', pro.post('/dashboard/alerts', { csrf, currency: 'USD', condition: 'above', value: '0', channels: 'email' }));
    expect((await pro.post('/dashboard/alerts', { csrf, currency: 'USD', condition: 'change_pct', value: '1.5', channels: 'email' })).status).toBe(303);
    await read('alerts, one', pro.get('/dashboard/alerts'));
    const alertId = (await t.db.selectFrom('alerts').select('id').executeTakeFirstOrThrow()).id;
    await read('alert test', pro.post('/dashboard/alerts/test', { csrf, id: alertId }));
    await read('delete alert', pro.get(`/dashboard/alerts/delete?id=${alertId}`));
    await read('pause link incomplete', visitor.get('/dashboard/alerts/pause?token=nothing'));
    // late rates, and a suspended account
    t.setNow('2026-05-13T09:00:00Z');
    await read('overview, rates late', pro.get('/dashboard'));
    t.setNow('2026-05-12T03:00:00Z');
    await t.operator(graphql('mutation { setAccountStatus(email: "pro-reader@example.com", status: suspended) { status } }'));
    await read('overview, suspended', pro.get('/dashboard'));
    await read('webhooks, suspended', pro.get('/dashboard/webhooks'));
    await read('alerts, suspended', pro.get('/dashboard/alerts'));

    expect(pages.size).toBeGreaterThanOrEqual(29);
    for (const [name, text] of pages) {
      expect(text.length, name).toBeGreaterThan(40);
      expect(INTERNAL_REFERENCE.exec(text)?.[0], `${name}: ${text.slice(0, 200)}`).toBeUndefined();
    }
    expect(pages.get('overview, rates late')).toContain('The rates are late');
    expect(pages.get('webhook test failed')).toContain('Test failed');
  });

  it('in the info of refused API requests', async () => {
    const free = await t.createKey('free');
    const starter = await t.createKey('starter');
    const refusals: [string, Parameters<DashboardApp['request']>[1]][] = [
      ['/latest', {}],
      ['/latest', { key: 'nope' }],
      ['/latest', { key: `wrong_${'A'.repeat(56)}` }],
      ['/latest?symbols=XYZ', { key: free }],
      ['/latest?base=USD', { key: free }],
      ['/2024-01-05', { key: free }],
      ['/2024-01-05', { key: starter }],
      ['/2024-01-05/USD', { key: starter }],
      ['/2024-02-30', { key: starter }],
      ['/2017-01-03', { key: starter }],
      ['/timeseries?start_date=2026-05-01&end_date=2026-05-11', { key: free }],
      ['/timeseries?start_date=2026-04-01&end_date=2026-05-11', { key: starter }],
      ['/timeseries?start_date=2026-05-11&end_date=2026-05-01', { key: starter }],
      ['/fluctuation', { key: starter }],
      ['/convert?from=USD&to=EUR', {}],
      ['/convert?from=USD&to=EUR&amount=-1', {}],
      ['/convert?from=USD&to=EUR&amount=1&date=2024-01-05', { key: free }],
      ['/nowhere', { key: free }],
      ['/latest', { key: free, method: 'POST' }],
      ['/api/webhook-subscriptions', { key: free, method: 'POST', body: { url: 'https://example.com/' } }],
    ];
    const infos: string[] = [];
    for (const [path, options] of refusals) {
      const response = await t.request(path, options);
      const body = (await response.json()) as { success: boolean; error?: { info: string } };
      expect(body.success, path).toBe(false);
      infos.push(body.error!.info);
    }
    // free mode's hourly limit
    for (let i = 0; i < 4; i++) {
      const response = await t.request('/convert?from=USD&to=EUR&amount=1');
      if (response.status === 429) infos.push(((await response.json()) as { error: { info: string } }).error.info);
    }
    expect(infos).toHaveLength(refusals.length + 1);
    for (const info of infos) expect(INTERNAL_REFERENCE.exec(info)?.[0], info).toBeUndefined();
    expect(infos).toContain(
      'The Free plan gives no historical rates, so the rates for 2024-01-05 are not included; the Professional plan allows it (full history from 2018)',
    );
  });
});
