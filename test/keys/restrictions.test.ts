// Key restrictions (docs/architecture.md, "Key restrictions"): allowed addresses (IPv4 and IPv6, through
// a trusted proxy too), allowed endpoints, an expiry date and a monthly cap, alone and together;
// checked right after the key (a restricted request with a bad parameter is 403), never counted; a
// change keeps the other restrictions and clearing removes them all.
import { describe, expect, it } from 'vitest';
import { graphql } from '../../src/graphql.js';
import { appForFile, type RequestOptions } from '../support/app.js';
import { expectError } from '../support/expect.js';
import { syntheticTable } from '../support/rates.js';
import { account, anotherKey, BILLING_DAY, NOW, PERIOD, stored } from '../limits/support.js';

const t = appForFile({ now: NOW, config: { TRUST_PROXY: '10.0.0.1' } }, syntheticTable('2026-03-02', '2026-05-11'));

const RESTRICT = graphql(`
  mutation ($prefix: Text!, $restrictions: KeyRestrictionsInput, $clear: Boolean) {
    restrictApiKey(prefix: $prefix, restrictions: $restrictions, clear: $clear) {
      restrictions {
        allowedIps
        allowedEndpoints
        expiresOn
        monthlyCap
        capUsed
      }
    }
  }
`);

type Restrictions = { allowedIps?: string[] | null; allowedEndpoints?: string[] | null; expiresOn?: string | null; monthlyCap?: number | null };

async function restrict(key: string, restrictions: Restrictions | null, clear = false) {
  const result = await t.operator(RESTRICT, { prefix: key.split('_')[0]!, restrictions, clear });
  if (result.errors) throw new Error(result.errors[0]!.message);
  return result.data!.restrictApiKey.restrictions;
}

async function refusal(key: string, restrictions: Restrictions): Promise<string> {
  const result = await t.operator(RESTRICT, { prefix: key.split('_')[0]!, restrictions });
  expect(result.errors?.[0]?.extensions?.code).toBe('bad_request');
  return result.errors![0]!.message;
}

/** A request from `address` over TLS (plain HTTP is only for this machine). */
const from = (address: string, key: string, extra: RequestOptions = {}): RequestOptions => ({ key, remote: { address, encrypted: true }, ...extra });

async function freshKey(plan: 'starter' | 'professional' = 'professional') {
  return account(t, plan, { billingDay: BILLING_DAY, used: 0, period: PERIOD });
}

describe('allowedIps', () => {
  it('lets an IPv4 key be used only from its ranges', async () => {
    const { email, key } = await freshKey();
    expect(await restrict(key, { allowedIps: ['203.0.113.0/24', '198.51.100.7'] })).toMatchObject({
      allowedIps: ['203.0.113.0/24', '198.51.100.7/32'],
      allowedEndpoints: null,
    });
    expect((await t.json('/latest', from('203.0.113.200', key))).status).toBe(200);
    expect((await t.json('/latest', from('198.51.100.7', key))).status).toBe(200);
    const outside = await t.json('/latest', from('198.51.100.8', key));
    expectError(outside, 403, 'key_restricted', /allowedIps/);
    // a refusal of a valid key says where the account's quota stands, as every keyed refusal does
    expect(outside.headers.get('x-ratelimit-remaining-monthly')).toBe('49998');
    expectError(await t.json('/latest', { key }), 403, 'key_restricted', /127\.0\.0\.1.*allowedIps/);
    // a dual-stack socket's IPv4-mapped address is the IPv4 address
    expect((await t.json('/latest', from('::ffff:203.0.113.5', key))).status).toBe(200);
    expect((await stored(t, email)).used).toBe(3);
  });

  it('matches IPv6 ranges against the whole address, not the /64 the keyless limit groups by', async () => {
    const { key } = await freshKey();
    await restrict(key, { allowedIps: ['2001:db8:1::/48', '2001:db8:9:9::5/128'] });
    expect((await t.json('/latest', from('2001:db8:1:2::5', key))).status).toBe(200);
    expect((await t.json('/latest', from('2001:db8:9:9::5', key))).status).toBe(200);
    expectError(await t.json('/latest', from('2001:db8:9:9::6', key)), 403, 'key_restricted', /2001:db8:9:9::6/);
    expectError(await t.json('/latest', from('2001:db8:2::1', key)), 403, 'key_restricted');
    expectError(await t.json('/latest', from('203.0.113.1', key)), 403, 'key_restricted');
  });

  it('reads the client through a trusted proxy, and ignores what an untrusted peer forwards', async () => {
    const { key } = await freshKey();
    await restrict(key, { allowedIps: ['203.0.113.0/24', '2001:db8:1::/48'] });
    const proxied = (forwarded: string, peer = '10.0.0.1') => ({
      key,
      remote: { address: peer },
      headers: { 'X-Forwarded-For': forwarded, 'X-Forwarded-Proto': 'https' },
    });
    expect((await t.json('/latest', proxied('203.0.113.9'))).status).toBe(200);
    expect((await t.json('/latest', proxied('198.51.100.1, 203.0.113.9'))).status).toBe(200);
    expect((await t.json('/latest', proxied('2001:db8:1::7'))).status).toBe(200);
    expectError(await t.json('/latest', proxied('198.51.100.1')), 403, 'key_restricted');
    // 10.0.0.2 is no trusted proxy: the client is the peer itself, whatever it forwards
    const untrusted = await t.json('/latest', { ...proxied('203.0.113.9', '10.0.0.2'), remote: { address: '10.0.0.2', encrypted: true } });
    expectError(untrusted, 403, 'key_restricted', /10\.0\.0\.2/);
  });
});

