// Files under DATA_DIR are for the service's user alone. The process umask narrows what Node and
// Postgres create, but PGlite gives the files of a new database (and the relation cache file it
// writes at each start) mode 0666 explicitly, so those are narrowed after the fact.
import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Takes group and other permissions off `path` and, for a directory, everything under it. */
export function narrowToOwner(path: string): void {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return; // not created yet
  }
  if (stat.isSymbolicLink()) return;
  if ((stat.mode & 0o077) !== 0) chmodSync(path, stat.mode & 0o700);
  if (stat.isDirectory()) for (const name of readdirSync(path)) narrowToOwner(join(path, name));
}
