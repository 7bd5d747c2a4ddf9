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
