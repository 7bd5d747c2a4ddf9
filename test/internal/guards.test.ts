// The internal endpoint refuses operations past its depth, cost and alias limits before running
// them, and an analytics read past its statement timeout is cancelled by the database.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { withStatementTimeout } from '../../src/db/statement-timeout.js';
import { QueryTimeoutError } from '../../src/errors.js';
import { OPERATION_LIMITS } from '../../src/internal/limits.js';
import { appForFile } from '../support/app.js';

const t = appForFile();

const messages = (result: { errors?: { message: string }[] }) => (result.errors ?? []).map((e) => e.message);

describe('operation limits on the internal endpoint', () => {
  it('runs an operation within the limits', async () => {
    expect(await t.operatorText('{ version currencies { code } }')).toEqual({ data: { version: expect.any(String), currencies: expect.any(Array) } });
  });

  it('refuses an operation nested deeper than the limit', async () => {
    const depth = OPERATION_LIMITS.depth + 1;
    const document = `{ ${'serviceStatus { '.repeat(depth)}state${' }'.repeat(depth)} }`;
    const result = await t.operatorText(document);
    expect(result.data).toBeUndefined();
    expect(messages(result)).toContain(`Syntax Error: Query depth limit of ${OPERATION_LIMITS.depth} exceeded, found ${depth + 1}.`);
  });

  it('refuses an operation whose cost is over the limit, even when every field is valid', async () => {
    const result = await t.operatorText(`{ currencies { ${'code '.repeat(OPERATION_LIMITS.cost)}} }`);
    expect(result.data).toBeUndefined();
    expect(messages(result)).toEqual([
      expect.stringMatching(new RegExp(`^Syntax Error: Query Cost limit of ${OPERATION_LIMITS.cost} exceeded, found [0-9]+\\.$`)),
    ]);
  });

  it('refuses more aliases than the limit', async () => {
    const aliases = Array.from({ length: OPERATION_LIMITS.aliases + 1 }, (_, i) => `v${i}: version`).join(' ');
    const result = await t.operatorText(`{ ${aliases} }`);
    expect(result.data).toBeUndefined();
    expect(messages(result)).toEqual([`Syntax Error: Aliases limit of ${OPERATION_LIMITS.aliases} exceeded, found ${OPERATION_LIMITS.aliases + 1}.`]);
  });
});

describe('statement timeout for analytics reads', () => {
  // PGlite runs statements on the one WASM thread with no timer to interrupt them: there the limit
  // is set but cannot fire, and only the operation limits above bound the work.
  it.skipIf(!process.env.DATABASE_URL)('cancels a statement that runs past the limit, as a query_timeout error', async () => {
    const started = Date.now();
    const slow = withStatementTimeout(t.db, 200, (trx) => sql`SELECT pg_sleep(5)`.execute(trx));
    await expect(slow).rejects.toThrow(QueryTimeoutError);
    await expect(slow).rejects.toMatchObject({ code: 'query_timeout' });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('leaves the connection without the limit afterwards, and answers a quick read', async () => {
    const quick = await withStatementTimeout(t.db, 200, (trx) => sql<{ one: number }>`SELECT 1 AS one`.execute(trx));
    expect(quick.rows).toEqual([{ one: 1 }]);
    const after = await sql<{ statement_timeout: string }>`SHOW statement_timeout`.execute(t.db);
    expect(after.rows[0]!.statement_timeout).toBe('0');
  });
});
