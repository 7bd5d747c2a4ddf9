import { resolveOffsetConnection } from '@pothos/plugin-relay';
import { findAccountByEmail, insertAccount, updateAccount } from '../db/accounts.js';
import { accountsPage } from '../db/accounts-page.js';
import { ACCOUNT_STATUSES, type Account } from '../db/database.js';
import { PLANS } from '../domain/plans.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { checkPage, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './analytics-support.js';
import { builder } from './builder.js';
import type { Context } from './context.js';

export const PlanEnum = builder.enumType('Plan', { values: PLANS });
const AccountStatusEnum = builder.enumType('AccountStatus', { values: ACCOUNT_STATUSES });

export const AccountRef = builder.objectRef<Account>('Account').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    email: t.exposeString('email'),
    plan: t.expose('plan', { type: PlanEnum }),
    status: t.expose('status', { type: AccountStatusEnum }),
    createdAt: t.expose('created_at', { type: 'DateTime' }),
  }),
});

export async function accountByEmail(ctx: Context, email: string): Promise<Account> {
  const account = await findAccountByEmail(ctx.services.db, email);
  if (!account) throw new NotFoundError(`No account with e-mail ${email.toLowerCase()}`);
  return account;
}

/** Plan and status decide what a key may do: every process's key cache must hear of the change. */
async function changeAccount(ctx: Context, email: string, changes: Parameters<typeof updateAccount>[2]): Promise<Account> {
  const account = await updateAccount(ctx.services.db, email, changes);
  if (!account) throw new NotFoundError(`No account with e-mail ${email.toLowerCase()}`);
  await ctx.services.changes.publish('keys_changed');
  return account;
}

builder.queryFields((t) => ({
  accounts: t.connection({
    type: AccountRef,
    description: 'Every account, oldest first; with `plan` or `status`, only those (operator only)',
    args: { plan: t.arg({ type: PlanEnum }), status: t.arg({ type: AccountStatusEnum }) },
    authScopes: { operator: true },
    resolve: (_root, args, ctx) => {
      checkPage(args);
      return resolveOffsetConnection({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE }, ({ offset, limit }) =>
        accountsPage(ctx.services.db, args, offset, limit),
      );
    },
  }),
}));

builder.mutationFields((t) => ({
  createAccount: t.field({
    type: AccountRef,
    args: {
      email: t.arg({ type: 'EmailAddress', required: true }),
      plan: t.arg({ type: PlanEnum, required: true }),
    },
    authScopes: { operator: true },
    resolve: async (_root, { email, plan }, ctx) => {
      const account = await insertAccount(ctx.services.db, { email, plan, signedUpAt: ctx.services.clock() });
      if (!account) throw new ConflictError(`An account with e-mail ${email.toLowerCase()} already exists`);
      return account;
    },
  }),
  setAccountPlan: t.field({
    type: AccountRef,
    description: 'Applies at once; existing keys keep working.',
    args: {
      email: t.arg({ type: 'EmailAddress', required: true }),
      plan: t.arg({ type: PlanEnum, required: true }),
    },
    authScopes: { operator: true },
    resolve: (_root, { email, plan }, ctx) => changeAccount(ctx, email, { plan }),
  }),
  setAccountStatus: t.field({
    type: AccountRef,
    description: "Suspends or reinstates an account; a suspended account's keys answer 401 account_suspended.",
    args: {
      email: t.arg({ type: 'EmailAddress', required: true }),
      status: t.arg({ type: AccountStatusEnum, required: true }),
    },
    authScopes: { operator: true },
    resolve: (_root, { email, status }, ctx) => changeAccount(ctx, email, { status }),
  }),
}));
