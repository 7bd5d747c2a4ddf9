// `npm start` and `npm run cli` run the bundles in dist/ (scripts/build.ts), rebuilt only when what
// they are built from changed since they were written: a start or a command then costs no build.
// Plain JavaScript run by Node, so the check itself loads no TypeScript (tsx's start-up alone
// would cost more than the command it guards). `--always` rebuilds in any case (`npm run build`);
// `--run <bundle> [args…]` then runs that bundle in this same process with those arguments
// (`npm run cli`), which saves a command a second start of Node.
//
// What changed is told by a fingerprint of every input's path, size and modification time, kept in
// dist/.sources after a build: an edit, a checkout, an added or a removed file, or a new install
// (package-lock.json) changes it.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const INPUTS = ['src', 'scripts/build.ts', 'package.json', 'package-lock.json', 'tsconfig.json'];
const BUNDLES = ['dist/main.js', 'dist/cli.js'];
const STAMP = 'dist/.sources';

/** `path size mtime` of every file under `path`, in a stable order. */
function* describe(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return;
  if (!stat.isDirectory()) {
    yield `${path}\t${stat.size}\t${stat.mtimeMs}\n`;
    return;
  }
  for (const name of readdirSync(path).sort()) yield* describe(join(path, name));
}

function fingerprint() {
  const hash = createHash('sha256');
  for (const input of INPUTS) for (const line of describe(input)) hash.update(line);
  return hash.digest('hex');
}

const runAt = process.argv.indexOf('--run');
const own = runAt < 0 ? process.argv.slice(2) : process.argv.slice(2, runAt);
const current = fingerprint();
const built = existsSync(STAMP) ? readFileSync(STAMP, 'utf8').trim() : null;
const fresh = built === current && BUNDLES.every((file) => existsSync(file));
if (!fresh || own.includes('--always')) {
  // stderr only: a command's stdout is its one JSON object
  const why = fresh ? 'asked to' : built === null ? 'no bundle yet' : 'the sources changed';
  process.stderr.write(`${why}: building dist/ (scripts/build.ts)\n`);
  const build = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (build.status !== 0) process.exit(build.status ?? 1);
  // the fingerprint taken before the build: an edit made while it ran is built by the next run
  writeFileSync(STAMP, `${current}\n`);
}

if (runAt >= 0) {
  const [bundle, ...args] = process.argv.slice(runAt + 1);
  if (!bundle) throw new Error('--run needs the bundle to run');
  // as `node --enable-source-maps <bundle> args…` would start it
  process.setSourceMapsEnabled(true);
  process.argv = [process.argv[0], resolve(bundle), ...args];
  await import(pathToFileURL(resolve(bundle)).href);
}
