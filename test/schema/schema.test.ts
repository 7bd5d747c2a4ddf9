import { readFileSync } from 'node:fs';
import { parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { prepareDocuments } from '../../src/rest/app.js';
import { routes } from '../../src/rest/routes.js';
import { schema } from '../../src/schema/index.js';
import { printedSchema } from '../../src/schema/print.js';

describe('schema', () => {
  it('matches the committed schema.graphql (run `npm run schema:print` after changing src/schema)', () => {
    expect(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8')).toBe(printedSchema());
  });

  it.each(routes.map((r) => [r.name, r] as const))('route %s runs a document valid against the schema', (_name, route) => {
    expect(validate(schema, parse(route.document))).toEqual([]);
  });

  it('refuses a route whose document does not validate', () => {
    const broken = { ...routes[0]!, name: 'Broken', document: 'query Broken { nope }' };
    expect(() => prepareDocuments(schema, [broken])).toThrow(/Route Broken: Cannot query field "nope"/);
  });
});
