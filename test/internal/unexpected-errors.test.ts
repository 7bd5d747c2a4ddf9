// A fault no rule foresaw (here: the app's database connection gone, which is no stalled store but
// a broken one) is answered with GraphQL's masked "Unexpected error." and nothing of its cause, and
// logged whole, so that the operator finds the cause in the log rather than nowhere.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

const logged: Record<string, any>[] = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logged.push(JSON.parse(chunk.toString('utf8')));
    done();
  },
});

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ logger: pino({ level: 'info' }, sink) });
});
// the database is already closed by the test
afterAll(() => t.app.close());

it('masks a fault in the answer and logs it with its cause and the field it broke', async () => {
  expect(await t.operatorText('{ accountStats { byPlanAndStatus { plan accounts } } }')).toMatchObject({ data: { accountStats: expect.anything() } });
  expect(logged.filter((line) => line.msg === 'internal operation failed')).toEqual([]);

  await t.db.destroy();
  const result = await t.operatorText('{ accountStats { byPlanAndStatus { plan accounts } } }');
  expect(result.errors).toEqual([expect.objectContaining({ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } })]);
  expect(JSON.stringify(result)).not.toMatch(/destroyed|stack|\.ts:/i);

  const faults = logged.filter((line) => line.msg === 'internal operation failed');
  expect(faults).toHaveLength(1);
  expect(faults[0]!.level).toBe(50);
  expect(faults[0]!.path).toEqual(['accountStats', 'byPlanAndStatus']);
  expect(faults[0]!.err.message).toMatch(/destroyed/i);
  expect(faults[0]!.err.stack).toEqual(expect.any(String));
});
