// `npm start` runs the bundle scripts/build.ts writes (dist/main.js), not the TypeScript sources:
// the bundle must serve what the sources serve, including what modules read from beside their
// source files (the API guide, the dashboard's stylesheet, the package's version), what it loads
// only when first used (the internal GraphQL server, GraphiQL, the mailer), and the packages it
// holds itself (one copy of graphql for the schema and every server that runs it).
import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTRIES, SERVICE_NODE_FLAGS, bundleEntries } from '../scripts/build.js';
import { graphql } from '../src/graphql.js';
import { ROOT, createCliStore, startService, type CliStore, type RunningService } from './support/cli.js';

let outDir: string;
let store: CliStore;
let service: RunningService;
beforeAll(async () => {
  // inside the project, as dist/ is: the bundle finds its packages in the project's node_modules
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  outDir = mkdtempSync(join(ROOT, 'dist', 'test-'));
  const [created] = await Promise.all([createCliStore(), bundleEntries(ENTRIES, outDir)]);
  store = created;
  service = await startService(store.env, 60_000, [...SERVICE_NODE_FLAGS, join(outDir, 'main.js')]);
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

it('is what npm start and npm run cli run, built first only when the sources changed', () => {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  expect(scripts.start).toBe(`node scripts/build-if-changed.js && NODE_ENV=\${NODE_ENV:-production} node ${SERVICE_NODE_FLAGS.join(' ')} dist/main.js`);
  expect(scripts.cli).toBe('node scripts/build-if-changed.js --run dist/cli.js');
  expect(scripts.build).toBe('node scripts/build-if-changed.js --always');
});

it('answers the REST API', async () => {
  const symbols = await service.get('/symbols');
  expect(symbols.status).toBe(200);
  expect((symbols.body as { count: number }).count).toBe(21);
});

it('serves the OpenAPI document with the guide and the recorded examples read from beside their source and the version from package.json', async () => {
  const guide = readFileSync('src/rest/openapi/guide.md', 'utf8');
  const recorded = JSON.parse(readFileSync('src/rest/openapi/examples.json', 'utf8')) as Record<string, { response?: unknown }>;
  const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
  const answer = await service.get('/openapi.json');
  expect(answer.status).toBe(200);
  const document = answer.body as { info: { description: string; version: string }; paths: Record<string, any> };
  expect(document.info).toEqual(expect.objectContaining({ description: guide, version }));
  expect(document.paths['/latest'].get.responses[200].content['application/json'].example).toEqual(recorded.Latest!.response);
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

/** The files a bundle loads as it starts: itself and the chunks it imports statically, transitively. */
function loadedAtStart(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const code = readFileSync(file, 'utf8');
  for (const [, path] of code.matchAll(/^(?:import|export)\s[^;]*?["'](\.\/[^"']+\.js)["'];?$/gm)) loadedAtStart(join(file, '..', path!), seen);
  return seen;
}

describe('the CLI bundle', () => {
  const cli = (...args: string[]) =>
    promisify(execFile)(process.execPath, ['--enable-source-maps', join(outDir, 'cli.js'), ...args], { cwd: ROOT, env: { ...process.env, ...store.env } });

  it('runs a command through the running service, saying nothing on stderr', async () => {
    const { stdout, stderr } = await cli('account', 'create', '--email', 'bundle.cli@example.com', '--plan', 'starter');
    expect(JSON.parse(stdout)).toMatchObject({ email: 'bundle.cli@example.com', plan: 'starter' });
    expect(stderr).toBe('');
  });

  it("loads none of the service's modules as it starts: those wait until no service runs", () => {
    const sources = [...loadedAtStart(join(outDir, 'cli.js'))].flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/^\/\/ (src\/\S+)$/gm)].map(([, source]) => source!),
    );
    expect(sources).toContain('src/cli/main.ts');
    expect(sources).toContain('src/config.ts');
    // src/internal/paths.ts holds only the path names the CLI and the internal endpoint share
    expect(
      sources.filter((source) =>
        /^src\/(app|start|services)\.ts$|^src\/(schema|db|dashboard|rba|webhooks)\/|^src\/internal\/(?!paths\.ts$)|^src\/rest\/(pipeline|routes)\.ts$|^src\/jobs\/import-rates\.ts$/.test(
          source,
        ),
      ),
    ).toEqual([]);
  });
});

describe('scripts/build-if-changed.js', { timeout: 240_000 }, () => {
  /** A copy of the project's inputs inside the project (its packages are found in node_modules above). */
  let project: string;
  beforeAll(() => {
    project = mkdtempSync(join(ROOT, 'dist', 'test-project-'));
    for (const input of ['src', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json'])
      cpSync(join(ROOT, input), join(project, input), { recursive: true });
  });
  afterAll(() => rmSync(project, { recursive: true, force: true }));
  const run = () => promisify(execFile)(process.execPath, ['scripts/build-if-changed.js'], { cwd: project });
  const builtAt = () => statSync(join(project, 'dist', 'cli.js')).mtimeMs;

  it('builds when there is no bundle, then not again until a source changes', async () => {
    const first = await run();
    expect(first.stderr).toContain('no bundle yet: building dist/');
    expect(first.stdout).toBe('');
    const built = builtAt();

    const unchanged = await run();
    expect(unchanged.stderr).toBe('');
    expect(builtAt()).toBe(built);

    appendFileSync(join(project, 'src', 'version.ts'), '\n// changed\n');
    const edited = await run();
    expect(edited.stderr).toContain('the sources changed: building dist/');
    expect(builtAt()).toBeGreaterThan(built);
    expect((await run()).stderr).toBe('');
  });
});
