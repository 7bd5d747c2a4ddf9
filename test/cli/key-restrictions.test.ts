// `cli key create` and `cli key restrict` with the restriction flags (a real child process, through
// the running service): both print the key's restrictions; a change keeps the restrictions not
// given, --clear removes them all; a bad range, an unknown endpoint name, a cap above the plan's
// quota and a past date are refused with {"error"} and exit 1, changing nothing; and a restriction
// set by the command is applied by the service at once.
import { beforeAll, describe, expect, it } from 'vitest';
import { createAccountVia, importFixtureVia, oneJson, runCli, serviceOnOwnStore, succeeded, whileKeyInUse } from '../support/cli.js';

const { store, service } = serviceOnOwnStore();
const EMAIL = 'restricted@example.test';
const STARTER = 'restricted-starter@example.test';
beforeAll(async () => {
  await importFixtureVia(service, 'f11.1-data.csv');
  await createAccountVia(service, EMAIL, 'professional');
  await createAccountVia(service, STARTER, 'starter');
}, 90_000);

const today = () => new Date().toISOString().slice(0, 10);

async function refusal(args: string[]): Promise<string> {
  const result = await runCli(args, store.env);
  expect(result.code, result.stdout + result.stderr).toBe(1);
  const output = oneJson(result);
  expect(Object.keys(output)).toEqual(['error']);
  return output.error as string;
}

describe('cli key restrictions', () => {
  it('key create takes the flags and prints the restrictions; key restrict changes one and keeps the others', { timeout: 120_000 }, async () => {
    const created = succeeded(
      await runCli(
        [
          'key',
          'create',
          '--email',
          EMAIL,
          '--allowed-ips',
          '203.0.113.0/24, 2001:db8::/32',
          '--allowed-endpoints',
          'latest,historical',
          '--monthly-cap',
          '100',
        ],
        store.env,
      ),
    );
    expect(created.restrictions).toEqual({
      allowedIps: ['203.0.113.0/24', '2001:db8::/32'],
      allowedEndpoints: ['latest', 'historical'],
      expiresOn: null,
      monthlyCap: 100,
    });
    const { prefix, key } = created as { prefix: string; key: string };
    // the service is reached from this machine, outside the allowed ranges
    const refused = await service.get('/latest', key);
    expect(refused.status).toBe(403);
    expect(refused.body.error.type).toBe('key_restricted');

    const changed = succeeded(await runCli(['key', 'restrict', '--prefix', prefix, '--allowed-ips', '127.0.0.1', '--expires-on', '2099-12-31'], store.env));
    expect(changed).toEqual({
      id: created.id,
      prefix,
      status: 'active',
      restrictions: { allowedIps: ['127.0.0.1/32'], allowedEndpoints: ['latest', 'historical'], expiresOn: '2099-12-31', monthlyCap: 100 },
    });
    expect((await service.get('/latest', key)).status).toBe(200);
    expect((await service.get('/timeseries?start_date=2026-05-11&end_date=2026-05-11', key)).status).toBe(403);

    const cleared = succeeded(await runCli(['key', 'restrict', '--prefix', prefix, '--clear'], store.env));
    expect(cleared.restrictions).toEqual({ allowedIps: null, allowedEndpoints: null, expiresOn: null, monthlyCap: null });
    expect((await service.get('/timeseries?start_date=2026-05-11&end_date=2026-05-11', key)).status).toBe(200);
  });

  it('refuses a bad range, an unknown name, a cap above the quota and a past date, changing nothing', { timeout: 120_000 }, async () => {
    const { prefix } = succeeded(await runCli(['key', 'create', '--email', STARTER, '--expires-on', today()], store.env)) as { prefix: string };
    expect(await refusal(['key', 'restrict', '--prefix', prefix, '--allowed-ips', '203.0.113.0/24,300.1.1.1'])).toMatch(
      /allowedIps: '300\.1\.1\.1' is not a CIDR range/,
    );
    expect(await refusal(['key', 'restrict', '--prefix', prefix, '--allowed-endpoints', 'latest,rates'])).toMatch(/'rates' is not an endpoint name/);
    expect(await refusal(['key', 'restrict', '--prefix', prefix, '--monthly-cap', '5001'])).toMatch(/more than the Starter plan's 5000/);
    expect(await refusal(['key', 'restrict', '--prefix', prefix, '--monthly-cap', 'lots'])).toMatch(/--monthly-cap must be a whole number/);
    expect(await refusal(['key', 'restrict', '--prefix', prefix, '--monthly-cap=-1'])).toBe(
      "--monthly-cap must be a whole number of requests, from 0 to the plan's monthly quota (got -1)",
    );
    expect(await refusal(['key', 'restrict', '--prefix', prefix, '--expires-on', '2020-01-01'])).toMatch(/expiresOn: 2020-01-01 has passed/);
    expect(await refusal(['key', 'restrict', '--prefix', prefix, '--expires-on', '2026-02-30'])).toMatch(/LocalDate/);
    expect(await refusal(['key', 'restrict', '--prefix', prefix])).toMatch(/--clear or at least one/);
    expect(await refusal(['key', 'restrict', '--prefix', 'nosuchsuburb', '--clear'])).toBe('No active API key with prefix nosuchsuburb');
    expect(await refusal(['key', 'create', '--email', STARTER, '--allowed-endpoints', 'everything'])).toMatch(/'everything' is not an endpoint name/);
    expect(await refusal(['key', 'create', '--email', STARTER, '--clear'])).toMatch(/--clear is for key restrict/);
    // nothing changed: the key still has its expiry and nothing else
    const kept = succeeded(await runCli(['key', 'restrict', '--prefix', prefix, '--monthly-cap', '5000'], store.env));
    expect(kept.restrictions).toEqual({ allowedIps: null, allowedEndpoints: null, expiresOn: today(), monthlyCap: 5000 });
  });

  it('a restriction set by the command is applied at once by the service, whose key cache held the key', { timeout: 120_000 }, async () => {
    const { prefix, key } = succeeded(await runCli(['key', 'create', '--email', EMAIL], store.env)) as { prefix: string; key: string };
    await whileKeyInUse(service, key, () => runCli(['key', 'restrict', '--prefix', prefix, '--allowed-endpoints', 'historical'], store.env));
    const answer = await service.get('/latest?symbols=USD', key);
    expect(answer.status).toBe(403);
    expect(answer.body.error.info).toMatch(/may not call latest/);
  });
});
