// Request bodies: JSON objects only, read to a size limit, with unknown fields refused (D26 in
// docs/decisions.md).
// Syntax only, with clear 400s; domain rules (URL targets, plans) are the schema's.
import { decodeUtf8, NOT_UTF8, textFault } from '../domain/text.js';
import { BadRequestError } from '../errors.js';

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

/** JSON's escapes spell NUL and lone surrogates in valid UTF-8: a string is checked as it is read. */
function storable(text: string, field: string): string {
  const fault = textFault(text);
  if (fault !== null) throw new BadRequestError(`Field '${field}' ${fault}`);
  return text;
}

/** A parsed JSON object body, refusing anything but an object and fields it does not know. */
export class JsonFields {
  private readonly object: Record<string, unknown>;

  constructor(text: string, allowed: readonly string[]) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new BadRequestError('The request body is not valid JSON');
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new BadRequestError('The request body must be a JSON object');
    }
    for (const name of Object.keys(value)) {
      if (!allowed.includes(name)) {
        throw new BadRequestError(`Unknown field '${name.length > 40 ? `${name.slice(0, 40)}…` : name}'; this endpoint accepts ${allowed.join(', ')}`);
      }
    }
    this.object = value as Record<string, unknown>;
  }

  /** An optional field given as null counts as left out. */
  private value(name: string): unknown {
    return this.object[name] ?? undefined;
  }

  string(name: string, required: true): string;
  string(name: string, required?: false): string | undefined;
  string(name: string, required = false): string | undefined {
    const value = this.value(name);
    if (value === undefined) {
      if (required) throw new BadRequestError(`Missing required field '${name}'`);
      return undefined;
    }
    if (typeof value !== 'string') throw new BadRequestError(`Field '${name}' must be a string`);
    return storable(value, name);
  }

  stringArray(name: string): string[] | undefined {
    const value = this.value(name);
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
      throw new BadRequestError(`Field '${name}' must be an array of strings`);
    }
    return value.map((item: string, i) => storable(item, `${name}[${i}]`));
  }

  /** A required true or false. */
  boolean(name: string): boolean {
    const value = this.value(name);
    if (value === undefined) throw new BadRequestError(`Missing required field '${name}'`);
    if (typeof value !== 'boolean') throw new BadRequestError(`Field '${name}' must be true or false`);
    return value;
  }
}
