// Bundles the service for `npm start` (dist/main.js) and the operator commands for `npm run cli`
// (dist/cli.js), sharing their chunks: plain JavaScript, so a start loads no
// TypeScript through tsx and runs no name-keeping wrappers around every function tsx adds, so it
// costs less CPU per request and starts faster. Most packages are bundled with it; the
// few left out stay in node_modules, so a bundle is written inside the project, where Node finds
// them. `npm start` and `npm run cli` run this through scripts/build-if-changed.js, only when the
// sources changed since the last bundle.
//
// A module that reads a file beside its source (`new URL('./guide.md', import.meta.url)`, a
// package resolved from its own place) gets its source file's URL as `import.meta.url`, so the
// bundle reads exactly the files the sources do.
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const sourceUrls: Plugin = {
  name: 'source-import-meta-url',
  setup(onBuild) {
    onBuild.onLoad({ filter: /\.tsx?$/ }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      return {
        contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href)),
        loader: path.endsWith('x') ? 'tsx' : 'ts',
      };
    });
  },
};

/**
 * How `npm start` runs the bundle (package.json's start script writes them out; the bench and the
 * bundle's test start it the same way, and that test checks the script against this list):
 * - source maps, so a logged stack trace names the TypeScript sources;
 * - a young generation of 64 MiB per semi-space instead of V8's 16: a request's garbage (its
 *   parsed URL, context, answer text) dies young, and a larger young generation collects it less
 *   often. The cost is memory: the young generation may grow to 64 MiB per
 *   semi-space under load.
 */
export const SERVICE_NODE_FLAGS = ['--enable-source-maps', '--max-semi-space-size=64'] as const;

/** What is bundled: the service (`dist/main.js`) and the operator commands (`dist/cli.js`). */
export const ENTRIES = { main: 'src/main.ts', cli: 'src/cli/main.ts' } as const;

/**
 * Bundles each entry (a TypeScript file, by its bundle's name) into `outdir`: `<name>.js`, an ES
 * module with its source map beside it, and the chunks they import when they run (src/main.ts
 * loads the service while the database opens; the CLI loads the service's modules only when no
 * service runs). Chunks are named by their content, so a rebuild beside a running service leaves
 * the chunks it has yet to load in place.
 */
export async function bundleEntries(entries: Readonly<Record<string, string>>, outdir: string): Promise<void> {
  await build({
    entryPoints: Object.entries(entries).map(([out, entry]) => ({ in: entry, out })),
    outdir,
    chunkNames: 'chunks/[name]-[hash]',
    splitting: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Packages are bundled too: loading hundreds of small module files (kysely, graphql, zod…)
    // was a fifth of a start. These stay in node_modules: PGlite reads its WebAssembly and data
    // files beside its own module, pino starts worker threads from its files, and the rest load
    // only when used (a Postgres server, a first e-mail, an .xls import, GraphiQL's page, which is
    // 9 MB of strings). None of them imports graphql: its one copy is the bundle's, as every
    // GraphQL package here requires.
    external: ['@electric-sql/pglite', 'pino', 'pg', 'nodemailer', '@e965/xlsx', '@graphql-yoga/render-graphiql', 'esbuild'],
    // Bundled CommonJS packages require Node's built-in modules.
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
    sourcemap: 'linked',
    // Stack traces need only the mappings; the sources are in the project.
    sourcesContent: false,
    logLevel: 'warning',
    plugins: [sourceUrls],
  });
}

/** Bundles one entry alone, as `<its file's name>.js` in `outdir`; returns that bundle's path. */
export async function bundle(entry: string, outdir: string): Promise<string> {
  const name = basename(entry).replace(/\.tsx?$/, '');
  await bundleEntries({ [name]: entry }, outdir);
  return join(outdir, `${name}.js`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await bundleEntries(ENTRIES, 'dist');
