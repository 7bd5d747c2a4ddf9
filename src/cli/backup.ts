// `backup <file>` and `restore <file>`: the embedded database as one file (a gzipped tar of its
// directory). A backup is taken while the service runs, through its internal endpoint (or from the
// directory itself when none runs); a restore needs the service stopped and puts the copy into a
// DATA_DIR that holds no database yet. On a PostgreSQL server both are pg_dump's and pg_restore's
// work (docs/operations.md, Backups).
import { existsSync, openAsBlob, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../config.js';
import { findRunningService, keepDataDirPrivate } from '../service-file.js';
import type { CommandArgs } from './commands.js';
import { OperatorError, type OperatorClient } from './operator-client.js';

export const POSTGRES_BACKUP = 'DATABASE_URL names a PostgreSQL server: back it up with pg_dump and restore it with pg_restore (docs/operations.md, Backups)';

function fileArgument(args: CommandArgs, usage: string): string {
  const [file, ...extra] = args.positionals;
  if (!file || extra.length > 0) throw new OperatorError(`usage: ${usage}`);
  return resolve(file);
}

/** Writes the copy beside `file` first and renames it into place, so a file of that name is always a whole copy. */
export async function backup(client: OperatorClient, args: CommandArgs): Promise<object> {
  const file = fileArgument(args, 'backup <file>');
  const copy = await client.backup();
  const partial = `${file}.partial`;
  try {
    writeFileSync(partial, copy, { mode: 0o600 });
    renameSync(partial, file);
  } catch (error) {
    rmSync(partial, { force: true });
    throw new OperatorError(`Cannot write ${file}: ${(error as Error).message}`);
  }
  return { backup: file, bytes: copy.length };
}

/** Opens the copy as DATA_DIR's database (PGlite unpacks it there), and closes it. */
export async function restore(config: Config, args: CommandArgs): Promise<object> {
  const file = fileArgument(args, 'restore <file>');
  if (config.DATABASE_URL) throw new OperatorError(POSTGRES_BACKUP);
  const running = await findRunningService(config.DATA_DIR);
  if (running) throw new OperatorError(`A service (pid ${running.pid}) runs on DATA_DIR ${config.DATA_DIR}: stop it before restoring`);
  const pgdata = resolve(config.DATA_DIR, 'pgdata');
  if (existsSync(pgdata)) throw new OperatorError(`${pgdata} exists: move it aside (or restore into another DATA_DIR) first`);
  let copy: Blob;
  try {
    copy = await openAsBlob(file);
  } catch (error) {
    throw new OperatorError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  keepDataDirPrivate(config.DATA_DIR);
  const { openDatabase } = await import('../db/connect.js');
  try {
    const { db } = await openDatabase({ kind: 'pglite', dataDir: pgdata, loadDataDir: copy });
    await db.destroy();
  } catch (error) {
    rmSync(pgdata, { recursive: true, force: true });
    throw new OperatorError(`${file} is not a backup of the embedded database: ${(error as Error).message}`);
  }
  const dataDir = resolve(config.DATA_DIR);
  return { restored: file, dataDir, reminder: webhookKeyReminder(config, dataDir) };
}

/**
 * A backup holds the database alone, not the key that seals the webhook signing secrets in it: a
 * service started without that key makes a new one and can no longer sign any delivery.
 */
function webhookKeyReminder(config: Config, dataDir: string): string {
  const unopenable = 'the backup does not hold it, and without it the stored webhook signing secrets cannot be opened';
  if (config.WEBHOOK_KEY) return `Keep WEBHOOK_KEY set to the key the backed-up service used before starting the service: ${unopenable}`;
  return `Put the backed-up data directory's webhook-key file back as ${join(dataDir, 'webhook-key')} (or set WEBHOOK_KEY to it) before starting the service: ${unopenable}`;
}