describe('allowedEndpoints', () => {
  const calls: [name: string, path: string, method?: string][] = [
    ['latest', '/latest'],
    ['latest', '/latest/USD'],
    ['historical', '/2026-05-11'],
    ['historical', '/2026-05-11/USD'],
    ['timeseries', '/timeseries?start_date=2026-05-04&end_date=2026-05-08'],
    ['convert', '/convert?from=USD&to=EUR&amount=1'],
    ['convert', '/convert?from=USD&to=EUR&amount=1&date=2026-05-08'],
    ['fluctuation', '/fluctuation?start_date=2026-05-04&end_date=2026-05-08'],
    ['averages', '/averages?period=2026-04'],
    ['webhooks', '/api/webhook-subscriptions'],
  ];

  it('lets each name call its endpoints and nothing else', async () => {
    for (const name of ['latest', 'historical', 'timeseries', 'convert', 'fluctuation', 'averages', 'webhooks']) {
      const { key } = await freshKey();
      await restrict(key, { allowedEndpoints: [name] });
      for (const [covers, path] of calls) {
        const res = await t.json(path, { key });
        if (covers === name) expect(res.status, `${name}: ${path}`).toBe(200);
        else expectError(res, 403, 'key_restricted', new RegExp(`may not call ${covers}.*allows only ${name}$`));
      }
    }
  });

  it('leaves keyless /convert alone, and lists several names in the table order', async () => {
    const { key } = await freshKey();
    expect((await restrict(key, { allowedEndpoints: ['mcp', 'latest', 'latest'] })).allowedEndpoints).toEqual(['latest', 'mcp']);
    expect((await t.json('/convert?from=USD&to=EUR&amount=1')).status).toBe(200);
    expect((await t.json('/symbols', { key })).status).toBe(200);
  });
});

describe('expiresOn', () => {
  it('refuses the key from 00:00 UTC on its day, 401 invalid_api_key saying it expired', async () => {
    const { key } = await freshKey();
    await restrict(key, { expiresOn: '2026-05-13' });
    expect((await t.json('/latest', { key })).status).toBe(200);
    try {
      t.setNow('2026-05-12T23:59:59Z');
      expect((await t.json('/latest', { key })).status).toBe(200);
      t.setNow('2026-05-13T00:00:00Z');
      const expired = await t.json('/latest', { key });
      expectError(expired, 401, 'invalid_api_key', /expired on 2026-05-13/);
      expect(expired.headers.get('www-authenticate')).toBe('Bearer');
      expectError(await t.json('/api/webhook-subscriptions', { key }), 401, 'invalid_api_key', /expired/);
    } finally {
      t.setNow(NOW);
    }
  });

  it('may be today, which refuses the key at once', async () => {
    const { key } = await freshKey();
    await restrict(key, { expiresOn: '2026-05-12' });
    expectError(await t.json('/latest', { key }), 401, 'invalid_api_key', /expired/);
  });
});

