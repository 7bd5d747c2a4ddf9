// The operator commands: each turns its arguments into one GraphQL operation and prints one JSON object.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PLANS, type Plan } from '../domain/plans.js';
import { graphql } from '../graphql.js';
import { OperationFailed, type OperatorClient, OperatorError } from './operator-client.js';
import { isUrl, readSource } from '../jobs/read-source.js';
import { backup } from './backup.js';

export interface CommandArgs {
  positionals: string[];
  options: {
    email?: string;
    plan?: string;
    prefix?: string;
    variables?: string;
    'allowed-ips'?: string;
    'allowed-endpoints'?: string;
    'expires-on'?: string;
    'monthly-cap'?: string;
    clear?: boolean;
  };
}

type Command = (client: OperatorClient, args: CommandArgs) => Promise<object>;

function option(args: CommandArgs, name: 'email' | 'plan' | 'prefix'): string {
  const value = args.options[name];
  if (!value) throw new OperatorError(`--${name} is required`);
  return value;
}

/** A comma-separated list, blanks around each entry dropped. */
const list = (text: string) => text.split(',').map((entry) => entry.trim());

/**
 * The restriction flags as the schema's KeyRestrictionsInput: only those given, so a change keeps
 * the others. The service checks the values (a bad range, an unknown name, a past date, a cap above
 * the plan's quota) and refuses them.
 */
function restrictionsOption(args: CommandArgs) {
  const { options } = args;
  const cap = options['monthly-cap'];
  if (cap !== undefined && !/^\d{1,9}$/.test(cap))
    throw new OperatorError(`--monthly-cap must be a whole number of requests, from 0 to the plan's monthly quota (got ${cap})`);
  return {
    ...(options['allowed-ips'] !== undefined ? { allowedIps: list(options['allowed-ips']) } : {}),
    ...(options['allowed-endpoints'] !== undefined ? { allowedEndpoints: list(options['allowed-endpoints']) } : {}),
    ...(options['expires-on'] !== undefined ? { expiresOn: options['expires-on'] } : {}),
    ...(cap !== undefined ? { monthlyCap: Number(cap) } : {}),
  };
}

/** `--plan`, refused here when it names no plan (the schema's Plan enum would refuse it too). */
function planOption(args: CommandArgs): Plan {
  const plan = option(args, 'plan');
  const known = PLANS.find((name) => name === plan);
  if (!known) throw new OperatorError(`--plan must be one of ${PLANS.join(', ')} (got ${plan})`);
  return known;
}

const ACCOUNT_FIELDS = 'id email plan status';

const IMPORT = graphql(`
  mutation Import($input: ImportRatesInput!) {
    importRates(input: $input) {
      days
      inserted
      updated
      firstDate
      lastDate
    }
  }
`);
const SYNC = graphql(`
  mutation Sync($source: Text) {
    syncRates(source: $source) {
      sources
      days
      inserted
      updated
      published
      deliveries
      newestDate
    }
  }
`);
const SET_STATUS = graphql(
  `mutation Status($email: EmailAddress!, $status: AccountStatus!) { setAccountStatus(email: $email, status: $status) { ${ACCOUNT_FIELDS} } }`,
);
const CREATE_ACCOUNT = graphql(`
  mutation Create($email: EmailAddress!, $plan: Plan!) {
    createAccount(email: $email, plan: $plan) {
      id
      email
      plan
    }
  }
`);
const SET_PLAN = graphql(`
  mutation Plan($email: EmailAddress!, $plan: Plan!) {
    setAccountPlan(email: $email, plan: $plan) {
      id
      email
      plan
    }
  }
`);
const CREATE_KEY = graphql(`
  mutation Key($email: EmailAddress!, $restrictions: KeyRestrictionsInput) {
    createApiKey(email: $email, restrictions: $restrictions) {
      key
      apiKey {
        id
        prefix
        restrictions {
          allowedIps
          allowedEndpoints
          expiresOn
          monthlyCap
        }
      }
    }
  }
`);
const RESTRICT_KEY = graphql(`
  mutation Restrict($prefix: Text!, $restrictions: KeyRestrictionsInput, $clear: Boolean) {
    restrictApiKey(prefix: $prefix, restrictions: $restrictions, clear: $clear) {
      id
      prefix
      status
      restrictions {
        allowedIps
        allowedEndpoints
        expiresOn
        monthlyCap
      }
    }
  }
`);
const REVOKE_KEY = graphql(`
  mutation Revoke($prefix: Text!) {
    revokeApiKey(prefix: $prefix) {
      id
      prefix
      status
    }
  }
`);

