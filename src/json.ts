// JSON with exact numbers. Rates and conversion results are decimal strings inside the service; on
// the wire they must be JSON numbers with exactly those digits ('61.4', never 61.40000000000001),
// which a JS number cannot promise for every value. Raw JSON text is written out verbatim.

export class RawJson {
  constructor(readonly text: string) {}
}

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

// Stored days and series are shared, unchanging objects of one generation of the rate history
// (src/domain/rate-history.ts), so their JSON is written once per object and reused by every
// response that carries them. The memo is weak: it lives exactly as long as the objects do, so it
// needs neither a bound nor invalidation.
const written = new WeakMap<object, RawJson>();

/** A rates object (code → decimal string) as JSON numbers. */
export function ratesJson(rates: Record<string, string>): RawJson {
  let json = written.get(rates);
  if (!json) {
    let out = '';
    for (const code in rates) out += `${out ? ',' : ''}"${code}":${rates[code]}`;
    written.set(rates, (json = new RawJson(`{${out}}`)));
  }
  return json;
}

/** A time series (date → rates object) as JSON. */
export function seriesJson(series: Record<string, Record<string, string>>): RawJson {
  let json = written.get(series);
  if (!json) {
    let out = '';
    for (const date in series) out += `${out ? ',' : ''}"${date}":${ratesJson(series[date]!).text}`;
    written.set(series, (json = new RawJson(`{${out}}`)));
  }
  return json;
}
