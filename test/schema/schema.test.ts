import { readFileSync } from 'node:fs';
import { getNamedType, isInputObjectType, isObjectType, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { checkDocuments } from '../../src/schema/executor.js';
import { routes } from '../../src/rest/routes.js';
import { schema } from '../../src/schema/index.js';
import { printedSchema } from '../../src/schema/print.js';

describe('schema', () => {
  it('matches the committed schema.graphql (run `npm run schema:print` after changing src/schema)', () => {
    expect(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8')).toBe(printedSchema());
  });

  it.each(routes.map((r) => [r.name, r] as const))('route %s runs a document valid against the schema', (_name, route) => {
    expect(validate(schema, route.document)).toEqual([]);
  });

  it('refuses a route whose document does not validate', () => {
    const broken = { ...routes[0]!, name: 'Broken', document: parse('query Broken { nope }') };
    expect(() => checkDocuments(schema, { [broken.name]: broken.document })).toThrow(/Operation Broken: Cannot query field "nope"/);
  });

  it('takes no String as input: every text argument and input field is Text, which refuses NUL and lone surrogates', () => {
    const inputs: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__')) continue;
      if (isObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          for (const arg of field.args) inputs.push(`${type.name}.${field.name}(${arg.name}): ${getNamedType(arg.type).name}`);
        }
      } else if (isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) inputs.push(`${type.name}.${field.name}: ${getNamedType(field.type).name}`);
      }
    }
    expect(inputs.filter((input) => input.endsWith(': String'))).toEqual([]);
    // IDs only as the analytics connections' cursors, whose shape is checked before use
    expect(inputs.filter((input) => input.endsWith(': ID') && !/\((after|before)\): ID$/.test(input))).toEqual([]);
    expect(inputs.filter((input) => input.endsWith(': Text')).length).toBeGreaterThanOrEqual(8);
  });
});
