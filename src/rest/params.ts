// Query strings and path segments: decoded strictly, then read by the route's zod schemas (`query`,
// `params`), built from the values below. The same schemas describe the parameters in the OpenAPI
// document (src/rest/openapi/document.ts). Syntax only, with clear 400s; domain rules (which dates
// have data, TWI in conversions, plan windows) are the schema's.
import { z, type ZodObject, type ZodType } from 'zod';
import { isValidIsoDate } from '../domain/calendar.js';
import { codeOf, isCurrencyCode, type CurrencyCode } from '../domain/currencies.js';
import { isPlainDecimal } from '../domain/decimal.js';
import { namedPeriod } from '../domain/period-averages.js';
import { decodeUtf8, NOT_UTF8, textFault } from '../domain/text.js';
import { BadRequestError } from '../errors.js';

/** Every query parameter's value is at most this long. */
export const MAX_PARAM_LENGTH = 256;

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
  const query = search.startsWith('?') ? search.slice(1) : search;
  // Nothing to decode anywhere: URLSearchParams splits it exactly as the loop below does (given
  // its `?`, it takes no other: `??a` names `?a`).
  if (NOTHING_TO_DECODE.test(query)) return new URLSearchParams(`?${query}`);
  const params = new URLSearchParams();
  for (const pair of query.split('&')) {
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

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** The zod schema of a query string, a route's path parameters or a JSON body: named values. */
export type NamedValues = ZodObject<Record<string, ZodType>>;

/** What the query reader needs of a schema. */
interface QueryShape {
  names: readonly string[];
  /** the suffix of an unknown parameter's refusal */
  known: string;
  required: ReadonlySet<string>;
}

function shapeOf(schema: NamedValues | undefined): QueryShape {
  if (!schema) return NO_PARAMETERS;
  const names = Object.keys(schema.shape);
  const required = new Set(names.filter((name) => !schema.shape[name]!.isOptional()));
  return { names, known: `; this endpoint accepts ${names.join(', ')}`, required };
}

const NO_PARAMETERS: QueryShape = { names: [], known: '; this endpoint takes none', required: new Set() };

/** A value read by a schema, or a 400 with the first thing wrong with it, in the order the schema lists its values. */
export function readValues<Schema extends ZodType>(schema: Schema, value: unknown): z.output<Schema> {
  const result = schema.safeParse(value);
  if (!result.success) throw new BadRequestError(result.error.issues[0]!.message);
  return result.data;
}

/**
 * The query string read by a route's schema (none: the route takes no parameters). The query
 * string's own rules come first, parameter by parameter as sent: a name the schema does not list,
 * a name given twice and an oversized value are refused. A required parameter given blank counts as
 * missing.
 */
export function readQuery<Schema extends NamedValues>(schema: Schema | undefined, search: URLSearchParams): z.output<Schema> {
  const { names, known, required } = shapeOf(schema);
  const values: Record<string, string> = {};
  for (const [name, value] of search) {
    if (!names.includes(name)) throw new BadRequestError(`Unknown parameter '${clip(name)}'${known}`);
    if (Object.hasOwn(values, name)) throw new BadRequestError(`Parameter '${name}' is given more than once`);
    if (value.length > MAX_PARAM_LENGTH) throw new BadRequestError(`Parameter '${name}' is too long (at most ${MAX_PARAM_LENGTH} characters)`);
    if (value.trim() !== '' || !required.has(name)) values[name] = value;
  }
  return schema ? readValues(schema, values) : ({} as z.output<Schema>);
}

/**
 * The path's parameters read by a route's schema. Each segment is read alone, so that its refusal
 * names "the path" (`placeOf`) rather than the parameter's name, which the client never sent.
 */
export function readPathParams<Schema extends NamedValues>(schema: Schema | undefined, params: Readonly<Record<string, string>>): z.output<Schema> {
  if (!schema) return params as z.output<Schema>;
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(schema.shape)) values[name] = readValues(value, params[name]);
  return values as z.output<Schema>;
}

