// Turning query strings and path segments into operation variables: syntax only, with clear 400s.
// Domain rules (which dates have data, TWI in conversions, plan windows) are the schema's.
import { isValidIsoDate } from '../domain/calendar.js';
import { isCurrencyCode, type CurrencyCode } from '../domain/currencies.js';
import { isPlainDecimal } from '../domain/decimal.js';
import { decodeUtf8, NOT_UTF8, textFault } from '../domain/text.js';
import { BadRequestError } from '../errors.js';

const MAX_PARAM_LENGTH = 256;

const TWO_HEX_DIGITS = /^[0-9A-Fa-f]{2}$/;
/** Printable ASCII without `%` and `+`: decodes to itself, in a query or a path. */
const NOTHING_TO_DECODE = /^[\x21-\x24\x26-\x2a\x2c-\x7e]*$/;

/**
 * The bytes a percent-encoded component stands for (WHATWG URL): `%XX` is one byte, a `%` without
 * two hex digits is itself, and in a query `+` is a space.
 */
function percentDecode(component: string, plusIsSpace: boolean): Uint8Array {
  const input = Buffer.from(component, 'utf8');
  const output = Buffer.alloc(input.length);
  let length = 0;
  for (let i = 0; i < input.length; i++) {
    const byte = input[i]!;
    const hex = byte === 0x25 ? input.toString('latin1', i + 1, i + 3) : '';
    if (TWO_HEX_DIGITS.test(hex)) {
      output[length++] = parseInt(hex, 16);
      i += 2;
    } else {
      output[length++] = plusIsSpace && byte === 0x2b ? 0x20 : byte;
    }
  }
  return output.subarray(0, length);
}

/**
 * The text of a percent-encoded component, decoded strictly: bytes that are not UTF-8, NUL and
 * lone surrogates are refused, with `what` and the component as sent in the message (URLSearchParams
 * and decodeURIComponent would give U+FFFD or throw a URIError instead).
 */
function decodeComponent(component: string, plusIsSpace: boolean, what: string): string {
  // Most components are plain ASCII with nothing to decode: they are their own text.
  if (NOTHING_TO_DECODE.test(component)) return component;
  const text = decodeUtf8(percentDecode(component, plusIsSpace));
  const fault = text === null ? NOT_UTF8 : textFault(text);
  if (text === null || fault !== null) throw new BadRequestError(`${what} ('${clip(component)}') ${fault}`);
  return text;
}

/** The query string (`?a=1&b=2`) as parameters, every name and value decoded strictly. */
export function decodeQuery(search: string): URLSearchParams {
  const params = new URLSearchParams();
  for (const pair of search.replace(/^\?/, '').split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = decodeComponent(equals < 0 ? pair : pair.slice(0, equals), true, 'A parameter name');
    const value = equals < 0 ? '' : decodeComponent(pair.slice(equals + 1), true, `Parameter '${clip(name)}'`);
    params.append(name, value);
  }
  return params;
}

/** One segment of a request path, decoded strictly. */
export function decodePathSegment(segment: string): string {
  return decodeComponent(segment, false, 'A path segment');
}

/** The query string of one request, refusing unknown, repeated and oversized parameters. */
export class QueryParams {
  private readonly values = new Map<string, string>();

  constructor(search: URLSearchParams, allowed: readonly string[]) {
    for (const [name, value] of search) {
      if (!allowed.includes(name)) {
        const known = allowed.length > 0 ? `; this endpoint accepts ${allowed.join(', ')}` : '; this endpoint takes none';
        throw new BadRequestError(`Unknown parameter '${clip(name)}'${known}`);
      }
      if (this.values.has(name)) throw new BadRequestError(`Parameter '${name}' is given more than once`);
      if (value.length > MAX_PARAM_LENGTH) throw new BadRequestError(`Parameter '${name}' is too long (at most ${MAX_PARAM_LENGTH} characters)`);
      this.values.set(name, value);
    }
  }

  optional(name: string): string | undefined {
    return this.values.get(name);
  }

  required(name: string): string {
    const value = this.values.get(name);
    if (value === undefined || value.trim() === '') throw new BadRequestError(`Missing required parameter '${name}'`);
    return value;
  }
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** D4 (docs/decisions.md): case-insensitive on input; three letters; one of the 21. */
export function parseCode(text: string, what: string): CurrencyCode {
  const code = text.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(code)) {
    throw new BadRequestError(`Invalid currency code '${clip(text)}' in ${what}: a 3-letter code is required`);
  }
  if (!isCurrencyCode(code)) {
    throw new BadRequestError(`Unsupported currency '${code}' in ${what}; see /symbols for the supported codes`);
  }
  return code;
}

/** D4: comma-separated, blanks trimmed, duplicates ignored, any unsupported code refused. */
export function parseCodeList(text: string, what: string): CurrencyCode[] {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.every((p) => p === '')) throw new BadRequestError(`Parameter '${what}' must list at least one currency code`);
  const codes = new Set<CurrencyCode>();
  for (const part of parts) if (part !== '') codes.add(parseCode(part, what));
  return [...codes];
}

export function parseDate(text: string, what: string): string {
  if (!isValidIsoDate(text)) throw new BadRequestError(`Invalid date '${clip(text)}' in ${what}: use a real date as YYYY-MM-DD`);
  return text;
}

/** D14: a plain decimal; the range (> 0, at most 1e15) is checked with the conversion. */
export function parseAmount(text: string): string {
  const amount = text.trim();
  if (!isPlainDecimal(amount)) {
    throw new BadRequestError(`Invalid amount '${clip(text)}': use a plain decimal number greater than 0, such as 100 or 0.5`);
  }
  return amount;
}

/** The only base is AUD. */
export function checkBase(text: string | undefined): void {
  if (text !== undefined && text.trim().toUpperCase() !== 'AUD') {
    throw new BadRequestError(`Unsupported base '${clip(text)}': all rates are quoted against AUD, the only base`);
  }
}
