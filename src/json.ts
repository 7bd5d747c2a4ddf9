// JSON with exact numbers. Rates and conversion results are decimal strings inside the service; on
// the wire they must be JSON numbers with exactly those digits ('61.4', never 61.40000000000001),
// which a JS number cannot promise for every value. Raw JSON text is written out verbatim.
import { rateIn, type RateSeries, type RateValues } from './domain/rate-history.js';

/**
 * JSON text written out verbatim. `Of` is the value the text holds, so that an answer built of such
 * pieces is still checked against its documented schema by the compiler (`Written`).
 */
export class RawJson<Of = unknown> {
  declare private readonly of?: Of;
  constructor(readonly text: string) {}
}

/** A value of type `T` as `stringify` takes it: any part of it may be the raw JSON text of that part. */
export type Written<T> = RawJson<T> | (T extends readonly (infer Item)[] ? Written<Item>[] : T extends object ? { [K in keyof T]: Written<T[K]> } : T);

export type Json = string | number | boolean | null | RawJson | Json[] | { [key: string]: Json | undefined };

export function stringify(value: Json): string {
  if (value instanceof RawJson) return value.text;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stringify).join(',')}]`;
  let out = '';
  for (const key in value) {
    const item = value[key];
    if (item === undefined) continue;
    out += `${out ? ',' : ''}${JSON.stringify(key)}:${stringify(item)}`;
  }
  return `{${out}}`;
}

/** Only `codes` of a day's rates, in the order asked for (AUD is 1); a code without a rate that day is left out. */
function subsetText(rates: RateValues, codes: readonly string[]): string {
  let out = '';
  for (const code of codes) {
    const rate = rateIn(rates, code);
    if (rate !== undefined) out += `${out ? ',' : ''}"${code}":${rate}`;
  }
  return `{${out}}`;
}

/**
 * A whole day's rates, written with `join`, which copies the parts into one flat string: text built
 * with `+=` is a tree of its pieces, walked again when the body is flattened for the ETag and the socket.
 */
function allRatesText(rates: RateValues): string {
  const members = Object.keys(rates).map((code) => `"${code}":${rates[code]}`);
  return ['{', members.join(','), '}'].join('');
}

/** A rates object (code → decimal string) as JSON numbers. */
export function ratesJson(rates: RateValues): RawJson<Record<string, number>> {
  return new RawJson(allRatesText(rates));
}

/** A time series as JSON (date → rates), written from the stored days without copying them. */
export function seriesJson(series: RateSeries): RawJson<Record<string, Record<string, number>>> {
  const { codes } = series;
  let out = '';
  for (const day of series.days) out += `${out ? ',' : ''}"${day.date}":${codes ? subsetText(day.rates, codes) : ratesJson(day.rates).text}`;
  return new RawJson(`{${out}}`);
}
