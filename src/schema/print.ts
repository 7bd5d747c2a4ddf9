// `npm run schema:print` rewrites schema.graphql from the code, then the typed documents'
// introspection output (src/graphql-env.d.ts, see src/graphql.ts) from schema.graphql.
// `--check`, run by `npm run typecheck`, writes nothing and fails when either is out of date; a test
// also compares schema.graphql with the code.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printSchema } from 'graphql';
import { schema } from './index.js';

export const printedSchema = () => `${printSchema(schema)}\n`;

const SCHEMA_FILE = new URL('../../schema.graphql', import.meta.url);
const INTROSPECTION_FILE = new URL('../graphql-env.d.ts', import.meta.url);
const TSCONFIG = fileURLToPath(new URL('../../tsconfig.json', import.meta.url));

/** gql.tada's introspection output for schema.graphql as it is on disk (the schema tsconfig.json names). */
async function generatedIntrospection(): Promise<string> {
  const { generateOutput } = await import('@gql.tada/cli-utils');
  const dir = mkdtempSync(join(tmpdir(), 'graphql-env-'));
  try {
    const output = join(dir, 'graphql-env.d.ts');
    await generateOutput({ output, tsconfig: TSCONFIG, silent: true });
    return readFileSync(output, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function check(): Promise<string[]> {
  const stale: string[] = [];
  if (readFileSync(SCHEMA_FILE, 'utf8') !== printedSchema()) stale.push('schema.graphql does not match src/schema');
  if (readFileSync(INTROSPECTION_FILE, 'utf8') !== (await generatedIntrospection())) stale.push('src/graphql-env.d.ts does not match schema.graphql');
  return stale;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--check')) {
    const stale = await check();
    if (stale.length > 0) {
      console.error(`${stale.join('\n')}\nRun \`npm run schema:print\` and commit both files.`);
      process.exit(1);
    }
  } else {
    writeFileSync(SCHEMA_FILE, printedSchema());
    writeFileSync(INTROSPECTION_FILE, await generatedIntrospection());
  }
}
