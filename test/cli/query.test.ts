// `cli query <file.graphql> [--variables JSON]`: any operation, through the running service's
// internal endpoint, printed as the one JSON result; a result with errors exits 1 with that result
// on stdout. The same service's GET /metrics is scraped over its socket with the bearer token.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importFixtureVia, oneJson, runCli, serviceOnOwnStore } from '../support/cli.js';
import { graphql } from '../../src/graphql.js';

const { store, service } = serviceOnOwnStore();
const dir = mkdtempSync(join(tmpdir(), 'cli-query-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function operationFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
const cli = (...args: string[]) => runCli(args, store.env);

describe('cli query', () => {
  it('prints the result of an operation with variables as one JSON object, exit 0', async () => {
    await importFixtureVia(service, 'f11.1-data.csv');
    const file = operationFile('day.graphql', 'query Day($date: LocalDate!) { rateDay(date: $date) { date rates(codes: [USD, EUR]) } }\n');
    const result = await cli('query', file, '--variables', '{"date":"2026-05-11"}');
    expect(result.code).toBe(0);
    const printed = oneJson(result);
    expect(printed).toEqual({ data: { rateDay: { date: '2026-05-11', rates: { USD: '0.7013', EUR: '0.5964' } } } });
    // the same answer the endpoint gives
    expect(printed.data).toEqual(
      await service.operator(graphql('query Day($date: LocalDate!) { rateDay(date: $date) { date rates(codes: [USD, EUR]) } }'), { date: '2026-05-11' }),
    );
  });

  it('exits 1 with the whole result on stdout when it has errors', async () => {
    const file = operationFile('missing.graphql', 'query Missing { rateDay(date: "2026-05-09") { date } }');
    const result = await cli('query', file);
    expect(result.code).toBe(1);
    const printed = oneJson(result);
    expect(printed.errors).toEqual([expect.objectContaining({ message: expect.any(String), extensions: { code: 'not_found' } })]);
    expect(printed).not.toHaveProperty('error');
  });

  it("is held to the endpoint's limits and validation", async () => {
    const aliases = Array.from({ length: 16 }, (_, i) => `v${i}: version`).join(' ');
    const [tooManyRun, invalid] = await Promise.all([
      cli('query', operationFile('aliases.graphql', `{ ${aliases} }`)),
      cli('query', operationFile('invalid.graphql', '{ nothingHere }')),
    ]);
    const tooMany = oneJson(tooManyRun);
    expect(tooManyRun.code).toBe(1);
    expect(tooMany.errors.map((e: { message: string }) => e.message)).toEqual(['Syntax Error: Aliases limit of 15 exceeded, found 16.']);
    expect(invalid.code).toBe(1);
    expect(oneJson(invalid).errors[0].message).toBe('Cannot query field "nothingHere" on type "Query".');
  });

  it('refuses a missing file, variables that are not a JSON object, and a missing file argument', async () => {
    const file = operationFile('version.graphql', '{ version }');
    const [missing, notJson, notObject, noFile] = await Promise.all([
      cli('query', join(dir, 'nope.graphql')),
      cli('query', file, '--variables', '{date:'),
      cli('query', file, '--variables', '[1]'),
      cli('query'),
    ]);
    expect([missing.code, oneJson(missing).error]).toEqual([1, expect.stringMatching(/^Cannot read .*nope\.graphql: ENOENT/)]);
    expect([notJson.code, oneJson(notJson).error]).toEqual([1, expect.stringMatching(/^--variables is not JSON: /)]);
    expect([notObject.code, oneJson(notObject)]).toEqual([1, { error: '--variables must be a JSON object' }]);
    expect([noFile.code, oneJson(noFile)]).toEqual([1, { error: 'usage: query <file.graphql> [--variables JSON]' }]);
  });
});

describe("the running service's GET /metrics", () => {
  it('answers Prometheus text with the bearer token, including database query times; 401 without it', async () => {
    const metricsUrl = service.internalUrl.replace(/\/graphql$/, '/metrics');
    expect((await fetch(metricsUrl)).status).toBe(401);
    const response = await fetch(metricsUrl, { headers: { Authorization: `Bearer ${service.operatorToken}` } });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toMatch(/^audrates_db_query_duration_seconds_count\{outcome="ok"\} [1-9][0-9]*$/m);
    expect(text).toMatch(/^audrates_newest_rate_day_age_seconds [0-9.e+]+$/m);
    expect(text).toMatch(/^process_cpu_seconds_total [0-9.e+-]+$/m);
  });
});
