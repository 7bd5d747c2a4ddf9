import { syncRates, type SyncSummary } from '../jobs/rba-sync.js';
import { builder } from './builder.js';

const SyncResultRef = builder.objectRef<SyncSummary>('SyncResult').implement({
  description: 'What one poll of the RBA read and stored.',
  fields: (t) => ({
    sources: t.exposeStringList('sources', { description: 'What was read, in order (paths or URLs)' }),
    days: t.exposeInt('days', { description: 'Days read from 2018 on, summed over the sources' }),
    inserted: t.exposeInt('inserted', { description: 'Days not stored before' }),
    updated: t.exposeInt('updated', { description: 'Stored days that gained or corrected a value' }),
    published: t.expose('published', {
      type: 'LocalDate',
      nullable: true,
      description: 'The newest day this poll published (newer than any stored before); null when none',
    }),
    deliveries: t.exposeInt('deliveries', { description: 'Webhook deliveries recorded for the publication' }),
    newestDate: t.expose('newestDate', { type: 'LocalDate', nullable: true, description: 'The newest stored day after the poll' }),
  }),
});

builder.mutationField('syncRates', (t) =>
  t.field({
    type: SyncResultRef,
    description:
      'One poll of the RBA now: reads the configured RSS feed (RBA_RSS_URL) and stores it, and the CSV (RBA_CSV_URL) too when stored days have a gap the feed does not bridge; with `source`, reads just that path or URL (CSV, XLS or RSS). Stores through importRates: a day newer than any stored is a publication. A source that cannot be read or parsed is an error (code rba_source_failed) and stores nothing of it.',
    args: {
      source: t.arg({ type: 'Text', description: 'A path (absolute, as the service sees it) or an http(s) URL to read instead of the configured sources' }),
    },
    authScopes: { operator: true },
    resolve: async (_root, { source }, ctx) => {
      return syncRates(ctx.services, source ? { source } : {});
    },
  }),
);
