// `npm start` runs the bundle scripts/build.ts writes (dist/main.js), not the TypeScript sources:
// the bundle must serve what the sources serve, including what modules read from beside their
// source files (the API guide, the dashboard's stylesheet, the package's version), what it loads
// only when first used (the internal GraphQL server, GraphiQL, the mailer), and the packages it
// holds itself (one copy of graphql for the schema and every server that runs it).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SERVICE_NODE_FLAGS, bundle } from '../scripts/build.js';
import { graphql } from '../src/graphql.js';
import { ROOT, createCliStore, startService, type CliStore, type RunningService } from './support/cli.js';

let outDir: string;
let store: CliStore;
let service: RunningService;
beforeAll(async () => {
  // inside the project, as dist/ is: the bundle finds its packages in the project's node_modules
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  outDir = mkdtempSync(join(ROOT, 'dist', 'test-'));
  const [created, main] = await Promise.all([createCliStore(), bundle('src/main.ts', outDir)]);
  store = created;
  service = await startService(store.env, 60_000, [...SERVICE_NODE_FLAGS, main]);
}, 90_000);
afterAll(async () => {
  await service?.stop();
  await store?.close();
  rmSync(outDir, { recursive: true, force: true });
});

it('is JavaScript with its source map, and no TypeScript loader is needed to run it', () => {
  const code = readFileSync(join(outDir, 'main.js'), 'utf8');
  expect(code).toMatch(/\/\/# sourceMappingURL=main\.js\.map\s*$/);
  expect(JSON.parse(readFileSync(join(outDir, 'main.js.map'), 'utf8'))).toMatchObject({ version: 3 });
});

it('is what npm start runs, with the Node flags the bench and this test start it with', () => {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  expect(scripts.start).toContain(`node ${SERVICE_NODE_FLAGS.join(' ')} dist/main.js`);
});

it('answers the REST API', async () => {
  const symbols = await service.get('/symbols');
  expect(symbols.status).toBe(200);
  expect((symbols.body as { count: number }).count).toBe(21);
});

it('serves the OpenAPI document with the guide read from beside its source and the version from package.json', async () => {
  const guide = readFileSync('src/rest/openapi/guide.md', 'utf8');
  const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
  const answer = await service.get('/openapi.json');
  expect(answer.status).toBe(200);
  expect((answer.body as { info: { description: string; version: string } }).info).toEqual(expect.objectContaining({ description: guide, version }));
});

it("serves the dashboard's stylesheet read from beside its source", async () => {
  const page = await fetch(`${service.file.publicUrl}/dashboard/sign-in`);
  const html = await page.text();
  const stylesheet = /href="(\/dashboard\/static\/style-[0-9a-f]{16}\.css)"/.exec(html)?.[1];
  expect(stylesheet).toBeDefined();
  const css = await fetch(`${service.file.publicUrl}${stylesheet}`);
  expect(css.status).toBe(200);
  expect(await css.text()).toBe(readFileSync('src/dashboard/style.css', 'utf8'));
});

it('runs operations on the internal endpoint and serves GraphiQL there', async () => {
  const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
  expect(await service.operator(graphql('{ version }'))).toEqual({ version });
  const page = await fetch(service.internalUrl, { headers: { Accept: 'text/html' } });
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('YogaGraphiQL.renderYogaGraphiQL');
});

it('writes a sign-in mail to the outbox (the mailer loads on the first message)', async () => {
  const site = { Origin: service.publicUrl, 'Sec-Fetch-Site': 'same-origin' };
  const asked = await fetch(`${service.publicUrl}/dashboard/sign-in-link`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...site },
    body: new URLSearchParams({ email: 'bundle.test@example.com' }).toString(),
  });
  expect(asked.status).toBe(200);
  const outbox = join(store.dataDir, 'outbox');
  const [mail] = readdirSync(outbox);
  expect(readFileSync(join(outbox, mail!), 'utf8')).toContain('To: bundle.test@example.com');
});
