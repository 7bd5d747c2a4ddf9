// Who may use the internal port: a request bearing the operator token, or a browser that signed in
// with it. The session cookie holds a value derived from the token, never the token itself, so it
// is void once the token changes and a cookie jar never holds the token.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'operator_session';

function same(sent: string, expected: string): boolean {
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export class OperatorAuth {
  private readonly session: string;

  constructor(private readonly token: string) {
    this.session = createHmac('sha256', token).update('internal-port browser session').digest('base64url');
  }

  isToken(candidate: string): boolean {
    return same(candidate, this.token);
  }

  /** The bearer token of `Authorization`, or the session cookie. */
  allows(authorization: string | null, cookies: string | null): boolean {
    const bearer = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    if (bearer !== undefined) return this.isToken(bearer);
    const cookie = (cookies ?? '')
      .split(';')
      .map((part) => part.trim().split('='))
      .find(([name]) => name === SESSION_COOKIE)?.[1];
    return cookie !== undefined && same(cookie, this.session);
  }

  /**
   * HttpOnly keeps it from scripts (GraphiQL's included); SameSite=Strict keeps other sites' pages
   * from sending it along with a forged query.
   */
  sessionCookie(): string {
    return `${SESSION_COOKIE}=${this.session}; Path=/; HttpOnly; SameSite=Strict`;
  }
}