describe('monthlyCap', () => {
  it("stops the key at its cap while the account's other keys go on; Remaining is the cap's", async () => {
    const { email, key } = await freshKey();
    const other = await anotherKey(t, email);
    await restrict(key, { monthlyCap: 3 });
    const remaining = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.json('/latest', { key });
      expect(res.status).toBe(200);
      remaining.push(res.headers.get('x-ratelimit-remaining-monthly'));
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const capped = await t.json('/latest', { key });
    expectError(capped, 429, 'rate_limit_exceeded', /monthly cap of 3 requests.*monthlyCap/);
    expect(capped.headers.get('retry-after')).toBeTruthy();
    expect(capped.headers.get('x-ratelimit-remaining-monthly')).toBe('0');
    expect((await t.json('/latest', { key: other })).headers.get('x-ratelimit-remaining-monthly')).toBe(String(50_000 - 4));
    expect((await stored(t, email)).used).toBe(4);
    // a higher cap keeps the count; removing the cap lifts it
    expect(await restrict(key, { monthlyCap: 5 })).toMatchObject({ monthlyCap: 5, capUsed: 3 });
    expect((await t.json('/latest', { key })).status).toBe(200);
    expect((await t.json('/latest', { key })).status).toBe(200);
    expectError(await t.json('/latest', { key }), 429, 'rate_limit_exceeded', /cap of 5/);
    await restrict(key, { monthlyCap: null });
    expect((await t.json('/latest', { key })).status).toBe(200);
  });

  it("names the account's quota when that runs out first", async () => {
    const { key } = await account(t, 'starter', { billingDay: BILLING_DAY, used: 4_999, period: PERIOD });
    await restrict(key, { monthlyCap: 10 });
    expect((await t.json('/latest', { key })).status).toBe(200);
    expectError(await t.json('/latest', { key }), 429, 'rate_limit_exceeded', /Monthly quota of 5,?000/);
  });

  it('starts again in the next billing period', async () => {
    const { key } = await freshKey();
    await restrict(key, { monthlyCap: 1 });
    expect((await t.json('/latest', { key })).status).toBe(200);
    expectError(await t.json('/latest', { key }), 429, 'rate_limit_exceeded');
    try {
      t.setNow('2026-05-20T00:00:00Z');
      expect((await t.json('/latest', { key })).status).toBe(200);
    } finally {
      t.setNow(NOW);
    }
  });

  it('a cap of 0 answers 429 naming it, counting nothing, until the cap is raised; the plan’s whole quota is a cap too', async () => {
    const { email, key } = await freshKey('starter');
    expect(await restrict(key, { monthlyCap: 0 })).toMatchObject({ monthlyCap: 0, capUsed: 0 });
    for (let i = 0; i < 2; i++) expectError(await t.json('/latest', { key }), 429, 'rate_limit_exceeded', /monthly cap of 0 requests is reached/);
    expect((await stored(t, email)).used).toBe(0);
    await restrict(key, { monthlyCap: 1 });
    expect((await t.json('/latest', { key })).status).toBe(200);
    expectError(await t.json('/latest', { key }), 429, 'rate_limit_exceeded', /cap of 1 /);
    expect(await restrict(key, { monthlyCap: 5_000 })).toMatchObject({ monthlyCap: 5_000, capUsed: 1 });
    expect(await refusal(key, { monthlyCap: -1 })).toBe('monthlyCap: -1 is not a whole number of requests (0 or more)');
    expect(await refusal(key, { monthlyCap: 5_001 })).toBe("monthlyCap: 5001 is more than the Starter plan's 5000 requests");
    expect((await restrict(key, {})).monthlyCap).toBe(5_000);
  });

  it('gives exactly the cap to 50 concurrent requests', async () => {
    const { email, key } = await freshKey();
    await restrict(key, { monthlyCap: 20 });
    const answers = await Promise.all(Array.from({ length: 50 }, () => t.request('/latest', { key })));
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
    expect((await stored(t, email)).used).toBe(20);
    expect((await restrict(key, {})).capUsed).toBe(20);
  });
});

describe('the order of the checks', () => {
  it('refuses a restricted request with a bad parameter 403, and an expired one 401', async () => {
    const { email, key } = await freshKey();
    await restrict(key, { allowedEndpoints: ['latest'] });
    expectError(await t.json('/timeseries?start_date=nope', { key }), 403, 'key_restricted');
    expectError(await t.json('/2026-13-45', { key }), 403, 'key_restricted');
    expectError(await t.json('/convert?from=XXX&to=EUR&amount=-1', { key }), 403, 'key_restricted');
    await restrict(key, { allowedEndpoints: null, allowedIps: ['203.0.113.0/24'] });
    expectError(await t.json('/latest?symbols=XXX', { key }), 403, 'key_restricted');
    expectError(await t.json('/latest?unknown=1', { key }), 403, 'key_restricted');
    await restrict(key, { expiresOn: '2026-05-12' });
    expectError(await t.json('/latest?symbols=XXX', { key }), 401, 'invalid_api_key');
    // none of them counted
    expect((await stored(t, email)).used).toBe(0);
  });
});

