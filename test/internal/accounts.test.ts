// `accounts`: every account for the operator, oldest first, narrowed by plan or status, in pages.
import { describe, expect, it } from 'vitest';
import { appForFile, CREATE_ACCOUNT } from '../support/app.js';
import { graphql, type VariablesOf } from '../../src/graphql.js';

const t = appForFile();

const ACCOUNTS = graphql(`
  query ($plan: Plan, $status: AccountStatus, $first: Int, $after: ID) {
    accounts(plan: $plan, status: $status, first: $first, after: $after) {
      edges {
        cursor
        node {
          email
          plan
          status
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);
const SUSPEND = graphql('mutation($e: EmailAddress!) { setAccountStatus(email: $e, status: suspended) { id } }');

describe('accounts', () => {
  it('lists every account oldest first, only those of a plan or a status when asked, a page at a time', async () => {
    const made: { email: string; plan: 'free' | 'starter' | 'professional' }[] = [];
    for (const [n, plan] of (['free', 'professional', 'starter', 'professional'] as const).entries()) {
      t.setNow(`2026-05-12T03:0${n}:00Z`);
      const email = `accounts-${n}@example.test`;
      expect((await t.operator(CREATE_ACCOUNT, { e: email, p: plan })).errors).toBeUndefined();
      made.push({ email, plan });
    }
    expect((await t.operator(SUSPEND, { e: made[1]!.email })).errors).toBeUndefined();
    const accounts = async (variables: VariablesOf<typeof ACCOUNTS>) => {
      const result = await t.operator(ACCOUNTS, variables);
      expect(result.errors).toBeUndefined();
      return result.data!.accounts;
    };

    const all = await accounts({});
    expect(all.edges.map((e) => e.node)).toEqual([
      { email: made[0]!.email, plan: 'free', status: 'active' },
      { email: made[1]!.email, plan: 'professional', status: 'suspended' },
      { email: made[2]!.email, plan: 'starter', status: 'active' },
      { email: made[3]!.email, plan: 'professional', status: 'active' },
    ]);
    expect((await accounts({ plan: 'professional' })).edges.map((e) => e.node.email)).toEqual([made[1]!.email, made[3]!.email]);
    expect((await accounts({ status: 'suspended' })).edges.map((e) => e.node.email)).toEqual([made[1]!.email]);
    expect((await accounts({ plan: 'professional', status: 'active' })).edges.map((e) => e.node.email)).toEqual([made[3]!.email]);

    const first = await accounts({ first: 3 });
    expect(first.edges.map((e) => e.node.email)).toEqual(made.slice(0, 3).map((m) => m.email));
    expect(first.pageInfo.hasNextPage).toBe(true);
    const rest = await accounts({ first: 3, after: first.pageInfo.endCursor });
    expect(rest.edges.map((e) => e.node.email)).toEqual([made[3]!.email]);
    expect(rest.pageInfo.hasNextPage).toBe(false);
  });

  it('refuses a page past the maximum and a cursor it did not give out', async () => {
    const tooMany = await t.operator(ACCOUNTS, { first: 501 });
    expect(tooMany.errors?.[0]).toMatchObject({ extensions: { code: 'bad_request' } });
    const forged = await t.operator(ACCOUNTS, { after: 'not a cursor!' });
    expect(forged.errors?.[0]).toMatchObject({ message: 'after is not a cursor this service gave out', extensions: { code: 'bad_request' } });
  });
});

describe('createAccount: the sign-in form’s rule for an e-mail address', () => {
  it.each(["o'brien&co@t4.test", 'x+%3cb%3e@t4.test', 'jürgen@t4.test', 'a b@t4.test', 'no-domain@t4', '', `${'a'.repeat(250)}@t4.test`])(
    'refuses %j, making no account',
    async (email) => {
      const refused = await t.operator(CREATE_ACCOUNT, { e: email, p: 'free' });
      expect(refused.errors?.[0]?.message).toMatch(/Enter (your e-mail address|an e-mail address)|at most 254 characters/);
      const listed = await t.operator(ACCOUNTS, { first: 500 });
      expect(listed.data!.accounts.edges.map((edge) => edge.node.email)).not.toContain(email.trim().toLowerCase());
    },
  );

  it('takes an address as sign-in does: without case, blanks around it dropped, an apostrophe allowed', async () => {
    const made = await t.operator(graphql('mutation($e: EmailAddress!) { createAccount(email: $e, plan: free) { email } }'), { e: " O'Brien@T4.test " });
    expect(made.errors).toBeUndefined();
    expect(made.data!.createAccount.email).toBe("o'brien@t4.test");
  });
});
