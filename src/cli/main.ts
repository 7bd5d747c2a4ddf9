// `npm run --silent cli -- <command>`: operator commands. Each prints one JSON object on stdout; a
// refused one prints {"error": "..."} and exits 1.
import { parseArgs } from 'node:util';
import { ConfigError, parseConfig } from '../config.js';
import { commands } from './commands.js';
import { connectOperator, OperatorError } from './operator-client.js';

const USAGE = `usage: npm run --silent cli -- <command>
  import <path-or-url>
  sync [path-or-url]
  account create --email E --plan free|starter|professional|business|enterprise
  account plan --email E --plan P
  account suspend --email E
  account unsuspend --email E
  key create --email E
  key revoke --prefix P`;

function print(value: object): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { email: { type: 'string' }, plan: { type: 'string' }, prefix: { type: 'string' } },
    });
  } catch (error) {
    print({ error: `${(error as Error).message}\n${USAGE}` });
    return 2;
  }
  const [first = '', second = '', ...rest] = parsed.positionals;
  const twoWords = `${first} ${second}`;
  const [name, positionals] = commands[twoWords] ? [twoWords, rest] : [first, parsed.positionals.slice(1)];
  const command = commands[name];
  if (!command) {
    print({ error: `unknown command '${parsed.positionals.join(' ')}'\n${USAGE}` });
    return 2;
  }
  const client = await connectOperator(parseConfig(process.env));
  try {
    print(await command(client, { positionals, options: parsed.values }));
    return 0;
  } finally {
    await client.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const known = error instanceof OperatorError || error instanceof ConfigError;
    print({ error: known ? error.message : String(error) });
    if (!known) console.error(error);
    process.exit(1);
  },
);
