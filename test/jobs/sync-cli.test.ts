// `cli sync [path-or-url]`: one poll now, printing one JSON summary. With no service running the CLI
// opens the database itself; with one running (on an embedded data directory, which only it may
// open) the poll runs in the service, with the service's configured sources, and the service serves
// the new day at once. A missing file exits non-zero with {"error"}.
import { relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountWithKeyVia,
  createCliStore,
  fixturePath,
  importFixtureVia,
  oneJson,
  ROOT,
  runCli,
  startService,
  succeeded,
  type CliStore,
  type RunningService,
} from '../support/cli.js';

const RSS_MAY_12 = fixturePath('rss-cb-exchange-rates-2026-05-12.xml');
const CSV = fixturePath('f11.1-data.csv');

let direct: CliStore;
let served: CliStore;
let service: RunningService;
beforeAll(async () => {
  [direct, served] = await Promise.all([createCliStore(), createCliStore({ embedded: true })]);
  service = await startService({ ...served.env, SCHEDULER: 'off', RBA_RSS_URL: RSS_MAY_12, RBA_CSV_URL: CSV });
}, 90_000);
afterAll(async () => {
  await service?.stop('SIGKILL');
  await Promise.all([direct?.close(), served?.close()]);
});

describe('cli sync with no service running', () => {
  it(
    'a file (relative path) is read, stored and summarised; then the configured feed brings the next day; a missing file is refused',
    { timeout: 90_000 },
    async () => {
      const relativeCsv = relative(ROOT, CSV); // runCli runs in ROOT
      const first = await runCli(['sync', relativeCsv], direct.env);
      expect(succeeded(first)).toEqual({
        sources: [CSV],
        days: 8,
        inserted: 8,
        updated: 0,
        published: '2026-05-11',
        deliveries: 0,
        newestDate: '2026-05-11',
      });
      expect(Object.keys(oneJson(first))).toEqual(['sources', 'days', 'inserted', 'updated', 'published', 'deliveries', 'newestDate']);
      expect(await direct.counts()).toMatchObject({ rates: 5 * 19 + 3 * 20, publications: 1 });

      const feed = succeeded(await runCli(['sync'], { ...direct.env, RBA_RSS_URL: RSS_MAY_12, RBA_CSV_URL: CSV }));
      expect(feed).toEqual({ sources: [RSS_MAY_12], days: 1, inserted: 1, updated: 0, published: '2026-05-12', deliveries: 0, newestDate: '2026-05-12' });

      const missing = await runCli(['sync', 'test/fixtures/rba/no-such-file.csv'], direct.env);
      expect(missing.code).toBe(1);
      const output = oneJson(missing);
      expect(Object.keys(output)).toEqual(['error']);
      expect(output.error).toContain(fixturePath('no-such-file.csv'));
      expect(output.error).toContain('ENOENT');
      expect(await direct.counts()).toMatchObject({ rates: 5 * 19 + 3 * 20 + 20, publications: 2 });
    },
  );
});

describe('cli sync while the service runs', () => {
  it('polls in the service, with its sources; the service serves the new day at once', { timeout: 90_000 }, async () => {
    await importFixtureVia(service, 'f11.1-data.csv');
    const { key } = await accountWithKeyVia(service, 'sync-cli@example.test', 'professional');
    expect((await service.get('/latest?symbols=USD', key)).body.date).toBe('2026-05-11');

    // The CLI's own environment names no sources (its defaults point at www.rba.gov.au, out of
    // reach here): the feed read is the one the service was configured with.
    const summary = succeeded(await runCli(['sync'], served.env));
    expect(summary).toEqual({ sources: [RSS_MAY_12], days: 1, inserted: 1, updated: 0, published: '2026-05-12', deliveries: 0, newestDate: '2026-05-12' });
    const latest = await service.get('/latest?symbols=USD', key);
    expect(latest.body).toMatchObject({ date: '2026-05-12', rates: { USD: 0.7031 } });

    const again = succeeded(await runCli(['sync', CSV], served.env));
    expect(again).toMatchObject({ sources: [CSV], inserted: 0, updated: 0, published: null, newestDate: '2026-05-12' });

    const missing = await runCli(['sync', '/no/such/dir/f11.1-data.csv'], served.env);
    expect(missing.code).toBe(1);
    expect(oneJson(missing).error).toMatch(/Cannot read \/no\/such\/dir\/f11\.1-data\.csv: ENOENT/);
  });
});
