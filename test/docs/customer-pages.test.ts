// What customers read says what the code does: the plan tables of the README and of the docs page's
// guide are the plans' own figures (src/domain/plans.ts), the MCP tool lists name exactly the tools
// served with their REST endpoints, the README shows the calls and the MCP clients' configurations
// the guide gives, the guide says one thing of dates without rates, and docs/api.md only points to
// the OpenAPI document. No decision numbers anywhere a customer reads.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLAN_LIMITS, PLANS, type PlanLimits } from '../../src/domain/plans.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { API_GUIDE, openApiPath } from '../../src/rest/openapi/document.js';
import { routes } from '../../src/rest/routes.js';
import { ROOT } from '../support/cli.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const API_PAGE = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');

/** The rows of the Markdown table whose header row starts with `| first |`, as cells. */
function tableRows(markdown: string, first: string): string[][] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`| ${first} |`));
  expect(start, `a table headed '${first}'`).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(start)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim()),
    );
  }
  return rows.filter((row) => !row[0]!.startsWith('---'));
}

const count = (n: number) => n.toLocaleString('en-US');

/** A plan's row of the plan tables, from its figures. */
function planRow(plan: PlanLimits): string[] {
  const window = plan.historyDays === null ? null : plan.historyDays === 'full' ? 'from 2018' : `last ${plan.historyDays} days`;
  return [
    plan.name,
    plan.resets ? `${count(plan.monthlyRequests)} a month` : `${count(plan.monthlyRequests)} once, never reset`,
    String(plan.apiKeys),
    window ?? 'none',
    plan.timeSeriesDays === null ? 'none' : `${plan.timeSeriesDays} days`,
    plan.webhookSubscriptions ? String(plan.webhookSubscriptions) : '—',
    plan.alerts === 0 ? '—' : plan.webhookSubscriptions ? String(plan.alerts) : `${plan.alerts}, e-mail only`,
    // period averages (and the dashboard's Reports) reach what the history window reaches, whatever the time-series range
    window === null ? '—' : plan.historyDays === 'full' ? 'any period from 2018' : `within the ${window}`,
    plan.bulkExport ? 'the whole history' : '—',
  ];
}

const PLAN_HEADER = ['plan', 'requests', 'keys', 'history', 'time series', 'webhooks', 'rate alerts', 'averages and Reports', 'bulk export'];

describe('the plan tables', () => {
  it.each([
    ['README.md', README],
    ['the docs page', API_GUIDE],
  ])('%s: a row per plan with its own figures', (_where, markdown) => {
    const [header, ...rows] = tableRows(markdown, 'plan');
    expect(header).toEqual(PLAN_HEADER);
    expect(rows).toEqual(PLANS.map((plan) => planRow(PLAN_LIMITS[plan])));
  });
});

describe('the MCP tools', () => {
  const pathOf = (twin: string) => openApiPath(routes.find((route) => route.name === twin)!.path);

  it("the docs page's table lists every tool served, with its REST endpoint", () => {
    const rows = tableRows(API_GUIDE, 'tool').slice(1);
    expect(rows.map((row) => [row[0], row[2]])).toEqual(TOOLS.map((tool) => [`\`${tool.name}\``, `\`${pathOf(tool.twin)}\``]));
  });

  it('the README names every tool served', () => {
    const section = /\*\*An AI agent \(MCP\)\.\*\*([\s\S]*?)```/.exec(README)?.[1] ?? '';
    expect([...section.matchAll(/`([a-z_]+)`/g)].map(([, name]) => name).sort()).toEqual(TOOLS.map((tool) => tool.name).sort());
  });

  it("the README gives the clients' configurations the docs page gives, each valid JSON", () => {
    const jsonBlocks = (markdown: string) => [...markdown.matchAll(/^```json\n([\s\S]*?)^```$/gm)].map(([, body]) => body!);
    const configurations = jsonBlocks(README).filter((body) => body.includes('/mcp'));
    expect(configurations).toHaveLength(3); // Cursor, VS Code, Claude Desktop
    for (const body of configurations) {
      expect(jsonBlocks(API_GUIDE)).toContain(body);
      expect(() => JSON.parse(body) as unknown).not.toThrow();
    }
    for (const client of ['Cursor', 'VS Code', 'Claude Desktop']) {
      expect(README).toContain(client);
      expect(API_GUIDE).toContain(client);
    }
  });
});

describe('the README', () => {
  it('opens with the two commands, install and start, then every test, and stays short', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(250);
    const first = /^```sh\n([\s\S]*?)```/m.exec(README)?.[1]?.split('\n').filter(Boolean) ?? [];
    expect(first.map((line) => line.split('#')[0]!.trim())).toEqual(['npm install && npm start', 'npm test']);
  });

  it('shows a call of /averages, /{date} with fallback, and MCP', () => {
    const call = /\*\*3\. A call\.\*\*([\s\S]*?)\*\*4\./.exec(README)?.[1] ?? '';
    expect(call).toMatch(/\/averages\?period=FY\d{4}/);
    expect(call).toMatch(/fallback=nearest/);
    expect(call).toContain('POST /mcp');
  });
});

describe('the docs page guide', () => {
  it('says one thing of dates without rates: exactly that date, or a fallback that asks for another', () => {
    expect(API_GUIDE).not.toMatch(/never replaced/);
    const days = /## Weekends, holidays and missing days\n([\s\S]*?)\n## /.exec(API_GUIDE)?.[1] ?? '';
    expect(days).toMatch(/fallback=previous/);
    expect(days).toMatch(/nearest/);
  });
});

describe('docs/api.md', () => {
  it('points to the OpenAPI document and the docs page, and restates none of the contract', () => {
    expect(API_PAGE).toContain('`/openapi.json`');
    expect(API_PAGE).toContain('`/docs`');
    expect(API_PAGE.split('\n').length).toBeLessThanOrEqual(70);
    expect(API_PAGE).not.toMatch(/^\|/m); // no tables of fields, statuses or plans to drift
  });

  it.each([
    ['README.md', README],
    ['docs/api.md', API_PAGE],
    ['the docs page', API_GUIDE],
  ])('%s cites no decision number', (_where, text) => {
    expect(text.match(/\bD[0-9]{1,2}\b/g)).toBeNull();
  });
});
