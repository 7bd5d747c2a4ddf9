// `npm run --silent cli -- <command>`: operator commands. Each prints one JSON object on stdout; a
// refused one prints {"error": "..."} and exits 1, a usage mistake exits 2. `--help` prints the
// usage of every command (the README's and docs/operations.md's commands are checked against it).
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { ConfigError, parseConfig } from '../config.js';
import { NOT_UTF8 } from '../domain/text.js';
import { restore } from './backup.js';
import { commands } from './commands.js';
import { connectOperator, OperationFailed, OperatorError } from './operator-client.js';

const USAGE = `usage: npm run --silent cli -- <command> [--create]
  import <path-or-url>
  sync [path-or-url]
  account create --email E --plan free|starter|professional|business|enterprise
  account plan --email E --plan P
  account suspend --email E
  account unsuspend --email E
  key create --email E [--allowed-ips CIDR,CIDR] [--allowed-endpoints latest,historical,...] [--expires-on YYYY-MM-DD] [--monthly-cap N]
  key restrict --prefix P [--allowed-ips CIDR,CIDR] [--allowed-endpoints latest,historical,...] [--expires-on YYYY-MM-DD] [--monthly-cap N] [--clear]
  key revoke --prefix P
  query <file.graphql> [--variables JSON]
  backup <file>
  restore <file>
Key restrictions: endpoint names are latest, historical, timeseries, convert, fluctuation, averages,
export, webhooks, alerts, mcp; key restrict keeps the restrictions it is not given, and --clear removes them all.
Beside a running service (service.json in DATA_DIR) a command goes through its internal endpoint.
Without one it opens the store itself and says which on stderr; it opens an embedded database
that is not there yet only for import, or with --create. backup and restore are for the embedded
database (restore: the service stopped, into a DATA_DIR without one); PostgreSQL has pg_dump.`;

// A command runs for a second or two: compiling the embedded database's WebAssembly a second time
// with the optimising compiler costs more CPU than the faster code gives back in that time. Set
// before the database is opened, which is when the module is compiled.
setFlagsFromString('--liftoff-only');

function print(value: object): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/**
 * Node decodes the argument bytes as UTF-8 and puts U+FFFD where they are not: the bytes are lost,
 * so an argument holding U+FFFD cannot be known to be what was typed. (NUL and lone surrogates
 * cannot reach a program through its arguments; the Text scalar refuses them on every other path.)
 */
function undecodedArgument(args: readonly string[]): string | null {
  const index = args.findIndex((arg) => arg.includes('\uFFFD'));
  return index < 0 ? null : `argument ${index + 1} ('${args[index]}') ${NOT_UTF8}`;
}

async function main(): Promise<number> {
  const undecoded = undecodedArgument(process.argv.slice(2));
  if (undecoded !== null) {
    print({ error: `${undecoded}\n${USAGE}` });
    return 2;
  }
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        email: { type: 'string' },
        plan: { type: 'string' },
        prefix: { type: 'string' },
        variables: { type: 'string' },
        'allowed-ips': { type: 'string' },
        'allowed-endpoints': { type: 'string' },
        'expires-on': { type: 'string' },
        'monthly-cap': { type: 'string' },
        clear: { type: 'boolean' },
        create: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    print({ error: `${(error as Error).message}\n${USAGE}` });
    return 2;
  }
  const { create = false, help = false, ...options } = parsed.values;
  if (help || parsed.positionals[0] === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const [first = '', second = '', ...rest] = parsed.positionals;
  const twoWords = `${first} ${second}`;
  const [name, positionals] = commands[twoWords] ? [twoWords, rest] : [first, parsed.positionals.slice(1)];
  // A restore opens no store as the other commands do: it makes the database from the backup.
  if (name === 'restore') {
    print(await restore(parseConfig(process.env), { positionals, options }));
    return 0;
  }
  const command = commands[name];
  if (!command) {
    print({ error: `unknown command '${parsed.positionals.join(' ')}'\n${USAGE}` });
    return 2;
  }
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const client = await connectOperator(parseConfig(process.env), { create: create || name === 'import', say });
  try {
    print(await command(client, { positionals, options }));
    return 0;
  } finally {
    await client.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof OperationFailed) {
      print(error.result);
      process.exit(1);
    }
    const known = error instanceof OperatorError || error instanceof ConfigError;
    print({ error: known ? error.message : String(error) });
    if (!known) console.error(error);
    process.exit(1);
  },
);
