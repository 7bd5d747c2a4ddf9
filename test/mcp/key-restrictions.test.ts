// A key's restrictions on POST /mcp (docs/architecture.md, "Key restrictions"): `mcp` is the name of the
// endpoint, so a key limited to other endpoints is refused there as on REST (403 key_restricted in
// the envelope, before the protocol), an expired key is 401, and a key's monthly cap counts its tool
// calls like its REST requests.
import { describe, expect, it } from 'vitest';
import { graphql } from '../../src/graphql.js';
import { appForFile } from '../support/app.js';
import { account, NOW, stored } from '../limits/support.js';
import { listenerFor, mcpClient, post, toolCall } from './support.js';

const t = appForFile({ now: NOW }, 'f11.1-data.csv');
const listener = listenerFor(t);

const RESTRICT = graphql('mutation($p: Text!, $r: KeyRestrictionsInput) { restrictApiKey(prefix: $p, restrictions: $r) { id } }');

async function restrict(key: string, r: Record<string, unknown>) {
  const result = await t.operator(RESTRICT, { p: key.split('_')[0]!, r });
  expect(result.errors).toBeUndefined();
}

describe('key restrictions on /mcp', () => {
  it('refuses a key not allowed mcp, before the protocol, and counts nothing', async () => {
    const { email, key } = await account(t, 'professional');
    await restrict(key, { allowedEndpoints: ['latest'] });
    const answer = await post(listener, toolCall('get_latest_rates'), { key });
    expect(answer.status).toBe(403);
    expect(answer.json).toEqual({ success: false, error: { code: 403, type: 'key_restricted', info: expect.stringMatching(/may not call mcp/) } });
    await expect(mcpClient(listener, key)).rejects.toThrow();
    expect((await stored(t, email)).used).toBe(0);
  });

  it('lets a key allowed only mcp call every tool, and refuses it an address outside its ranges', async () => {
    const { key } = await account(t, 'professional');
    await restrict(key, { allowedEndpoints: ['mcp'] });
    const client = await mcpClient(listener, key);
    const result = await client.callTool({ name: 'get_rates_for_date', arguments: { date: '2026-05-11' } });
    expect(result.isError).toBeFalsy();
    await client.close();
    // the listener's client is this machine
    await restrict(key, { allowedIps: ['203.0.113.0/24'] });
    const answer = await post(listener, toolCall('get_latest_rates'), { key });
    expect(answer.json.error).toMatchObject({ type: 'key_restricted', info: expect.stringMatching(/127\.0\.0\.1.*allowedIps/) });
  });

  it('counts tool calls against the cap, refusing the call past it as its twin would', async () => {
    const { key } = await account(t, 'professional');
    await restrict(key, { monthlyCap: 1 });
    const client = await mcpClient(listener, key);
    expect((await client.callTool({ name: 'get_latest_rates', arguments: {} })).isError).toBeFalsy();
    const over = await client.callTool({ name: 'get_latest_rates', arguments: {} });
    expect(over.isError).toBe(true);
    const envelope = JSON.parse((over.content as { text: string }[])[0]!.text);
    expect(envelope.error).toMatchObject({ code: 429, type: 'rate_limit_exceeded', info: expect.stringMatching(/monthly cap of 1/) });
    await client.close();
  });

  it('refuses an expired key 401', async () => {
    const { key } = await account(t, 'professional');
    await restrict(key, { expiresOn: NOW.slice(0, 10) });
    const answer = await post(listener, toolCall('get_latest_rates'), { key });
    expect(answer.status).toBe(401);
    expect(answer.json.error).toMatchObject({ type: 'invalid_api_key', info: expect.stringMatching(/expired/) });
  });
});
