// A start on a Postgres server it cannot open (src/db/connect.ts, reachStore) stops before
// listening, with exit code 1 and one line naming the server, its password hidden, and why: never
// the driver's stack trace. An operator command run without a service refuses the same way.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { oneJson, runCli, startService } from '../support/cli.js';
import { freePort } from '../../deploy/cluster.js';

const dataDir = mkdtempSync(join(tmpdir(), 'aud-rates-store-open-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** What a start on `url` printed before it exited; it must not have listened. */
async function refusedStart(url: string): Promise<string> {
  const error = await startService({ DATA_DIR: dataDir, DATABASE_URL: url }).then(
    async (service) => {
      await service.stop();
      return null;
    },
    (e: Error) => e,
  );
  expect(error, 'the service must not start').not.toBeNull();
  const [status, ...output] = error!.message.split('\n');
  expect(status).toBe('the service exited (1) before listening:');
  return output.join('\n').trim();
}

it('a server with nothing listening: one line, the password hidden', async () => {
  const port = await freePort();
  const output = await refusedStart(`postgres://someone:s3cret@127.0.0.1:${port}/audrates`);
  expect(output).toBe(`Cannot open the database at postgres://someone:***@127.0.0.1:${port}/audrates: connect ECONNREFUSED 127.0.0.1:${port}`);
  const inQuery = await refusedStart(`postgres://someone@127.0.0.1:${port}/audrates?password=s3cret&application_name=rates`);
  expect(inQuery).toBe(
    `Cannot open the database at postgres://someone@127.0.0.1:${port}/audrates?password=***&application_name=rates: connect ECONNREFUSED 127.0.0.1:${port}`,
  );
});

it('an operator command on a server with nothing listening: the refusal in one JSON object, no stack trace', async () => {
  const port = await freePort();
  const result = await runCli(['account', 'suspend', '--email', 'someone@example.com'], {
    DATA_DIR: dataDir,
    DATABASE_URL: `postgres://someone:s3cret@127.0.0.1:${port}/audrates`,
  });
  expect(result.code).toBe(1);
  expect(oneJson(result)).toEqual({
    error: `Cannot open the database at postgres://someone:***@127.0.0.1:${port}/audrates: connect ECONNREFUSED 127.0.0.1:${port}`,
  });
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.stderr).not.toContain('s3cret');
});

describe.skipIf(!process.env.DATABASE_URL)("on the suite's Postgres server", () => {
  it('a database that does not exist, and a role that does not', async () => {
    const missing = new URL(process.env.DATABASE_URL!);
    missing.pathname = '/audrates_no_such_database';
    expect(await refusedStart(missing.href)).toBe(`Cannot open the database at ${missing.href}: database "audrates_no_such_database" does not exist`);
    const stranger = new URL(process.env.DATABASE_URL!);
    stranger.username = 'audrates_no_such_role';
    stranger.password = 'hunter2';
    const output = await refusedStart(stranger.href);
    expect(output).toMatch(
      /^Cannot open the database at postgres:\/\/audrates_no_such_role:\*\*\*@[^ ]+: (role "audrates_no_such_role" does not exist|password authentication failed for user "audrates_no_such_role")$/,
    );
    expect(output).not.toContain('hunter2');
  });
});
