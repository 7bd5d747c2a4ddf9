// The embedded database must only ever be open in one process: two PGlite instances writing one
// directory corrupt it. A service's service.json says so only once it listens, seconds after it
// opened the database, and a pid means nothing across containers; this lock covers the whole time
// a process has the directory open, whoever opens it (a service, an operator command, a restore).
// proper-lockfile's lock is a directory beside it (`pgdata.lock`), created atomically and kept
// fresh while its holder lives, so the lock of a process that was killed goes stale and is taken over.
import lockfile from 'proper-lockfile';
import { StoreOpenError } from '../errors.js';

/**
 * How long a lock not kept fresh counts as held. The holder keeps it fresh from its event loop,
 * which PGlite blocks while it runs: the first start of a new directory (initdb and the
 * migrations) is one such stretch, several seconds on a busy machine.
 */
const STALE_MS = 30_000;
/** How often the holder keeps it fresh. */
const UPDATE_MS = 5_000;
/** How often a process waiting for the lock of a killed holder looks again. */
const RETRY_MS = 500;

/**
 * Takes the lock on `dir` (an embedded database's directory), waiting out the stale lock of a
 * holder that was killed; resolves with its release, which is synchronous so that a failed open
 * gives the lock back before anything else runs. A lock held by a live process refuses with a
 * StoreOpenError. Should the lock be lost while held (taken over after this process stalled for
 * longer than STALE_MS, or removed), the process stops at once rather than write the directory
 * beside another.
 */
export async function lockDirectory(dir: string): Promise<() => void> {
  const options: lockfile.LockOptions = {
    stale: STALE_MS,
    update: UPDATE_MS,
    realpath: false,
    onCompromised: (error) => {
      console.error(`The lock on ${dir} was lost (${error.message}): stopping before the database is written by two processes`);
      process.exit(1);
    },
  };
  try {
    await lockfile.lock(dir, options).catch(async (error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
      // Said at once: whoever started this sees why nothing happens for a while.
      console.error(`The embedded database in ${dir} is locked by another process: waiting up to ${STALE_MS / 1000} s, in case that process was killed`);
      await lockfile.lock(dir, { ...options, retries: { retries: Math.ceil(STALE_MS / RETRY_MS) + 2, factor: 1, minTimeout: RETRY_MS, maxTimeout: RETRY_MS } });
    });
    return () => lockfile.unlockSync(dir, { realpath: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    throw new StoreOpenError(
      `The embedded database in ${dir} is open in another process (a service starting or running, or an operator command); stop it first or use another DATA_DIR`,
      { cause: error },
    );
  }
}
