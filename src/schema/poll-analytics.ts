// `rbaPolls`: the scheduler's polls of the RBA in a range of Sydney dates and what each came to:
// the day stored, not yet published, or failed and why. Recorded by the scheduler as it polls
// (src/jobs/rba-scheduler.ts) and kept 90 days.
import { resolveOffsetConnection } from '@pothos/plugin-relay';
import type { Selectable } from 'kysely';
import { rbaPolls } from '../db/analytics/rba-polls.js';
import type { RbaPollsTable } from '../db/database.js';
import { analyticsRead, checkPage, checkRange, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './analytics-support.js';
import { builder } from './builder.js';

const RbaPollOutcome = builder.enumType('RbaPollOutcome', {
  description:
    'STORED: the expected day is stored; NOT_PUBLISHED: the sources were read but the day is not out yet; FAILED: a source could not be read or parsed, or the store failed',
  values: { STORED: { value: 'stored' }, NOT_PUBLISHED: { value: 'not_published' }, FAILED: { value: 'failed' } },
});

const RbaPoll = builder.objectRef<Selectable<RbaPollsTable>>('RbaPoll').implement({
  description: 'One poll of the RBA by the leading process’s scheduler',
  fields: (t) => ({
    polledAt: t.field({ type: 'DateTime', resolve: (p) => p.polled_at }),
    durationMs: t.int({ resolve: (p) => p.duration_ms }),
    reason: t.string({ description: 'slot (the 16:00 publication) or catch-up (start-up, taking the lead)', resolve: (p) => p.reason }),
    expectedDate: t.field({ type: 'LocalDate', description: 'the rate day the poll looked for', resolve: (p) => p.expected_date }),
    outcome: t.field({ type: RbaPollOutcome, resolve: (p) => p.outcome }),
    sources: t.stringList({
      description: 'what was read, in order; for a failed poll the source that failed (none when the store failed)',
      resolve: (p) => p.sources,
    }),
    daysStored: t.int({ description: 'days not stored before', resolve: (p) => p.days_stored }),
    daysUpdated: t.int({ description: 'stored days that gained or corrected a value', resolve: (p) => p.days_updated }),
    newestDate: t.field({ type: 'LocalDate', nullable: true, description: 'the newest stored day after the poll', resolve: (p) => p.newest_date }),
    error: t.string({ nullable: true, description: 'why a failed poll failed', resolve: (p) => p.error }),
  }),
});

builder.queryFields((t) => ({
  rbaPolls: t.connection({
    type: RbaPoll,
    description: 'The scheduler’s polls of the RBA on an inclusive range of Sydney dates, newest first; kept 90 days (operator only)',
    args: {
      from: t.arg({ type: 'LocalDate', required: true }),
      to: t.arg({ type: 'LocalDate', required: true }),
      outcome: t.arg({ type: RbaPollOutcome, description: 'only the polls with this outcome' }),
    },
    authScopes: { operator: true },
    resolve: (_root, args, ctx) => {
      checkRange(args.from, args.to);
      checkPage(args);
      return resolveOffsetConnection({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE }, ({ offset, limit }) =>
        analyticsRead(ctx, (db) => rbaPolls(db, args, offset, limit)),
      );
    },
  }),
}));
