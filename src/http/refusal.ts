// Requests refused before the edge's steps see them (the parser's errors, a target that is no path):
// still the envelope of docs/api.md §7 with an X-Request-Id, and the connection closed after the
// answer, since what follows on it cannot be trusted to start a new request.
import { STATUS_CODES } from 'node:http';
import { errorEnvelope, type RefusalCode } from './error-status.js';

export interface Refusal {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function refusal(code: RefusalCode, info: string, requestId: string): Refusal {
  const { status, body } = errorEnvelope(code, info);
  return {
    status,
    body,
    headers: {
      'X-Request-Id': requestId,
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(body)),
      'Cache-Control': 'no-store',
      Connection: 'close',
    },
  };
}

/** As bytes, for a socket whose request Node could not parse. */
export function refusalBytes({ status, headers, body }: Refusal): string {
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head.join('')}\r\n${body}`;
}
