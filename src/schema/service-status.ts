import { nextPublicationSlotAt, publicationDueAfter } from '../domain/calendar.js';
import { builder } from './builder.js';
import type { Context } from './context.js';

const STALE_AFTER_MS = 2 * 60 * 60 * 1000; // D22: stale two hours past the due publication

interface ServiceStatus {
  state: 'operational' | 'degraded';
  /** false when rates cannot be served at all: the store is down or holds nothing (HTTP 503) */
  servable: boolean;
  lastUpdate: Date | null;
  stale: boolean;
  nextUpdateExpected: Date;
  newestRateDate: string | null;
}

const StateEnum = builder.enumType('ServiceState', { values: ['operational', 'degraded'] as const });

const ServiceStatusRef = builder.objectRef<ServiceStatus>('ServiceStatus').implement({
  description: 'Freshness of the stored data, as D22 defines it.',
  fields: (t) => ({
    state: t.expose('state', { type: StateEnum }),
    servable: t.exposeBoolean('servable', { description: 'False when no rates can be served (store down or empty)' }),
    lastUpdate: t.expose('lastUpdate', { type: 'DateTime', nullable: true, description: 'When new rates were last stored' }),
    stale: t.exposeBoolean('stale', { description: 'Now is more than 2 hours past the due publication' }),
    nextUpdateExpected: t.expose('nextUpdateExpected', {
      type: 'DateTime',
      description: 'The first publication slot (business day, 16:00 Sydney) after the newest stored rate date',
    }),
    newestRateDate: t.expose('newestRateDate', { type: 'LocalDate', nullable: true }),
  }),
});

// The due slot depends only on the newest date: remembered, as every rate response asks for it.
let dueMemo: { date: string; due: Date } | null = null;
function dueAfter(date: string): Date {
  if (dueMemo?.date !== date) dueMemo = { date, due: publicationDueAfter(date) };
  return dueMemo.due;
}

async function serviceStatus(ctx: Context): Promise<ServiceStatus> {
  const now = ctx.services.clock();
  let freshness;
  try {
    freshness = await ctx.services.rateCache.freshness();
  } catch {
    return { state: 'degraded', servable: false, lastUpdate: null, stale: true, nextUpdateExpected: nextPublicationSlotAt(now), newestRateDate: null };
  }
  const { newestDate, lastStoredAt } = freshness;
  if (newestDate === null) {
    return { state: 'degraded', servable: false, lastUpdate: lastStoredAt, stale: true, nextUpdateExpected: nextPublicationSlotAt(now), newestRateDate: null };
  }
  const due = dueAfter(newestDate);
  const stale = now.getTime() > due.getTime() + STALE_AFTER_MS;
  return { state: stale ? 'degraded' : 'operational', servable: true, lastUpdate: lastStoredAt, stale, nextUpdateExpected: due, newestRateDate: newestDate };
}

builder.queryFields((t) => ({
  serviceStatus: t.field({ type: ServiceStatusRef, resolve: (_root, _args, ctx) => serviceStatus(ctx) }),
  version: t.string({ description: 'The service version (package.json)', resolve: (_root, _args, ctx) => ctx.services.version }),
}));
