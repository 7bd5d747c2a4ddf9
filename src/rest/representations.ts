// What a route can answer besides JSON, and which of it a client's Accept asks for (D44, D45 in
// docs/decisions.md): CSV, NDJSON and an Excel workbook, each a file (src/rest/streamed-body.ts).
import Negotiator from 'negotiator';
import { NotAcceptableError } from '../http/http-errors.js';

export const MEDIA_TYPES = {
  json: 'application/json',
  csv: 'text/csv',
  ndjson: 'application/x-ndjson',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const;

export type Representation = keyof typeof MEDIA_TYPES;
/** the representations that are files */
export type FileFormat = Exclude<Representation, 'json'>;

const negotiators = new Map<string, Representation>(Object.entries(MEDIA_TYPES).map(([name, type]) => [type, name as Representation]));

/**
 * The representation the Accept header prefers among `offered` (in the route's order, the first
 * being the default: no Accept, or one that takes anything). A route that offers JSON answers JSON to an Accept that
 * allows none of them; one that offers only files refuses it (406 `not_acceptable`).
 */
export function negotiate(accept: string | null, offered: readonly Representation[]): Representation {
  if (accept === null) return offered[0]!;
  const type = new Negotiator({ headers: { accept } }).mediaType(offered.map((name) => MEDIA_TYPES[name]));
  if (type !== undefined) return negotiators.get(type)!;
  if (offered.includes('json')) return 'json';
  throw new NotAcceptableError(
    `This endpoint answers ${offered.map((name) => MEDIA_TYPES[name]).join(', ')}; the Accept header allows none of them (send one of them, or */*)`,
  );
}
