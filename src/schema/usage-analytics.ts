// `usage`: requests over a range of Sydney dates, grouped by any of day, week, month, account,
// plan, key, endpoint and outcome, with the range's total, and keyless /convert requests by day
// and outcome; read from the per-day counts the REST facade writes in batches (src/rest/usage.ts),
// never from logs.
import { resolveOffsetConnection } from '@pothos/plugin-relay';
import { keylessConvertGroups, type KeylessConvertRow } from '../db/analytics/keyless-convert-groups.js';
import { keylessUsageTotal } from '../db/analytics/keyless-usage-total.js';
import { USAGE_DIMENSIONS, usageGroups, type UsageGroupRow, type UsageReportArgs } from '../db/analytics/usage-groups.js';
import { USAGE_OUTCOMES } from '../db/analytics/usage-outcome.js';
import { usageTotal } from '../db/analytics/usage-total.js';
import { sydneyDate } from '../domain/calendar.js';
import { AccountRef, PlanEnum } from './account.js';
import { analyticsRead, checkPage, checkRange, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './analytics-support.js';
import { ApiKeyRef } from './api-key.js';
import { builder } from './builder.js';

const UsageDimension = builder.enumType('UsageDimension', {
  description: 'What usage is grouped by. WEEK starts on Monday; PLAN is the account’s plan now.',
  values: USAGE_DIMENSIONS,
});
export const UsageOutcome = builder.enumType('UsageOutcome', {
  description: 'SUCCESS 2xx, NOT_MODIFIED 304, CLIENT_ERROR 4xx but 429, RATE_LIMITED 429, SERVER_ERROR 5xx',
  values: USAGE_OUTCOMES,
});
export const UsageOrder = builder.enumType('UsageOrder', {
  description: 'GROUPS: by the grouped values; REQUESTS_DESC: the busiest groups first (the top accounts, keys, …)',
  values: ['GROUPS', 'REQUESTS_DESC'] as const,
});

const UsageGroup = builder.objectRef<UsageGroupRow>('UsageGroup').implement({
  description: 'One group of requests; the fields of the dimensions not grouped by are null',
  fields: (t) => ({
    day: t.string({ nullable: true, resolve: (r) => r.day ?? null }),
    week: t.string({ nullable: true, description: 'the Monday the week starts on', resolve: (r) => r.week ?? null }),
    month: t.string({ nullable: true, description: 'the first day of the month', resolve: (r) => r.month ?? null }),
    accountId: t.string({ nullable: true, resolve: (r) => r.account_id ?? null }),
    accountEmail: t.string({ nullable: true, resolve: (r) => (r.account_id ? r.account_email : null) }),
    account: t.field({
      type: AccountRef,
      nullable: true,
      description: 'the account, when grouped by ACCOUNT',
      resolve: (r, _args, ctx) => (r.account_id ? ctx.loaders.account.load(r.account_id) : null),
    }),
    plan: t.field({ type: PlanEnum, nullable: true, resolve: (r) => r.plan ?? null }),
    keyId: t.string({ nullable: true, resolve: (r) => r.key_id ?? null }),
    keyPrefix: t.string({ nullable: true, resolve: (r) => (r.key_id ? r.key_prefix : null) }),
    key: t.field({
      type: ApiKeyRef,
      nullable: true,
      description: 'the key, when grouped by KEY',
      resolve: (r, _args, ctx) => (r.key_id ? ctx.loaders.apiKey.load(r.key_id) : null),
    }),
    endpoint: t.string({ nullable: true, description: 'the REST route’s operation name (Latest, Convert, …)', resolve: (r) => r.endpoint ?? null }),
    outcome: t.field({ type: UsageOutcome, nullable: true, resolve: (r) => r.outcome ?? null }),
    requests: t.int({ resolve: (r) => r.requests }),
  }),
});

const KeylessConvertGroup = builder.objectRef<KeylessConvertRow>('KeylessConvertGroup').implement({
  description: 'Keyless /convert requests of one Sydney day and outcome',
  fields: (t) => ({
    day: t.field({ type: 'LocalDate', resolve: (r) => r.day }),
    outcome: t.field({ type: UsageOutcome, resolve: (r) => r.outcome }),
    requests: t.int({ resolve: (r) => r.requests }),
  }),
});

const UsageReport = builder.objectRef<UsageReportArgs>('UsageReport').implement({
  authScopes: { operator: true },
  fields: (t) => ({
    from: t.field({ type: 'LocalDate', resolve: (r) => r.from }),
    to: t.field({ type: 'LocalDate', resolve: (r) => r.to }),
    totalRequests: t.int({
      resolve: (report, _args, ctx) => analyticsRead(ctx, (db) => usageTotal(db, report.from, report.to)),
    }),
    keylessConvertRequests: t.int({
      description: 'requests to /convert without a key over the range (they have no account, so are not in the groups)',
      resolve: (report, _args, ctx) => analyticsRead(ctx, (db) => keylessUsageTotal(db, report.from, report.to)),
    }),
    keylessConvert: t.connection({
      type: KeylessConvertGroup,
      description: 'requests to /convert without a key, per Sydney day and outcome, oldest first',
      resolve: (report, args, ctx) => {
        checkPage(args);
        return resolveOffsetConnection({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE }, ({ offset, limit }) =>
          analyticsRead(ctx, (db) => keylessConvertGroups(db, report.from, report.to, offset, limit)),
        );
      },
    }),
    groups: t.connection({
      type: UsageGroup,
      resolve: (report, args, ctx) => {
        checkPage(args);
        return resolveOffsetConnection({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE }, ({ offset, limit }) =>
          analyticsRead(ctx, (db) => usageGroups(db, report, sydneyDate(ctx.services.clock()), offset, limit)),
        );
      },
    }),
  }),
});

builder.queryFields((t) => ({
  usage: t.field({
    type: UsageReport,
    description: 'Requests with a key over an inclusive range of Sydney dates, and keyless /convert requests apart (operator only)',
    args: {
      from: t.arg({ type: 'LocalDate', required: true }),
      to: t.arg({ type: 'LocalDate', required: true }),
      groupBy: t.arg({ type: [UsageDimension], required: true, defaultValue: [] }),
      orderBy: t.arg({ type: UsageOrder, required: true, defaultValue: 'GROUPS' }),
    },
    authScopes: { operator: true },
    resolve: (_root, args) => {
      checkRange(args.from, args.to);
      return args;
    },
  }),
}));
