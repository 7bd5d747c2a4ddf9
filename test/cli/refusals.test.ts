// Refused operator commands (D33 in docs/decisions.md): each exits non-zero and prints exactly one
// JSON object, `{"error": "..."}`, on stdout, and changes nothing: 1 for a refused command (a
// missing or unknown option value included), 2 for a command line that cannot be read. The CLI runs as a real child
// process against a running service.
import { beforeAll, describe, expect, it } from 'vitest';
import { createAccountVia, oneJson, runCli, serviceOnOwnStore } from '../support/cli.js';
import { graphql } from '../../src/graphql.js';

const { store, service } = serviceOnOwnStore();
beforeAll(async () => {
  await createAccountVia(service, 'taken@example.test', 'starter', 1);
});

/** Runs the command and returns its error text after checking the refusal's shape. */
async function refusal(args: string[], exitCode = 1): Promise<string> {
  const result = await runCli(args, store.env);
  const output = oneJson(result);
  expect(result.code, result.stdout + result.stderr).toBe(exitCode);
  expect(Object.keys(output)).toEqual(['error']);
  expect(output.error).toEqual(expect.any(String));
  expect(output.error.length).toBeGreaterThan(0);
  return output.error as string;
}

/** Whether an account exists, asked of the running service. */
async function accountExists(email: string): Promise<boolean> {
  try {
    await service.operator(graphql('mutation($e: EmailAddress!) { setAccountStatus(email: $e, status: active) { id } }'), { e: email });
    return true;
  } catch (error) {
    expect(String(error)).toContain('No account');
    return false;
  }
}

describe.concurrent('refused operator commands', () => {
  it('an unknown e-mail', { timeout: 60_000 }, async () => {
    const error = await refusal(['key', 'create', '--email', 'Nobody@Example.test']);
    expect(error).toBe('No account with e-mail nobody@example.test');
  });

  it('a duplicate account (e-mail compared without case)', { timeout: 60_000 }, async () => {
    const error = await refusal(['account', 'create', '--email', 'Taken@Example.TEST', '--plan', 'free']);
    expect(error).toContain('taken@example.test');
    expect(error).toContain('already exists');
  });

  it('a plan name that does not exist', { timeout: 60_000 }, async () => {
    const error = await refusal(['account', 'create', '--email', 'gold@example.test', '--plan', 'gold']);
    expect(error).toContain('gold');
    expect(await accountExists('gold@example.test')).toBe(false);
  });

  it('a prefix no active key has', { timeout: 60_000 }, async () => {
    const error = await refusal(['key', 'revoke', '--prefix', 'nosuchsuburb']);
    expect(error).toBe('No active API key with prefix nosuchsuburb');
  });

  it('an unknown command', { timeout: 60_000 }, async () => {
    const error = await refusal(['key', 'rotate', '--email', 'taken@example.test'], 2);
    expect(error).toContain("unknown command 'key rotate'");
    expect(error).toContain('  key create --email E');
  });

  it('an unknown option', { timeout: 60_000 }, async () => {
    const error = await refusal(['key', 'create', '--mail', 'taken@example.test'], 2);
    expect(error).toContain("Unknown option '--mail'");
  });

  // the dashboard's sign-in refuses these: an account made for one could never sign in
  it.each(["o'brien&co@t4.test", 'x+%3cb%3e@t4.test', 'jürgen@t4.test', 'no-domain@t4', 'two@@t4.test'])(
    'an e-mail address the sign-in form refuses: %s',
    { timeout: 60_000 },
    async (email) => {
      const error = await refusal(['account', 'create', '--email', email, '--plan', 'free']);
      expect(error).toMatch(/Enter an e-mail address (such as name@example\.com|in plain ASCII)/);
    },
  );

  it('a missing --email', { timeout: 60_000 }, async () => {
    const error = await refusal(['account', 'create', '--plan', 'free']);
    expect(error).toBe('--email is required');
  });
});

describe('after the refusals', () => {
  it('left the store as it was', async () => {
    expect(await accountExists('taken@example.test')).toBe(true);
    expect(await accountExists('nobody@example.test')).toBe(false);
    const listed = await service.operator(graphql('query { accounts(first: 100) { edges { node { email } } } }'));
    expect(listed.accounts.edges.map((edge) => edge.node.email)).toEqual(['taken@example.test']);
    if (store.kind === 'postgres') expect(await store.counts()).toMatchObject({ accounts: 1, api_keys: 1 });
  });
});
