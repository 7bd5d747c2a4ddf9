// `npm run schema:print` rewrites schema.graphql; a test fails when the committed copy is out of date.
import { writeFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { schema } from './index.js';

export const printedSchema = () => `${printSchema(schema)}\n`;

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(new URL('../../schema.graphql', import.meta.url), printedSchema());
}
