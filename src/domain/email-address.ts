// The one rule for an e-mail address, wherever one is given: the dashboard's sign-in form, the
// operator's command line and the internal GraphQL endpoint (its EmailAddress scalar). An account
// can only be made for an address that can also sign in. Pure.
import { z } from 'zod';

/** RFC 5321's limit on a forward path */
export const MAX_EMAIL_LENGTH = 254;

// zod's address shape: the letters, digits and `_ ' + - .` that mail systems deliver alike, a dot
// in the domain; no quoted local parts, no `%`, `&` or other characters some systems rewrite
const ADDRESS = z.email();

/** An address as it is compared and stored: blanks around it dropped, in lower case. */
export const emailAddressOf = (text: string): string => text.trim().toLowerCase();

/** Why `text` is not an e-mail address an account may have, in words for the person who typed it; null when it is one. */
export function emailAddressFault(text: string): string | null {
  const email = emailAddressOf(text);
  if (email === '') return 'Enter your e-mail address';
  if (email.length > MAX_EMAIL_LENGTH) return `An e-mail address has at most ${MAX_EMAIL_LENGTH} characters`;
  // Mail to internationalised addresses needs SMTPUTF8 all the way: not offered.
  if (/[^\x21-\x7e]/.test(email)) return 'Enter an e-mail address in plain ASCII letters, digits and symbols, without spaces';
  if (!ADDRESS.safeParse(email).success) return 'Enter an e-mail address such as name@example.com';
  return null;
}