describe('restrictions together', () => {
  it('applies each one, keeps the others when one changes, and clearing removes them all', async () => {
    const { key } = await freshKey();
    const all = await restrict(key, { allowedIps: ['203.0.113.0/24'], allowedEndpoints: ['latest', 'historical'], expiresOn: '2026-06-01', monthlyCap: 2 });
    expect(all).toEqual({ allowedIps: ['203.0.113.0/24'], allowedEndpoints: ['latest', 'historical'], expiresOn: '2026-06-01', monthlyCap: 2, capUsed: 0 });
    expectError(await t.json('/latest', from('198.51.100.1', key)), 403, 'key_restricted', /allowedIps/);
    expectError(await t.json('/timeseries?start_date=2026-05-04&end_date=2026-05-08', from('203.0.113.1', key)), 403, 'key_restricted', /allowedEndpoints/);
    expect((await t.json('/latest', from('203.0.113.1', key))).status).toBe(200);
    expect((await t.json('/2026-05-11', from('203.0.113.1', key))).status).toBe(200);
    expectError(await t.json('/latest', from('203.0.113.1', key)), 429, 'rate_limit_exceeded', /cap of 2/);

    expect(await restrict(key, { allowedIps: ['198.51.100.0/24'] })).toEqual({ ...all, allowedIps: ['198.51.100.0/24'], capUsed: 2 });
    expectError(await t.json('/latest', from('203.0.113.1', key)), 403, 'key_restricted');
    expect(await restrict(key, null, true)).toEqual({ allowedIps: null, allowedEndpoints: null, expiresOn: null, monthlyCap: null, capUsed: null });
    expect((await t.json('/timeseries?start_date=2026-05-04&end_date=2026-05-08', from('203.0.113.1', key))).status).toBe(200);
  });
});

describe('setting restrictions', () => {
  it('refuses what cannot be a restriction, naming it, and changes nothing', async () => {
    const { key } = await freshKey('starter');
    await restrict(key, { monthlyCap: 100 });
    expect(await refusal(key, { allowedIps: ['203.0.113.0/33'] })).toMatch(/allowedIps: '203\.0\.113\.0\/33' is not a CIDR range/);
    expect(await refusal(key, { allowedIps: ['nonsense'] })).toMatch(/allowedIps/);
    expect(await refusal(key, { allowedIps: ['10.0.0/8'] })).toMatch(/allowedIps/);
    expect(await refusal(key, { allowedIps: ['2001:db8::/129'] })).toMatch(/allowedIps/);
    expect(await refusal(key, { allowedIps: [] })).toMatch(/at least one/);
    expect(await refusal(key, { allowedIps: Array.from({ length: 21 }, (_, i) => `10.0.${i}.0/24`) })).toMatch(/at most 20/);
    expect(await refusal(key, { allowedEndpoints: ['latest', 'symbols'] })).toMatch(/'symbols' is not an endpoint name/);
    expect(await refusal(key, { allowedEndpoints: [] })).toMatch(/at least one/);
    expect(await refusal(key, { expiresOn: '2026-05-11' })).toMatch(/expiresOn: 2026-05-11 has passed/);
    expect(await refusal(key, { monthlyCap: 5_001 })).toMatch(/more than the Starter plan's 5000/);
    expect(await refusal(key, { monthlyCap: -1 })).toMatch(/monthlyCap/);
    expect(await restrict(key, {})).toMatchObject({ allowedIps: null, allowedEndpoints: null, expiresOn: null, monthlyCap: 100 });
    // 20 ranges, written any way, are kept canonical
    const twenty = await restrict(key, { allowedIps: [...Array.from({ length: 19 }, (_, i) => `10.0.${i}.9/24`), '[2001:DB8::1]'] });
    expect(twenty.allowedIps).toHaveLength(20);
    expect(twenty.allowedIps).toContain('10.0.3.0/24');
    expect(twenty.allowedIps).toContain('2001:db8::1/128');
  });

  it('takes restrictions when the key is generated', async () => {
    const email = `restricted-create-${process.pid}@example.test`;
    await t.createKey('professional', email);
    const created = await t.operator(
      graphql(
        'mutation($e: EmailAddress!, $r: KeyRestrictionsInput) { createApiKey(email: $e, restrictions: $r) { key apiKey { restrictions { allowedEndpoints monthlyCap } } } }',
      ),
      { e: email, r: { allowedEndpoints: ['historical'], monthlyCap: 7 } },
    );
    const { key, apiKey } = created.data!.createApiKey;
    expect(apiKey.restrictions).toEqual({ allowedEndpoints: ['historical'], monthlyCap: 7 });
    expectError(await t.json('/latest', { key }), 403, 'key_restricted');
    expect((await t.json('/2026-05-11', { key })).status).toBe(200);
    const refused = await t.operator(graphql('mutation($e: EmailAddress!, $r: KeyRestrictionsInput) { createApiKey(email: $e, restrictions: $r) { key } }'), {
      e: email,
      r: { monthlyCap: 50_001 },
    });
    expect(refused.errors?.[0]?.extensions?.code).toBe('bad_request');
  });
});
