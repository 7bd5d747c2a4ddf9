// Analytics about the stored data: when each rate day was stored and how long after its 16:00
// Sydney slot (`publications`), and which business days and codes are missing (`coverage`).
import { resolveArrayConnection, resolveOffsetConnection } from '@pothos/plugin-relay';
import { publicationDays, type StoredDay } from '../db/analytics/publication-days.js';
import { storedCodesByDate } from '../db/analytics/stored-codes-by-date.js';
import { addDays, isBusinessDay, publicationSlot } from '../domain/calendar.js';
import { PUBLISHED_CODES } from '../domain/currencies.js';
import { analyticsRead, checkPage, checkRange, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './analytics-support.js';
import { builder } from './builder.js';

const PublicationDay = builder.objectRef<StoredDay>('PublicationDay').implement({
  description: 'A stored rate day: when it was stored, from what, and how long after its publication slot',
  fields: (t) => ({
    date: t.field({ type: 'LocalDate', resolve: (d) => d.date }),
    storedAt: t.field({ type: 'DateTime', description: 'when the earliest of its values still held was stored', resolve: (d) => d.stored_at }),
    lagSeconds: t.int({
      description: 'seconds from the 16:00 Sydney slot to storedAt (negative never; history imports are months late)',
      resolve: (d) => Math.round((d.stored_at.getTime() - publicationSlot(d.date).getTime()) / 1000),
    }),
    source: t.string({ description: 'the file, URL or feed it was stored from', resolve: (d) => d.source }),
    format: t.string({ resolve: (d) => d.format }),
    codes: t.int({ description: 'currencies stored for the day', resolve: (d) => d.codes }),
    corrections: t.int({ description: 'values of the day later replaced by a different published value (rate_corrections)', resolve: (d) => d.corrections }),
  }),
});

interface CoverageDay {
  date: string;
  missing: readonly string[];
}

const CoverageDayRef = builder.objectRef<CoverageDay>('CoverageDay').implement({
  description: 'A business day with a gap: no rates at all, or some codes missing',
  fields: (t) => ({
    date: t.field({ type: 'LocalDate', resolve: (d) => d.date }),
    missingCodes: t.stringList({ resolve: (d) => [...d.missing] }),
    stored: t.boolean({ description: 'false: nothing at all stored for the day', resolve: (d) => d.missing.length < PUBLISHED_CODES.length }),
  }),
});

builder.queryFields((t) => ({
  publications: t.connection({
    type: PublicationDay,
    description: 'Stored rate days in an inclusive range of dates, newest first (operator only)',
    args: { from: t.arg({ type: 'LocalDate', required: true }), to: t.arg({ type: 'LocalDate', required: true }) },
    authScopes: { operator: true },
    resolve: (_root, args, ctx) => {
      checkRange(args.from, args.to);
      checkPage(args);
      return resolveOffsetConnection({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE }, ({ offset, limit }) =>
        analyticsRead(ctx, (db) => publicationDays(db, args.from, args.to, offset, limit)),
      );
    },
  }),
  coverage: t.connection({
    type: CoverageDayRef,
    description:
      'The business days (Monday to Friday but NSW holidays) in an inclusive range whose rates are missing or incomplete, oldest first. A code the RBA did not publish that day is counted as missing too (operator only)',
    args: { from: t.arg({ type: 'LocalDate', required: true }), to: t.arg({ type: 'LocalDate', required: true }) },
    authScopes: { operator: true },
    resolve: async (_root, args, ctx) => {
      checkRange(args.from, args.to);
      checkPage(args);
      const stored = await analyticsRead(ctx, (db) => storedCodesByDate(db, args.from, args.to));
      const gaps: CoverageDay[] = [];
      for (let date = args.from; date <= args.to; date = addDays(date, 1)) {
        if (!isBusinessDay(date)) continue;
        const codes = stored.get(date);
        const missing = PUBLISHED_CODES.filter((code) => !codes?.has(code));
        if (missing.length > 0) gaps.push({ date, missing });
      }
      return resolveArrayConnection({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE }, gaps);
    },
  }),
}));
