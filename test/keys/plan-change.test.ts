// docs/api.md §8 rule 1 and D17 (docs/decisions.md): `cli account plan` applies at once in the
// running service and the account's existing keys keep working; the key rules and the history
// window (D13) follow the new plan.
import { beforeAll, describe, expect, it } from 'vitest';
import { accountWithKeyVia, createKeyVia, importFixtureVia, runCli, serviceOnOwnStore, succeeded, whileKeyInUse } from '../support/cli.js';

const EMAIL = 'upgrader@example.test';
// Starter reaches back 30 days (D13); this day is older than that, so only Professional and up may ask.
const OLD_DAY = '/2026-05-11';
const LATEST = '/latest?symbols=USD';

const { store, service } = serviceOnOwnStore();
let first: string;
beforeAll(async () => {
  await importFixtureVia(service, 'f11.1-data.csv');
  ({ key: first } = await accountWithKeyVia(service, EMAIL, 'starter'));
});

const statusOf = async (path: string, key: string) => (await service.get(path, key)).status;

/** The history window's answer for an old day: 200, or 403 plan_restricted (checked softly). */
async function oldDayAnswer(key: string, allowed: boolean): Promise<void> {
  const answer = await service.get(OLD_DAY, key);
  if (allowed) {
    expect.soft(answer.status, `${OLD_DAY}: ${JSON.stringify(answer.body)}`).toBe(200);
    expect.soft(answer.body).toMatchObject({ success: true, date: '2026-05-11' });
  } else {
    expect.soft(answer.status, `${OLD_DAY}: ${JSON.stringify(answer.body)}`).toBe(403);
    expect.soft(answer.body).toMatchObject({ success: false, error: { code: 403, type: 'plan_restricted' } });
  }
}

describe('cli account plan', () => {
  let second: string;

  it("upgrades at once: the same key keeps working and reaches the new plan's history", { timeout: 60_000 }, async () => {
    expect(await statusOf(LATEST, first)).toBe(200);
    await oldDayAnswer(first, false);

    // The key is in use while the plan changes, so the service has it cached: the change must clear it.
    const upgraded = await whileKeyInUse(service, first, () => runCli(['account', 'plan', '--email', EMAIL, '--plan', 'professional'], store.env), OLD_DAY);
    expect(succeeded(upgraded)).toEqual({ id: expect.any(String), email: EMAIL, plan: 'professional' });
    expect(await statusOf(LATEST, first)).toBe(200);
    await oldDayAnswer(first, true);
  });

  it("follows the new plan's key rules: on Professional a new key is added beside the old one", async () => {
    ({ key: second } = await createKeyVia(service, EMAIL));
    expect(await statusOf(LATEST, first)).toBe(200);
    expect(await statusOf(LATEST, second)).toBe(200);
  });

  it('downgrades at once: the existing keys keep working within the smaller plan', { timeout: 60_000 }, async () => {
    const downgraded = await whileKeyInUse(service, first, () => runCli(['account', 'plan', '--email', EMAIL, '--plan', 'starter'], store.env), OLD_DAY);
    expect(succeeded(downgraded)).toEqual({ id: expect.any(String), email: EMAIL, plan: 'starter' });
    for (const key of [first, second]) {
      expect(await statusOf(LATEST, key)).toBe(200);
      await oldDayAnswer(key, false);
    }
  });
});
