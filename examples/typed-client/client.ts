// A typed client of the API: openapi-fetch over the types openapi-typescript generated from the
// service's OpenAPI document (api.d.ts). Paths, parameters and answers are checked by the compiler.
//
//   AUD_RATES_URL=http://127.0.0.1:8080 AUD_RATES_KEY=bondi_… npx tsx examples/typed-client/client.ts
import createClient from 'openapi-fetch';
import type { paths } from './api.js';

export function ratesClient(baseUrl: string, key: string) {
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });
}

/** The newest USD rate, and how USD and EUR moved over January 2023. */
export async function summary(baseUrl: string, key: string): Promise<string[]> {
  const client = ratesClient(baseUrl, key);
  const lines: string[] = [];

  const latest = await client.GET('/latest/{currency}', { params: { path: { currency: 'USD' } } });
  if (latest.error) throw new Error(`/latest/USD: ${latest.error.error.type}: ${latest.error.error.info}`);
  lines.push(`latest ${latest.data.date} USD ${latest.data.rates.USD}`);

  const moved = await client.GET('/fluctuation', { params: { query: { start_date: '2023-01-01', end_date: '2023-01-31', symbols: 'USD,EUR' } } });
  if (moved.error) throw new Error(`/fluctuation: ${moved.error.error.type}: ${moved.error.error.info}`);
  for (const [code, figures] of Object.entries(moved.data.rates)) {
    lines.push(`fluctuation ${code} ${figures.start_rate} → ${figures.end_rate} (${figures.change_pct} %) over ${figures.days} days`);
  }

  const missing = await client.GET('/{date}', { params: { path: { date: '2024-01-06' } } });
  if (missing.error) lines.push(`2024-01-06 ${missing.response.status} ${missing.error.error.type}`);
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const lines = await summary(process.env.AUD_RATES_URL ?? 'http://127.0.0.1:8080', process.env.AUD_RATES_KEY ?? '');
  console.log(lines.join('\n'));
}