/** Where a refused value was: a query parameter or a body field by its name; a value read alone is a path segment. */
export const placeOf = (issue: { path?: PropertyKey[] }) => (issue.path?.length ? String(issue.path[0]) : 'the path');

const textOf = (input: unknown) => clip(String(input));

/** A value of the query or the path; without it, "Missing required parameter". */
const text = () => z.string({ error: (issue) => (issue.input === undefined ? `Missing required parameter '${placeOf(issue)}'` : undefined) });

const THREE_LETTERS = /^[A-Z]{3}$/;
const invalidCode = (text: string, where: string) => `Invalid currency code '${clip(text)}' in ${where}: a 3-letter code is required`;
const unsupportedCode = (code: string, where: string) => `Unsupported currency '${code}' in ${where}; see /symbols for the supported codes`;

const isCode = (text: string) => isCurrencyCode(codeOf(text));

/** The refusal of a text that is not a supported code: not three letters, or not one of the 21. */
function codeFault(text: string, where: string): string {
  const code = codeOf(text);
  return THREE_LETTERS.test(code) ? unsupportedCode(code, where) : invalidCode(text, where);
}

/** D4 (docs/decisions.md): case-insensitive on input; three letters; one of the 21. */
export function parseCode(text: string, what: string): CurrencyCode {
  const code = codeOf(text);
  if (!isCurrencyCode(code)) throw new BadRequestError(codeFault(text, what));
  return code;
}

/**
 * A string schema whose checks end by rewriting the text in place as what it reads (a code, a
 * list of codes). Zod's `.transform` would add a pipe, whose payloads every request reading the
 * parameter pays for; a check runs inside the string's own parse.
 */
function readAs<T>(checked: z.ZodString, read: (text: string) => T): ZodType<T, string> {
  return checked.overwrite((text) => read(text) as unknown as string) as unknown as ZodType<T, string>;
}

/** A currency code read from any text: a parameter, a segment, an item of a body's list. */
export const currencyCode = (base: z.ZodString = z.string()) =>
  readAs(
    base.refine(isCode, { abort: true, error: (issue) => codeFault(String(issue.input), placeOf(issue)) }),
    // the check above makes it one of the codes
    (text) => codeOf(text) as CurrencyCode,
  );

const CODE_DESCRIPTION = 'A currency code of /symbols, in any case';

/** The codes of a comma-separated list, each once, in the order sent (blank parts skipped); null if one is not a code or there is none. */
function codesIn(list: string): CurrencyCode[] | null {
  const codes = new Set<CurrencyCode>();
  for (const part of list.split(',')) {
    const code = codeOf(part);
    if (code === '') continue;
    if (!isCurrencyCode(code)) return null;
    codes.add(code);
  }
  return codes.size > 0 ? [...codes] : null;
}

/** Why `codesIn` refused a list: its first part that is not a code, as `currencyCode` would name it, or no code at all. */
function listFault(list: string, where: string): string {
  const wrong = list.split(',').find((part) => part.trim() !== '' && !isCode(part));
  return wrong === undefined ? `Parameter '${where}' must list at least one currency code` : codeFault(wrong.trim(), where);
}

/**
 * The values of query parameters and path segments: each checks its text and describes itself.
 * A route lists them in its `query` or `params` schema; `.optional()` makes one optional, `.meta()`
 * gives it its own description.
 */
