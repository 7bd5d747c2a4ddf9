// The dashboard's session as HTTP carries it (D31 in docs/decisions.md): the cookie's name, and the
// per-session CSRF token its forms, and scripts calling /api/webhook-subscriptions, send back.
import { createHash, timingSafeEqual } from 'node:crypto';
import { parseCookie } from 'cookie';

/** `__Host-` over HTTPS: the browser then keeps it to this exact origin, secure, on path /. */
export function sessionCookieName(https: boolean): string {
  return https ? '__Host-session' : 'session';
}

/** The session token a Cookie header carries, if any. */
export function sessionTokenOf(cookieHeader: string | null, https: boolean): string | undefined {
  return cookieHeader === null ? undefined : parseCookie(cookieHeader)[sessionCookieName(https)];
}

/** Derived from the session's own secret, so a page on another site cannot know it. */
export function csrfTokenOf(sessionToken: string): string {
  return createHash('sha256').update(`csrf:${sessionToken}`).digest('base64url');
}

/** Whether `sent` is the session's CSRF token, compared in constant time. */
export function isCsrfTokenOf(sent: string, sessionToken: string): boolean {
  const given = Buffer.from(sent);
  const expected = Buffer.from(csrfTokenOf(sessionToken));
  return given.length === expected.length && timingSafeEqual(given, expected);
}
