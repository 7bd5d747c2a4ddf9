// `accountStats`: accounts by plan and status, accounts created per Sydney day, and the accounts
// at or above a share of their quota in the current period.
import { resolveArrayConnection } from '@pothos/plugin-relay';
import { accountsByPlanAndStatus, type PlanStatusCount } from '../db/analytics/accounts-by-plan-and-status.js';
import { accountsCreatedByDay, type AccountsCreatedOnDay } from '../db/analytics/accounts-created-by-day.js';
import { quotaAlerts, type QuotaUse } from '../db/analytics/quota-alerts.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import { AccountRef, PlanEnum } from './account.js';
import { analyticsRead, checkPage, checkRange, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './analytics-support.js';
import { builder } from './builder.js';

const PlanStatusCountRef = builder.objectRef<PlanStatusCount>('AccountsByPlanAndStatus').implement({
  fields: (t) => ({
    plan: t.field({ type: PlanEnum, resolve: (c) => c.plan }),
    status: t.string({ resolve: (c) => c.status }),
    accounts: t.int({ resolve: (c) => c.accounts }),
  }),
});

const CreatedDayRef = builder.objectRef<AccountsCreatedOnDay>('AccountsCreatedOnDay').implement({
  fields: (t) => ({
    day: t.field({ type: 'LocalDate', resolve: (d) => d.day }),
    accounts: t.int({ resolve: (d) => d.accounts }),
  }),
});

const QuotaUseRef = builder.objectRef<QuotaUse>('AccountQuotaUse').implement({
  fields: (t) => ({
    email: t.string({ resolve: (q) => q.email }),
    account: t.field({
      type: AccountRef,
      resolve: async (q, _args, ctx) => {
        const account = await ctx.loaders.accountByEmail.load(q.email);
        if (!account) throw new NotFoundError(`No account with e-mail ${q.email}`);
        return account;
      },
    }),
    plan: t.field({ type: PlanEnum, resolve: (q) => q.plan }),
    used: t.int({ description: 'units taken this period (with any a running process holds but has not used yet)', resolve: (q) => q.used }),
    quota: t.int({ resolve: (q) => q.quota }),
    percent: t.float({ resolve: (q) => (100 * q.used) / q.quota }),
    periodStart: t.field({ type: 'LocalDate', nullable: true, description: 'null on Free, whose allowance never resets', resolve: (q) => q.periodStart }),
  }),
});

const AccountStats = builder.objectRef<object>('AccountStats').implement({
  authScopes: { operator: true },
  fields: (t) => ({
    byPlanAndStatus: t.field({
      type: [PlanStatusCountRef],
      resolve: (_s, _a, ctx) => analyticsRead(ctx, (db) => accountsByPlanAndStatus(db)),
    }),
    createdByDay: t.field({
      type: [CreatedDayRef],
      description: 'accounts created per Sydney day of an inclusive range (days with none left out)',
      args: { from: t.arg({ type: 'LocalDate', required: true }), to: t.arg({ type: 'LocalDate', required: true }) },
      resolve: (_s, { from, to }, ctx) => {
        checkRange(from, to);
        return analyticsRead(ctx, (db) => accountsCreatedByDay(db, from, to));
      },
    }),
    quotaAlerts: t.connection({
      type: QuotaUseRef,
      description: 'active accounts at or above atLeastPercent of their quota in the current period, the fullest first',
      args: { atLeastPercent: t.arg.int({ required: true, defaultValue: 75 }) },
      resolve: async (_s, args, ctx) => {
        checkPage(args);
        if (args.atLeastPercent < 1 || args.atLeastPercent > 100) throw new BadRequestError('atLeastPercent must be between 1 and 100');
        const alerts = await analyticsRead(ctx, (db) => quotaAlerts(db, ctx.services.clock(), args.atLeastPercent));
        // ordered here, not in SQL: localeCompare's order of e-mails is not the database collation's
        alerts.sort((a, b) => b.used / b.quota - a.used / a.quota || a.email.localeCompare(b.email));
        return resolveArrayConnection({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE }, alerts);
      },
    }),
  }),
});

builder.queryFields((t) => ({
  accountStats: t.field({
    type: AccountStats,
    description: 'Accounts by plan and status, sign-ups by day, and quota alerts (operator only)',
    authScopes: { operator: true },
    resolve: () => ({}),
  }),
}));
