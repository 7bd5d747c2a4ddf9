// Request bodies: JSON objects only, read to a size limit, with unknown fields refused (D26 in
// docs/decisions.md), then read by the route's zod `body` schema, built from the fields below; the
// same schema describes the body in the OpenAPI document.
// Syntax only, with clear 400s; domain rules (URL targets, plans) are the schema's.
import { z } from 'zod';
import { decodeUtf8, NOT_UTF8, textFault } from '../domain/text.js';
import { BadRequestError } from '../errors.js';
import { currencyCode, readValues, type NamedValues } from './params.js';

/** D26: at most 16 KiB. */
export const MAX_BODY_BYTES = 16 * 1024;

/** Reads a body's bytes up to `limit` (more is refused as soon as it arrives) as strict UTF-8. */
export async function readLimited(chunks: AsyncIterable<Uint8Array>, limit: number): Promise<string> {
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of chunks) {
      size += chunk.byteLength;
      if (size > limit) throw new BadRequestError(`The request body is too large: at most ${limit} bytes`);
      parts.push(chunk);
    }
  } catch (error) {
    // The client closed the connection, or the listener cut it off, before the whole body came.
    if ((error as NodeJS.ErrnoException).code === 'ECONNRESET') throw new BadRequestError('The request body ended before it was complete');
    throw error;
  }
  const text = decodeUtf8(Buffer.concat(parts));
  if (text === null) throw new BadRequestError(`The request body ${NOT_UTF8}`);
  return text;
}

export function checkJsonContentType(contentType: string | null): void {
  const mediaType = contentType?.split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new BadRequestError(`The request body must be JSON: send Content-Type: application/json`);
  }
}

/**
 * A JSON body read by a route's schema: an object, with no field the schema does not list. An
 * optional field given as null counts as left out.
 */
export function readJsonBody<Schema extends NamedValues>(schema: Schema, text: string): z.output<Schema> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BadRequestError('The request body is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new BadRequestError('The request body must be a JSON object');
  }
  const names = Object.keys(schema.shape);
  const given = Object.entries(value);
  for (const [name] of given) {
    if (!names.includes(name)) {
      throw new BadRequestError(`Unknown field '${name.length > 40 ? `${name.slice(0, 40)}…` : name}'; this endpoint accepts ${names.join(', ')}`);
    }
  }
  return readValues(schema, Object.fromEntries(given.filter(([, field]) => field !== null)));
}

/** A field's name as the client wrote it: `currencies[1]` for an item of a list. */
const fieldOf = (issue: { path?: PropertyKey[] }) => (issue.path ?? []).map((key, i) => (i === 0 ? String(key) : `[${String(key)}]`)).join('');
const missing = (issue: { path?: PropertyKey[] }) => `Missing required field '${fieldOf(issue)}'`;

/** JSON's escapes spell NUL and lone surrogates in valid UTF-8: a string is checked as it is read. */
const storable = (base: z.ZodString) =>
  base.refine((value) => textFault(value) === null, { error: (issue) => `Field '${fieldOf(issue)}' ${textFault(String(issue.input))}` });

const arrayOfStrings = (issue: { path?: PropertyKey[] }) => `Field '${String(issue.path?.[0])}' must be an array of strings`;

/** The values of JSON body fields: each checks its value and describes itself. */
export const Field = {
  text: storable(z.string({ error: (issue) => (issue.input === undefined ? missing(issue) : `Field '${fieldOf(issue)}' must be a string`) })),
  /** every item a string first, then each storable, then each a currency code (D4) */
  codes: z
    .array(z.string({ error: arrayOfStrings }), { error: arrayOfStrings })
    .pipe(z.array(storable(z.string())))
    .pipe(z.array(currencyCode())),
  /** a list of strings, each storable; what each may be is the schema's to say */
  strings: z
    .array(z.string({ error: arrayOfStrings }), { error: (issue) => (issue.input === undefined ? missing(issue) : arrayOfStrings(issue)) })
    .pipe(z.array(storable(z.string()))),
  /** a decimal as a JSON number or a string, read as its text (a number's shortest form); its range is the schema's */
  decimal: z
    .union([z.number(), z.string()], {
      error: (issue) => (issue.input === undefined ? missing(issue) : `Field '${fieldOf(issue)}' must be a number such as 0.65`),
    })
    .transform((value) => String(value))
    .pipe(storable(z.string())),
  boolean: z.boolean({ error: (issue) => (issue.input === undefined ? missing(issue) : `Field '${fieldOf(issue)}' must be true or false`) }),
};
