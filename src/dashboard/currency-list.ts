// The creation form's "Currencies" field: codes separated by commas or spaces, any letter case.
// Empty means every currency (D26 in docs/decisions.md). Pure.
import { CURRENCY_CODES, type CurrencyCode } from '../domain/currencies.js';
import { BadRequestError } from '../errors.js';

const KNOWN: ReadonlySet<string> = new Set(CURRENCY_CODES);
/** long enough for every code twice over; a longer field is not a list of codes */
const MAX_LENGTH = 400;

/** The codes in the order given, or null for every currency; duplicates and AUD are the schema's to refuse. */
export function parseCurrencyList(text: string): CurrencyCode[] | null {
  if (text.length > MAX_LENGTH) throw new BadRequestError(`The currencies may have at most ${MAX_LENGTH} characters, such as USD, EUR.`);
  const codes = text
    .split(/[\s,]+/)
    .filter((code) => code !== '')
    .map((code) => code.toUpperCase());
  if (codes.length === 0) return null;
  const unknown = codes.find((code) => !KNOWN.has(code));
  if (unknown !== undefined) {
    throw new BadRequestError(`${unknown.slice(0, 12)} is not a currency the service publishes: use codes such as USD, EUR, JPY.`);
  }
  return codes as CurrencyCode[];
}
