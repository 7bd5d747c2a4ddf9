// `publications` and `coverage` answer exactly from what the test stored: when each day was stored
// and how long after its 16:00 Sydney slot, its corrections, and the business days with gaps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLISHED_CODES } from '../../src/domain/currencies.js';
import { graphql, type TadaDocumentNode } from '../../src/graphql.js';
import { startTestApp, type TestApp, type VariablesArgs } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  // 16:30 on Monday 11 May 2026 in Sydney (AEST, UTC+10): half an hour after the day's slot
  t = await startTestApp({ now: '2026-05-11T06:30:00Z' });
  await t.importTable(
    {
      format: 'rss',
      publicationDate: null,
      days: [
        { date: '2026-05-08', rates: { USD: '0.6500', EUR: '0.6000' } },
        { date: '2026-05-11', rates: { USD: '0.6510', EUR: '0.6010' } },
      ],
    },
    'feed-a',
  );
  t.setNow('2026-05-12T07:00:00Z');
  await t.importTable({ format: 'csv', publicationDate: null, days: [{ date: '2026-05-11', rates: { USD: '0.6511', EUR: '0.6010' } }] }, 'csv-b');
});
afterAll(() => t?.close());

const run = async <Result, Variables>(document: TadaDocumentNode<Result, Variables>, ...variables: VariablesArgs<Variables>) => {
  const result = await t.operator(document, ...variables);
  if (result.errors) throw new Error(JSON.stringify(result.errors));
  return result.data!;
};

describe('publications', () => {
  it('lists stored days newest first, with when, from what, the lag after the slot and corrections', async () => {
    const { publications } = await run(
      graphql('{ publications(from: "2026-05-01", to: "2026-05-31") { edges { node { date storedAt lagSeconds source format codes corrections } } } }'),
    );
    expect(publications.edges.map((e: { node: object }) => e.node)).toEqual([
      // EUR is still the first import's value: the day counts as stored then; USD was corrected once
      { date: '2026-05-11', storedAt: '2026-05-11T06:30:00.000Z', lagSeconds: 30 * 60, source: 'feed-a', format: 'rss', codes: 2, corrections: 1 },
      { date: '2026-05-08', storedAt: '2026-05-11T06:30:00.000Z', lagSeconds: 3 * 86_400 + 30 * 60, source: 'feed-a', format: 'rss', codes: 2, corrections: 0 },
    ]);
  });

  it('pages with a cursor', async () => {
    const first = (
      await run(graphql('{ publications(from: "2026-05-01", to: "2026-05-31", first: 1) { edges { node { date } } pageInfo { hasNextPage endCursor } } }'))
    ).publications;
    expect(first.edges).toEqual([{ node: { date: '2026-05-11' } }]);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = (
      await run(
        graphql(
          'query($after: ID) { publications(from: "2026-05-01", to: "2026-05-31", first: 1, after: $after) { edges { node { date } } pageInfo { hasNextPage } } }',
        ),
        {
          after: first.pageInfo.endCursor,
        },
      )
    ).publications;
    expect(second).toEqual({ edges: [{ node: { date: '2026-05-08' } }], pageInfo: { hasNextPage: false } });
  });
});

describe('coverage', () => {
  it('lists the business days with gaps and the codes each lacks; weekends are not gaps', async () => {
    const { coverage } = await run(graphql('{ coverage(from: "2026-05-07", to: "2026-05-12") { edges { node { date stored missingCodes } } } }'));
    const others = PUBLISHED_CODES.filter((code) => code !== 'USD' && code !== 'EUR');
    expect(coverage.edges.map((e: { node: object }) => e.node)).toEqual([
      { date: '2026-05-07', stored: false, missingCodes: [...PUBLISHED_CODES] },
      { date: '2026-05-08', stored: true, missingCodes: others },
      { date: '2026-05-11', stored: true, missingCodes: others },
      { date: '2026-05-12', stored: false, missingCodes: [...PUBLISHED_CODES] },
    ]);
  });
});
