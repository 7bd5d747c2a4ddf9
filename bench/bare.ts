// The baseline: a bare node:http server answering every request with one fixed JSON body of a given
// byte size and the service's JSON content type, so it differs from /latest only in doing no work.
import { createServer, type Server } from 'node:http';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A valid JSON object of exactly `bytes` bytes (at least 16). */
export function paddedJson(bytes: number): string {
  const empty = '{"success":true,"pad":""}';
  if (bytes < empty.length) throw new RangeError(`a body of ${bytes} bytes is too small`);
  const body = `{"success":true,"pad":"${'x'.repeat(bytes - empty.length)}"}`;
  if (Buffer.byteLength(body) !== bytes) throw new Error('padding arithmetic is wrong');
  return body;
}

export function createBareServer(bytes: number): Server {
  const body = Buffer.from(paddedJson(bytes));
  const headers = { 'Content-Type': JSON_CONTENT_TYPE, 'Content-Length': String(body.length) };
  return createServer((_request, response) => {
    response.writeHead(200, headers);
    response.end(body);
  });
}
