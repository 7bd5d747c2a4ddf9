import { nextPublicationSlotAt } from '../domain/calendar.js';
import { freshnessOf } from '../domain/freshness.js';
import { pingStore } from '../db/ping.js';
import { builder } from './builder.js';
import type { Context } from './context.js';

interface ServiceStatus {
  /** from the cached freshness: 'degraded' when stale or empty */
  state: 'operational' | 'degraded';
  /** false when the store holds nothing (or its freshness could not be read) */
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
    // `state` and `servable` (asked by /status) also check that the store answers right now.
    state: t.field({
      type: StateEnum,
      description: 'operational when the store answers and the data is fresh (D22)',
      resolve: async (s, _args, ctx) => ((await storeAnswers(ctx)) ? s.state : 'degraded'),
    }),
    servable: t.boolean({
      description: 'False when no rates can be served: the store is down or empty (HTTP 503)',
      resolve: async (s, _args, ctx) => s.servable && (await storeAnswers(ctx)),
    }),
    lastUpdate: t.expose('lastUpdate', { type: 'DateTime', nullable: true, description: 'When new rates were last stored' }),
    stale: t.exposeBoolean('stale', { description: 'Now is more than 2 hours past the due publication' }),
    nextUpdateExpected: t.expose('nextUpdateExpected', {
      type: 'DateTime',
      description: 'The first publication slot (business day, 16:00 Sydney) after the newest stored rate date',
    }),
    newestRateDate: t.expose('newestRateDate', { type: 'LocalDate', nullable: true }),
  }),
});

const STORE_PROBE_TIMEOUT_MS = 2_000;
const probes = new WeakMap<Context, Promise<boolean>>();

/** One `select 1` per request, bounded: a store that hangs counts as down. */
function storeAnswers(ctx: Context): Promise<boolean> {
  let probe = probes.get(ctx);
  if (!probe) {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), STORE_PROBE_TIMEOUT_MS)));
    const query = pingStore(ctx.services.db).then(
      () => true,
      () => false,
    );
    probe = Promise.race([query, timeout]).finally(() => clearTimeout(timer));
    probes.set(ctx, probe);
  }
  return probe;
}

async function serviceStatus(ctx: Context): Promise<ServiceStatus> {
  const now = ctx.services.clock();
  let history;
  try {
    history = await ctx.rates.history();
  } catch {
    return { state: 'degraded', servable: false, lastUpdate: null, stale: true, nextUpdateExpected: nextPublicationSlotAt(now), newestRateDate: null };
  }
  const { newestDate, nextDue: due, lastStoredAt } = history;
  if (newestDate === null || due === null) {
    return { state: 'degraded', servable: false, lastUpdate: lastStoredAt, stale: true, nextUpdateExpected: nextPublicationSlotAt(now), newestRateDate: null };
  }
  const { stale } = freshnessOf(history, now);
  return { state: stale ? 'degraded' : 'operational', servable: true, lastUpdate: lastStoredAt, stale, nextUpdateExpected: due, newestRateDate: newestDate };
}

builder.queryFields((t) => ({
  serviceStatus: t.field({ type: ServiceStatusRef, resolve: (_root, _args, ctx) => serviceStatus(ctx) }),
  version: t.string({ description: 'The service version (package.json)', resolve: (_root, _args, ctx) => ctx.services.version }),
}));
