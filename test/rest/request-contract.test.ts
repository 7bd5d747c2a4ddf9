// The request contract (docs/request-contract.md): each route's zod schemas refuse a bad query, path
// or body with the `info` a client read before the contract moved into them, in the same order of
// checks: the query string's own rules (names, repeats, length) parameter by parameter as sent, then
// each parameter in the order the route declares it, the path, then the body. Each row is a request
// and its exact answer, recorded before the move (one row changed, marked).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

const LONG = 'A'.repeat(300);

type Case = [method: string, target: string, status: number, info: string | null, options?: { body?: unknown; key?: null }];
const CASES: Case[] = [
  ['GET', '/?x=1', 400, "Unknown parameter 'x'; this endpoint takes none"],
  ['GET', '/status?x=1&y=2', 400, "Unknown parameter 'x'; this endpoint takes none"],
  ['GET', '/symbols?symbols=USD', 400, "Unknown parameter 'symbols'; this endpoint takes none"],
  ['GET', '/convert?from=usd&to=eur&amount=1&foo=1', 400, "Unknown parameter 'foo'; this endpoint accepts from, to, amount, date"],
  ['GET', '/convert?from=USD&from=EUR&to=EUR&amount=1', 400, "Parameter 'from' is given more than once"],
  ['GET', `/convert?from=${LONG}&to=EUR&amount=1`, 400, "Parameter 'from' is too long (at most 256 characters)"],
  [
    'GET',
    `/convert?from=XYZ&to=EUR&amount=1&${LONG}=1`,
    400,
    "Unknown parameter 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA…'; this endpoint accepts from, to, amount, date",
  ],
  ['GET', '/convert', 400, "Missing required parameter 'from'"],
  ['GET', '/convert?to=EUR&amount=1', 400, "Missing required parameter 'from'"],
  ['GET', '/convert?from=%20&to=EUR&amount=1', 400, "Missing required parameter 'from'"],
  ['GET', '/convert?from=US&to=EUR&amount=1', 400, "Invalid currency code 'US' in from: a 3-letter code is required"],
  ['GET', '/convert?from=xyz&to=EUR&amount=1', 400, "Unsupported currency 'XYZ' in from; see /symbols for the supported codes"],
  ['GET', '/convert?from=%20usd%20&to=eur&amount=1&date=2023-01-03', 200, null],
  ['GET', '/convert?from=XYZ&to=ABC&amount=x', 400, "Unsupported currency 'XYZ' in from; see /symbols for the supported codes"],
  ['GET', '/convert?amount=x&to=ABC&from=XYZ', 400, "Unsupported currency 'XYZ' in from; see /symbols for the supported codes"],
  ['GET', '/convert?from=USD&to=ABC&amount=x', 400, "Unsupported currency 'ABC' in to; see /symbols for the supported codes"],
  ['GET', '/convert?from=USD&to=EUR&amount=x', 400, "Invalid amount 'x': use a plain decimal number greater than 0, such as 100 or 0.5"],
  ['GET', '/convert?from=USD&to=EUR&amount=-1', 400, "Invalid amount '-1': use a plain decimal number greater than 0, such as 100 or 0.5"],
  ['GET', '/convert?from=USD&to=EUR&amount=0', 400, 'amount must be a number greater than 0'],
  ['GET', '/convert?from=USD&to=EUR&amount=1e3', 400, "Invalid amount '1e3': use a plain decimal number greater than 0, such as 100 or 0.5"],
  ['GET', '/convert?from=USD&to=EUR&amount=', 400, "Missing required parameter 'amount'"],
  ['GET', '/convert?from=USD&to=EUR&amount=1&date=', 400, "Invalid date '' in date: use a real date as YYYY-MM-DD"],
  ['GET', '/convert?from=USD&to=EUR&amount=1&date=2024-02-30', 400, "Invalid date '2024-02-30' in date: use a real date as YYYY-MM-DD"],
  ['GET', '/convert?from=USD&to=TWI&amount=1', 400, 'TWI is the trade-weighted index, not a currency: it cannot be converted'],
  ['GET', '/convert?from=USD&to=EUR&amount=1&date=bad', 401, 'Historical rates (a date or a time series) need an API key', { key: null }],
  ['GET', '/convert?from=XYZ&to=EUR&amount=1&date=2023-01-03', 401, 'Historical rates (a date or a time series) need an API key', { key: null }],
  ['GET', '/convert?from=XYZ&to=EUR&amount=1', 400, "Unsupported currency 'XYZ' in from; see /symbols for the supported codes", { key: null }],
  ['GET', '/convert?from=%FF&to=EUR&amount=1', 400, "Parameter 'from' ('%FF') is not valid UTF-8"],
  ['GET', '/convert?from=%00&to=EUR&amount=1', 400, "Parameter 'from' ('%00') contains NUL (U+0000)"],
  ['GET', '/convert?fr%FFom=USD', 400, "A parameter name ('fr%FFom') is not valid UTF-8"],
  ['GET', '/latest?base=USD', 400, "Unsupported base 'USD': all rates are quoted against AUD, the only base"],
  ['GET', '/latest?base=', 400, "Unsupported base '': all rates are quoted against AUD, the only base"],
  ['GET', '/latest?symbols=', 400, "Parameter 'symbols' must list at least one currency code"],
  ['GET', '/latest?symbols=%20,%20', 400, "Parameter 'symbols' must list at least one currency code"],
  ['GET', '/latest?symbols=USD,XYZ', 400, "Unsupported currency 'XYZ' in symbols; see /symbols for the supported codes"],
  ['GET', '/latest?symbols=usd,,eur,USD', 200, null],
  ['GET', '/latest?symbols=12A', 400, "Invalid currency code '12A' in symbols: a 3-letter code is required"],
  ['GET', '/latest?currency=USD', 400, "Unknown parameter 'currency'; this endpoint accepts symbols, base"],
  ['GET', '/latest?symbols=USD&symbols=EUR', 400, "Parameter 'symbols' is given more than once"],
  ['GET', `/latest?symbols=${LONG}`, 400, "Parameter 'symbols' is too long (at most 256 characters)"],
  // two faults: the first parameter in the route's order (`base` came first before the contract moved)
  ['GET', '/latest?symbols=XYZ&base=USD', 400, "Unsupported currency 'XYZ' in symbols; see /symbols for the supported codes"],
  ['GET', '/latest?base=USD&symbols=XYZ', 400, "Unsupported currency 'XYZ' in symbols; see /symbols for the supported codes"],
  ['GET', '/latest/XYZ', 400, "Unsupported currency 'XYZ' in the path; see /symbols for the supported codes"],
  ['GET', '/latest/us', 400, "Invalid currency code 'us' in the path: a 3-letter code is required"],
  ['GET', '/latest/U%24D', 400, "Invalid currency code 'U$D' in the path: a 3-letter code is required"],
  ['GET', '/latest/XYZ?x=1', 400, "Unknown parameter 'x'; this endpoint takes none"],
  ['GET', '/latest/USD?symbols=EUR', 400, "Unknown parameter 'symbols'; this endpoint takes none"],
  ['GET', '/timeseries', 400, "Missing required parameter 'start_date'"],
  ['GET', '/timeseries?end_date=2024-01-31', 400, "Missing required parameter 'start_date'"],
  ['GET', '/timeseries?start_date=2024-01-01', 400, "Missing required parameter 'end_date'"],
  ['GET', '/timeseries?start_date=2024-13-01&end_date=2024-01-31', 400, "Invalid date '2024-13-01' in start_date: use a real date as YYYY-MM-DD"],
  ['GET', '/timeseries?start_date=2024-02-01&end_date=2024-02-30', 400, "Invalid date '2024-02-30' in end_date: use a real date as YYYY-MM-DD"],
  ['GET', '/timeseries?start_date=2024-01-31&end_date=2024-01-01', 400, 'end_date must not be before start_date'],
  [
    'GET',
    '/timeseries?start_date=2024-01-01&end_date=2024-01-31&symbols=USD,XYZ',
    400,
    "Unsupported currency 'XYZ' in symbols; see /symbols for the supported codes",
  ],
  ['GET', '/timeseries?start_date=2024-01-01&end_date=2024-01-31&base=USD', 400, "Unsupported base 'USD': all rates are quoted against AUD, the only base"],
  [
    'GET',
    '/timeseries?start_date=2024-01-01&end_date=2024-01-31&date=2024-01-05',
    400,
    "Unknown parameter 'date'; this endpoint accepts start_date, end_date, symbols, base",
  ],
  ['GET', '/timeseries?start_date=bad&end_date=2024-01-31&base=USD&symbols=XYZ', 400, "Invalid date 'bad' in start_date: use a real date as YYYY-MM-DD"],
  ['GET', '/fluctuation?start_date=2024-01-01&end_date=bad', 400, "Invalid date 'bad' in end_date: use a real date as YYYY-MM-DD"],
  ['GET', '/fluctuation?start_date=2024-01-01&end_date=2024-01-31&symbols=', 400, "Parameter 'symbols' must list at least one currency code"],
  ['GET', '/2024-02-30', 400, "Invalid date '2024-02-30' in the path: use a real date as YYYY-MM-DD"],
  ['GET', '/2024-2-3', 400, "Invalid date '2024-2-3' in the path: use a real date as YYYY-MM-DD"],
  ['GET', '/2024-02-30/XYZ', 400, "Invalid date '2024-02-30' in the path: use a real date as YYYY-MM-DD"],
  ['GET', '/2024-01-03/XYZ', 400, "Unsupported currency 'XYZ' in the path; see /symbols for the supported codes"],
  ['GET', '/2024-01-03/XYZ?x=1', 400, "Unknown parameter 'x'; this endpoint accepts fallback"],
  ['GET', '/2024-01-03?currency=USD', 400, "Unknown parameter 'currency'; this endpoint accepts symbols, base, fallback"],
  ['GET', '/2023-01-03/usd?base=AUD', 400, "Unknown parameter 'base'; this endpoint accepts fallback"],
  ['POST', '/api/webhook-subscriptions', 400, 'The request body is not valid JSON', { body: 'not json' }],
  ['POST', '/api/webhook-subscriptions', 400, 'The request body must be a JSON object', { body: '[1]' }],
  ['POST', '/api/webhook-subscriptions', 400, 'The request body must be a JSON object', { body: 'null' }],
  ['POST', '/api/webhook-subscriptions', 400, 'The request body must be a JSON object', { body: '"text"' }],
  ['POST', '/api/webhook-subscriptions', 400, "Missing required field 'url'", { body: {} }],
  ['POST', '/api/webhook-subscriptions', 400, "Missing required field 'url'", { body: { url: null } }],
  ['POST', '/api/webhook-subscriptions', 400, "Field 'url' must be a string", { body: { url: 5 } }],
  [
    'POST',
    '/api/webhook-subscriptions',
    400,
    "Unknown field 'extra'; this endpoint accepts url, currencies, description",
    { body: { url: 'https://example.com/a', extra: 1 } },
  ],
  ['POST', '/api/webhook-subscriptions', 400, "Unknown field 'extra'; this endpoint accepts url, currencies, description", { body: { extra: 1, url: 5 } }],
  [
    'POST',
    '/api/webhook-subscriptions',
    400,
    "Unknown field 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA…'; this endpoint accepts url, currencies, description",
    { body: { [LONG]: 1 } },
  ],
  ['POST', '/api/webhook-subscriptions', 400, "Field 'url' contains NUL (U+0000)", { body: { url: 'https://example.com/\u0000' } }],
  [
    'POST',
    '/api/webhook-subscriptions',
    400,
    "Field 'url' contains a lone surrogate (U+D800), which is not Unicode text",
    { body: '{"url":"https://example.com/\\ud800"}' },
  ],
  ['POST', '/api/webhook-subscriptions', 400, "Field 'currencies' must be an array of strings", { body: { url: 'https://example.com/a', currencies: 'USD' } }],
  [
    'POST',
    '/api/webhook-subscriptions',
    400,
    "Field 'currencies' must be an array of strings",
    { body: { url: 'https://example.com/a', currencies: ['USD', 5] } },
  ],
  [
    'POST',
    '/api/webhook-subscriptions',
    400,
    "Field 'currencies' must be an array of strings",
    { body: { url: 'https://example.com/a', currencies: ['XYZ', 5] } },
  ],
  [
    'POST',
    '/api/webhook-subscriptions',
    400,
    "Field 'currencies[1]' contains NUL (U+0000)",
    { body: { url: 'https://example.com/a', currencies: ['XYZ', 'U\u0000'] } },
  ],
  [
    'POST',
    '/api/webhook-subscriptions',
    400,
    "Invalid currency code 'XY' in currencies: a 3-letter code is required",
    { body: { url: 'https://example.com/a', currencies: ['usd', 'XY'] } },
  ],
  [
    'POST',
    '/api/webhook-subscriptions',
    400,
    "Field 'description' must be a string",
    { body: { url: 'https://example.com/a', currencies: null, description: 5 } },
  ],
  ['POST', '/api/webhook-subscriptions', 400, "Field 'description' contains NUL (U+0000)", { body: { url: 'https://example.com/a', description: '\u0000' } }],
  ['POST', '/api/webhook-subscriptions', 400, "Field 'url' must be a string", { body: { url: 5, currencies: 5 } }],
  ['POST', '/api/webhook-subscriptions?x=1', 400, "Unknown parameter 'x'; this endpoint takes none", { body: {} }],
  ['POST', '/api/webhook-subscriptions', 400, 'url must use https', { body: { url: 'http://example.com/a' } }],
  ['GET', '/api/webhook-subscriptions?limit=1', 400, "Unknown parameter 'limit'; this endpoint takes none"],
  ['DELETE', '/api/webhook-subscriptions/abc?x=1', 400, "Unknown parameter 'x'; this endpoint takes none"],
  ['POST', '/api/webhook-subscriptions/abc/test?x=1', 400, "Unknown parameter 'x'; this endpoint takes none"],
  ['PATCH', '/api/webhook-subscriptions/abc', 400, "Missing required field 'isActive'", { body: {} }],
  ['PATCH', '/api/webhook-subscriptions/abc', 400, "Missing required field 'isActive'", { body: { isActive: null } }],
  ['PATCH', '/api/webhook-subscriptions/abc', 400, "Field 'isActive' must be true or false", { body: { isActive: 'yes' } }],
  ['PATCH', '/api/webhook-subscriptions/abc', 400, "Unknown field 'url'; this endpoint accepts isActive", { body: { isActive: true, url: 'x' } }],
  ['PATCH', '/api/webhook-subscriptions/abc?x=1', 400, "Unknown parameter 'x'; this endpoint takes none", { body: { isActive: true } }],
];

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  await t.importFixture('f11.1-data.csv');
  key = await t.createKey('business');
});
afterAll(() => t.close());

it.each(CASES)('%s %s → %i %s', async (method, target, status, info, options = {}) => {
  const headers: Record<string, string> = 'body' in options ? { 'Content-Type': 'application/json' } : {};
  const answer = await t.json(target, { method, key: options.key === null ? undefined : key, body: options.body, headers });
  expect([answer.status, answer.body?.error?.info ?? null]).toEqual([status, info]);
});
