// `alertFirings`: how many rate alerts publications fired, per rate day and per condition, for the
// operators (docs/operations.md). Counted from the firings themselves (src/db/alerts.ts).
import { alertFiringCounts, type AlertFiringCount } from '../db/analytics/alert-firings.js';
import { analyticsRead, checkRange } from './analytics-support.js';
import { builder } from './builder.js';

interface AlertFiringTotals {
  total: number;
  byDay: { date: string; firings: number }[];
  byCondition: { condition: string; firings: number }[];
  byDayAndCondition: AlertFiringCount[];
}

const DayCount = builder.objectRef<{ date: string; firings: number }>('AlertFiringDay').implement({
  fields: (t) => ({ date: t.expose('date', { type: 'LocalDate', description: 'the rate day' }), firings: t.exposeInt('firings') }),
});

const ConditionCount = builder.objectRef<{ condition: string; firings: number }>('AlertFiringCondition').implement({
  fields: (t) => ({ condition: t.exposeString('condition', { description: 'above, below or change_pct' }), firings: t.exposeInt('firings') }),
});

const DayConditionCount = builder.objectRef<AlertFiringCount>('AlertFiringDayCondition').implement({
  fields: (t) => ({
    date: t.expose('date', { type: 'LocalDate' }),
    condition: t.exposeString('condition'),
    firings: t.exposeInt('firings'),
  }),
});

const Totals = builder.objectRef<AlertFiringTotals>('AlertFirings').implement({
  description: 'Rate alerts fired by the publications of a range of rate days; tests are not firings',
  fields: (t) => ({
    total: t.exposeInt('total'),
    byDay: t.field({ type: [DayCount], description: 'rate days with firings, oldest first', resolve: (r) => r.byDay }),
    byCondition: t.field({ type: [ConditionCount], description: 'every condition, none left out', resolve: (r) => r.byCondition }),
    byDayAndCondition: t.field({ type: [DayConditionCount], resolve: (r) => r.byDayAndCondition }),
  }),
});

const CONDITIONS = ['above', 'below', 'change_pct'] as const;

builder.queryFields((t) => ({
  alertFirings: t.field({
    type: Totals,
    description: 'Rate alerts fired on an inclusive range of rate days: per day and per condition (operator only)',
    args: { from: t.arg({ type: 'LocalDate', required: true }), to: t.arg({ type: 'LocalDate', required: true }) },
    authScopes: { operator: true },
    resolve: async (_root, { from, to }, ctx) => {
      checkRange(from, to);
      const rows = await analyticsRead(ctx, (db) => alertFiringCounts(db, from, to));
      const byDay = new Map<string, number>();
      const byCondition = new Map<string, number>(CONDITIONS.map((c) => [c, 0]));
      for (const row of rows) {
        byDay.set(row.date, (byDay.get(row.date) ?? 0) + row.firings);
        byCondition.set(row.condition, (byCondition.get(row.condition) ?? 0) + row.firings);
      }
      return {
        total: rows.reduce((sum, row) => sum + row.firings, 0),
        byDay: [...byDay].map(([date, firings]) => ({ date, firings })),
        byCondition: [...byCondition].map(([condition, firings]) => ({ condition, firings })),
        byDayAndCondition: rows,
      };
    },
  }),
}));
