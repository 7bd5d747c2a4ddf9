// The README and docs/ stay true to the repository: every relative link resolves to a file (and to
// a heading when it names one, by GitHub's anchors), every operator command they show — in a
// shell example or in a table of commands — is one the CLI accepts, as its `--help` prints it, and
// the README's configuration table names exactly the variables src/config.ts reads.
// No database: the CLI's help opens none.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

const DOCUMENTS = ['README.md', ...readdirSync(join(ROOT, 'docs')).flatMap((name) => (name.endsWith('.md') ? [`docs/${name}`] : []))];
/** The documents that show operator commands. */
const COMMAND_DOCUMENTS = ['README.md', 'docs/operations.md'];
const CLI_PREFIX = 'npm run --silent cli -- ';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const FENCED = /^```[^\n]*\n[\s\S]*?^```$/gm;

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, text] of markdown.replace(FENCED, '').matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = text!
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The relative link targets of a document: `[text](target)` outside code. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(FENCED, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map(([, target]) => target!).filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('relative links', () => {
  it.each(DOCUMENTS)('%s: each resolves to a file, and to a heading when it names one', (document) => {
    const broken: string[] = [];
    for (const link of relativeLinks(read(document))) {
      const [path = '', anchor] = link.split('#', 2);
      const target = path === '' ? join(ROOT, document) : resolve(ROOT, dirname(document), decodeURIComponent(path));
      if (!target.startsWith(ROOT) || !existsSync(target)) {
        broken.push(`${link}: no such file`);
        continue;
      }
      if (anchor !== undefined) {
        if (!statSync(target).isFile() || !target.endsWith('.md'))
          broken.push(`${link}: an anchor into ${relative(ROOT, target)}, which is not a Markdown file`);
        else if (!anchorsOf(readFileSync(target, 'utf8')).has(anchor)) broken.push(`${link}: no heading '${anchor}' in ${relative(ROOT, target)}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('sees links, and anchors as GitHub makes them', () => {
    expect(relativeLinks('[a](docs/api.md#8-limits) `[b](x.md)` [c](https://example.com) [d](#top "t")')).toEqual(['docs/api.md#8-limits', '#top']);
    expect([...anchorsOf('# AUD rates\n## 8. Limits\n## What it is, and for whom\n```\n# not a heading\n```\n## Tests\n## Tests')]).toEqual([
      'aud-rates',
      '8-limits',
      'what-it-is-and-for-whom',
      'tests',
      'tests-1',
    ]);
  });
});

describe('configuration', () => {
  /** Variables the service's configuration does not read but the table documents: graphql reads it. */
  const READ_ELSEWHERE = ['NODE_ENV'];

  it("the README's table names every variable src/config.ts reads, and no other", () => {
    const schema = read('src/config.ts');
    const inConfig = [...schema.matchAll(/^ {4}([A-Z][A-Z0-9_]+): /gm)].map(([, name]) => name!);
    expect(inConfig).toContain('DATA_DIR');
    const section = /^## Configuration\n([\s\S]*?)^## /m.exec(read('README.md'))?.[1] ?? '';
    const documented = section
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => [...line.split(' | ')[0]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map(([, name]) => name!));
    expect([...documented].sort()).toEqual([...inConfig, ...READ_ELSEWHERE].sort());
  });
});

/** A usage line of `cli --help`, as what a command line may hold. */
interface Usage {
  line: string;
  words: string[];
  positionals: { required: number; optional: number };
  options: Map<string, { required: boolean; values: string[] | null; flag: boolean }>;
}

/** Options every command takes (parsed by the CLI before the command), with no value. */
const GLOBAL_FLAGS = new Set(['--create', '--help']);

function parseUsage(line: string): Usage {
  const usage: Usage = { line, words: [], positionals: { required: 0, optional: 0 }, options: new Map() };
  const tokens = line.split(/\s+/);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const optional = token.startsWith('[');
    const bare = token.replace(/^\[/, '').replace(/\]$/, '');
    if (bare.startsWith('--') && optional && token.endsWith(']')) {
      // a flag that takes no value: `[--clear]`
      usage.options.set(bare, { required: false, values: null, flag: true });
    } else if (bare.startsWith('--')) {
      const value = tokens[++i]!.replace(/\]$/, '');
      usage.options.set(bare, { required: !optional, values: value.includes('|') ? value.split('|') : null, flag: false });
    } else if (optional) usage.positionals.optional++;
    else if (bare.startsWith('<')) usage.positionals.required++;
    else usage.words.push(bare);
  }
  return usage;
}

