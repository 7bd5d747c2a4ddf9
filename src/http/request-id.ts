// D21 (docs/decisions.md): every response carries X-Request-Id; a client's own id is echoed when it
// is safe to.
import { randomUUID } from 'node:crypto';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's id when it is short and plain, a new UUID otherwise. */
export function requestIdFrom(clientValue: string | null | undefined): string {
  return clientValue && SAFE_REQUEST_ID.test(clientValue) ? clientValue : randomUUID();
}
