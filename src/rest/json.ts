// JSON with exact numbers. Rates and conversion results are decimal strings inside the service; on
// the wire they must be JSON numbers with exactly those digits ('61.4', never 61.40000000000001),
// which a JS number cannot promise for every value. A RawNumber is written out verbatim.

export class RawNumber {
  constructor(readonly text: string) {}
}

export type Json = string | number | boolean | null | RawNumber | Json[] | { [key: string]: Json | undefined };

export function stringify(value: Json): string {
  if (value instanceof RawNumber) return value.text;
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

/** A map of decimal strings (a rates object) as JSON numbers. */
export function rawNumbers(values: Record<string, string>): Record<string, RawNumber> {
  const out: Record<string, RawNumber> = {};
  for (const key in values) out[key] = new RawNumber(values[key]!);
  return out;
}