/** Shell words of a command line: quotes removed, a comment (` # …`) dropped. */
function shellWords(text: string): string[] {
  const words: string[] = [];
  for (const [, single, double, plain] of text.replace(/\s+#.*$/, '').matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) words.push(single ?? double ?? plain!);
  return words;
}

/** Why `args` (what follows `cli --`) fits no usage line, or null when one fits it. */
function misfit(args: string[], usages: Usage[]): string | null {
  if (args.length === 1 && args[0] === '--help') return null;
  const usage = usages.find(({ words }) => words.every((word, i) => args[i] === word));
  if (!usage) return `no command '${args.slice(0, 2).join(' ')}'`;
  const rest = args.slice(usage.words.length);
  const given = new Map<string, string>();
  let positionals = 0;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (GLOBAL_FLAGS.has(arg)) continue;
    if (!arg.startsWith('--')) {
      positionals++;
      continue;
    }
    const option = usage.options.get(arg);
    if (!option) return `'${usage.line}' takes no ${arg}`;
    if (option.flag) {
      given.set(arg, '');
      continue;
    }
    const value = rest[++i];
    if (value === undefined) return `${arg} has no value`;
    if (option.values && !option.values.includes(value)) return `${arg} ${value} is not one of ${option.values.join('|')}`;
    given.set(arg, value);
  }
  for (const [name, { required }] of usage.options) if (required && !given.has(name)) return `${name} is missing ('${usage.line}')`;
  const { required, optional } = usage.positionals;
  if (positionals < required || positionals > required + optional) return `${positionals} arguments, '${usage.line}' takes ${required}–${required + optional}`;
  return null;
}

/** Every `npm run --silent cli -- …` line of a document's shell examples. */
function documentedCommandLines(markdown: string): string[] {
  const lines = [...markdown.matchAll(FENCED)].flatMap(([block]) => block.split('\n'));
  return lines.flatMap((line) => {
    const at = line.indexOf(CLI_PREFIX);
    return at < 0 ? [] : [line.slice(at + CLI_PREFIX.length)];
  });
}

/** The first cells of a document's tables of commands (`| command | … |`), as written. */
function documentedCommandCells(markdown: string): string[] {
  const cells: string[] = [];
  let inTable = false;
  for (const line of markdown.split('\n')) {
    if (/^\| command \|/.test(line)) inTable = true;
    else if (!line.startsWith('|')) inTable = false;
    else if (inTable && !line.startsWith('|---')) {
      // the command is the cell's code span; Markdown escapes a `|` in it as `\|`
      const cell = /^\| `([^`]+)` \|/.exec(line)?.[1];
      if (cell) cells.push(cell.replace(/\\\|/g, '|'));
    }
  }
  return cells;
}

describe('operator commands', () => {
  let usages: Usage[];
  beforeAll(async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', '--help'], { cwd: ROOT });
    usages = stdout
      .split('\n')
      .filter((line) => line.startsWith('  '))
      .map((line) => parseUsage(line.trim()));
  }, 60_000);

  it('--help prints a usage line for every command', () => {
    expect(usages.map(({ words }) => words.join(' '))).toEqual([
      'import',
      'sync',
      'account create',
      'account plan',
      'account suspend',
      'account unsuspend',
      'key create',
      'key restrict',
      'key revoke',
      'query',
      'backup',
      'restore',
    ]);
  });

  it.each(COMMAND_DOCUMENTS)('%s: each command in a shell example fits a usage line', (document) => {
    const lines = documentedCommandLines(read(document));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.map((line) => [line, misfit(shellWords(line), usages)]).filter(([, why]) => why !== null)).toEqual([]);
  });

  it.each(COMMAND_DOCUMENTS)('%s: each row of a table of commands is a usage line, and every command has its row', (document) => {
    const cells = documentedCommandCells(read(document));
    expect(cells).toEqual(usages.map(({ line }) => line));
  });

  it('tells a command that fits from one that does not', () => {
    const fits = (line: string) => misfit(shellWords(line), usages);
    expect(fits('query docs/operations/top-accounts.graphql --variables \'{"top":10}\'  # a comment')).toBeNull();
    expect(fits('account create --email a@example.com --plan free --create')).toBeNull();
    expect(fits('account create --email a@example.com --plan gold')).toBe('--plan gold is not one of free|starter|professional|business|enterprise');
    expect(fits('key create')).toMatch(/^--email is missing \('key create --email E \[--allowed-ips/);
    expect(fits('key restrict --prefix bondi --clear')).toBeNull();
    expect(fits('key restrict --prefix bondi --monthly-cap 10 --allowed-ips 203.0.113.0/24')).toBeNull();
    expect(fits('key restrict --prefix bondi --everything')).toMatch(/takes no --everything/);
    expect(fits('sync a.xml b.xml')).toBe("2 arguments, 'sync [path-or-url]' takes 0–1");
    expect(fits('account delete --email a@example.com')).toBe("no command 'account delete'");
  });
});