/** A path as the service (another working directory) and the record need it; a URL as it is. */
const absolute = (source: string) => (isUrl(source) ? source : resolve(source));

async function importFile(client: OperatorClient, args: CommandArgs) {
  const source = args.positionals[0];
  if (!source) throw new OperatorError('usage: import <path-or-url>');
  // Loaded here, not with the commands: the parsers and the calendar are most of what a command
  // would otherwise load, and only an import needs them.
  const [{ parseRbaFile, RbaFormatError }, { batchOf }] = await Promise.all([import('../rba/index.js'), import('../jobs/import-rates.js')]);
  let bytes;
  try {
    bytes = await readSource(source);
  } catch (error) {
    throw new OperatorError(`Cannot read ${source}: ${(error as Error).message}`);
  }
  let table;
  try {
    table = parseRbaFile(bytes, source);
  } catch (error) {
    if (error instanceof RbaFormatError) throw new OperatorError(error.message);
    throw error;
  }
  const { importRates } = await client.run(IMPORT, { input: batchOf(absolute(source), table) });
  return importRates;
}

/** One poll of the RBA now, by the service when one runs (its sources, its clock): `sync [path-or-url]`. */
async function sync(client: OperatorClient, args: CommandArgs) {
  if (args.positionals.length > 1) throw new OperatorError('usage: sync [path-or-url]');
  const source = args.positionals[0];
  const variables = source ? { source: absolute(source) } : {};
  const { syncRates } = await client.run(SYNC, variables);
  return syncRates;
}

async function setStatus(client: OperatorClient, args: CommandArgs, status: 'active' | 'suspended') {
  const { setAccountStatus } = await client.run(SET_STATUS, { email: option(args, 'email'), status });
  return setAccountStatus;
}

/** Variables as a JSON object, or none. */
function parseVariables(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new OperatorError(`--variables is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new OperatorError('--variables must be a JSON object');
  return value as Record<string, unknown>;
}

/** Any operation from a file, through the internal endpoint: `query <file.graphql> [--variables JSON]`. */
async function query(client: OperatorClient, args: CommandArgs) {
  const [file, ...extra] = args.positionals;
  if (!file || extra.length > 0) throw new OperatorError('usage: query <file.graphql> [--variables JSON]');
  const variables = parseVariables(args.options.variables);
  let document;
  try {
    document = await readFile(file, 'utf8');
  } catch (error) {
    throw new OperatorError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  const result = await client.execute(document, variables);
  if (result.errors?.length) throw new OperationFailed(result);
  return result;
}

export const commands: Record<string, Command> = {
  backup,
  import: importFile,
  query,
  sync,
  'account create': async (client, args) => {
    const { createAccount } = await client.run(CREATE_ACCOUNT, { email: option(args, 'email'), plan: planOption(args) });
    return createAccount;
  },
  'account plan': async (client, args) => {
    const { setAccountPlan } = await client.run(SET_PLAN, { email: option(args, 'email'), plan: planOption(args) });
    return setAccountPlan;
  },
  'account suspend': (client, args) => setStatus(client, args, 'suspended'),
  'account unsuspend': (client, args) => setStatus(client, args, 'active'),
  'key create': async (client, args) => {
    if (args.options.clear) throw new OperatorError('--clear is for key restrict: a new key has no restrictions to remove');
    const { createApiKey } = await client.run(CREATE_KEY, { email: option(args, 'email'), restrictions: restrictionsOption(args) });
    const { prefix, id, restrictions } = createApiKey.apiKey;
    return { key: createApiKey.key, prefix, id, restrictions };
  },
  'key restrict': async (client, args) => {
    const restrictions = restrictionsOption(args);
    const clear = args.options.clear ?? false;
    if (!clear && Object.keys(restrictions).length === 0) {
      throw new OperatorError('key restrict needs --clear or at least one of --allowed-ips, --allowed-endpoints, --expires-on, --monthly-cap');
    }
    const { restrictApiKey } = await client.run(RESTRICT_KEY, { prefix: option(args, 'prefix'), restrictions, clear });
    return restrictApiKey;
  },
  'key revoke': async (client, args) => {
    const { revokeApiKey } = await client.run(REVOKE_KEY, { prefix: option(args, 'prefix') });
    return revokeApiKey;
  },
};
