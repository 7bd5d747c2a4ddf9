// The typed client example (examples/typed-client/): its types are what openapi-typescript makes of
// the document the service serves now, it compiles with tsc, and it runs against the service on a
// real listener (an ephemeral port) as a child process.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TYPES_FILE, typesOf } from '../../examples/typed-client/generate.js';
import { LISTENER_LIMITS } from '../../src/http/limits.js';
import { createListener } from '../../src/http/server.js';
import { startTestApp, type TestApp } from '../support/app.js';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const bin = (name: string) => `${ROOT}node_modules/.bin/${name}`;

let t: TestApp;
let server: Server;
let origin: string;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  await t.importFixture('f11.1-data.csv');
  key = await t.createKey('professional');
  server = createListener((req, res) => t.app.web(req, res), { limits: LISTENER_LIMITS, logger: pino({ level: 'silent' }) });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((done) => server?.close(done));
  await t?.close();
});

it('api.d.ts is what openapi-typescript generates from the served document', async () => {
  expect(readFileSync(TYPES_FILE, 'utf8')).toBe(await typesOf(`${origin}/openapi.json`));
});

it('compiles with tsc (strict)', { timeout: 120_000 }, async () => {
  const flags = [
    '--noEmit',
    '--strict',
    '--noUncheckedIndexedAccess',
    '--target',
    'es2022',
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
    '--skipLibCheck',
    '--types',
    'node',
  ];
  await expect(run(bin('tsc'), [...flags, 'examples/typed-client/client.ts'], { cwd: ROOT })).resolves.toMatchObject({ stdout: '' });
});

it('runs against the service', { timeout: 120_000 }, async () => {
  const { stdout } = await run(bin('tsx'), ['examples/typed-client/client.ts'], {
    cwd: ROOT,
    env: { ...process.env, AUD_RATES_URL: origin, AUD_RATES_KEY: key },
  });
  expect(stdout.trim().split('\n')).toEqual([
    'latest 2026-05-11 USD 0.7013',
    'fluctuation USD 0.6828 → 0.6811 (-0.248975 %) over 2 days',
    'fluctuation EUR 0.64 → 0.6437 (0.578125 %) over 2 days',
    '2024-01-06 404 not_found',
  ]);
});