export const Param = {
  /** D4: case-insensitive on input, answered in upper case */
  code: currencyCode(text()).meta({ description: CODE_DESCRIPTION }),
  /** D4: comma-separated, blanks trimmed, duplicates ignored, any unsupported code refused */
  codes: readAs(
    text().refine((list) => codesIn(list) !== null, { abort: true, error: (issue) => listFault(String(issue.input), placeOf(issue)) }),
    // the check above makes it a list of codes
    (list) => codesIn(list)!,
  ).meta({
    description: 'Comma-separated currency codes of /symbols, in any case; blanks around a code and repeats are ignored, an unsupported code is refused (400)',
  }),
  date: text()
    .refine(isValidIsoDate, { error: (issue) => `Invalid date '${textOf(issue.input)}' in ${placeOf(issue)}: use a real date as YYYY-MM-DD` })
    .meta({ format: 'date', description: 'A calendar date (Sydney) written YYYY-MM-DD, such as 2023-01-03; rates start in 2018' }),
  /** D14: a plain decimal; the range (> 0, at most 1e15) is checked with the conversion */
  amount: text()
    .refine((amount) => isPlainDecimal(amount.trim()), {
      error: (issue) => `Invalid amount '${textOf(issue.input)}': use a plain decimal number greater than 0, such as 100 or 0.5`,
    })
    .overwrite((amount) => amount.trim())
    .meta({
      description: 'The amount to convert: a decimal number greater than 0 and at most 1e15, such as 100 or 12.5 (no exponent, no thousands separators)',
    }),
  /** The only base is AUD. */
  base: text()
    .refine((base) => base.trim().toUpperCase() === 'AUD', {
      error: (issue) => `Unsupported base '${textOf(issue.input)}': all rates are quoted against AUD, the only base`,
    })
    .meta({ description: 'Only AUD, the default (in any case): every rate is quoted against the Australian dollar' }),
  /** D38, D47: the nearest rate day instead of a date without rates */
  fallback: z
    .enum(['previous', 'next', 'nearest'], {
      error: (issue) => `Invalid fallback '${textOf(issue.input)}': use previous, next or nearest, or leave it out for exactly that date`,
    })
    .meta({
      description:
        'Previous, next or nearest: a date without rates (for that currency) answers with the nearest rate day before it, after it, or whichever is nearer (the earlier on a tie), `date` being the day used and `requested_date` the date asked for. Left out: exactly that date, or 404',
    }),
  /** D37: a named period, in any case; read as its name (upper case) and its first and last day */
  period: text()
    .transform((period, context) => {
      const named = namedPeriod(period);
      if (named) return named;
      context.issues.push({
        code: 'custom',
        input: period,
        message: `Invalid period '${clip(period)}': use YYYY, FYYYYY (the financial year ending 30 June), YYYY-H1 or H2, YYYY-Q1 to Q4, or YYYY-MM`,
      });
      return z.NEVER;
    })
    .meta({
      description:
        'A calendar year (2024), an Australian financial year (FY2025: 1 July 2024 to 30 June 2025), a half (2025-H1), a quarter (2025-Q3) or a month (2025-06), letters in any case; instead of start_date and end_date',
    }),
  /** D43: a calendar year */
  year: text()
    .refine((year) => /^\d{4}$/.test(year), { error: (issue) => `Invalid year '${textOf(issue.input)}': use four digits, such as 2026` })
    .meta({ description: 'A calendar year, such as 2026: 1 January to 31 December; instead of start_date and end_date' }),
  /** D37: the only interval */
  interval: z
    .literal('month', { error: (issue) => `Invalid interval '${textOf(issue.input)}': the only interval is month` })
    .meta({ description: 'Month: adds the same figures for each calendar month of the period' }),
  /** D42: a delivery's id, its X-ExchangeRates-Delivery */
  deliveryId: text().meta({ description: 'The id of the delivery (its X-ExchangeRates-Delivery header), as the delivery log lists it' }),
  /** D42: where the delivery log's next page starts */
  cursor: text().meta({ description: 'The nextCursor of the previous page of the delivery log' }),
  /** a subscription's id, as the service gave it */
  id: text().meta({ description: 'The id of the subscription, as creating or listing it answered' }),
  /** an alert's id, as the service gave it */
  alertId: text().meta({ description: 'The id of the alert, as creating or listing it answered' }),
};
