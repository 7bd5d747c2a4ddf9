// The example operations in docs/operations/*.graphql parse, validate against the schema and stay
// within the internal endpoint's limits, and each runs there without errors.
import { readdirSync, readFileSync } from 'node:fs';
import { parse, specifiedRules, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { operationLimitRules } from '../../src/internal/limits.js';
import { schema } from '../../src/schema/index.js';
import { appForFile } from '../support/app.js';

const DIR = new URL('../../docs/operations/', import.meta.url);
const files = readdirSync(DIR)
  .filter((name) => name.endsWith('.graphql'))
  .sort();
const VARIABLES = { from: '2026-05-01', to: '2026-05-31' };

const t = appForFile();

describe('saved operations', () => {
  it('exist', () => {
    expect(files.length).toBeGreaterThanOrEqual(3);
  });

  it.each(files)('%s is valid and within the limits', (name) => {
    const document = parse(readFileSync(new URL(name, DIR), 'utf8'));
    expect(validate(schema, document, [...specifiedRules, ...operationLimitRules]).map((e) => e.message)).toEqual([]);
  });

  it.each(files)('%s runs on the internal endpoint', async (name) => {
    const result = await t.operatorText(readFileSync(new URL(name, DIR), 'utf8'), VARIABLES);
    expect(result.errors).toBeUndefined();
    expect(result.data).toBeTruthy();
  });
});
