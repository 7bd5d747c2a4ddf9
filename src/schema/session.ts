// Signing in to the dashboard (D31): e-mailed single-use links, then a session per browser. Only
// hashes of both tokens are stored; the tokens themselves exist in the e-mail and in the cookie.
import { createHash, randomBytes } from 'node:crypto';
import { findAccountByEmail, insertAccount } from '../db/accounts.js';
import { consumeSignInLink, deleteSession, findSession, insertSession, insertSignInLink, recentLinks, touchSession } from '../db/sign-in.js';
import type { Account } from '../db/database.js';
import { secondsUntil } from '../domain/calendar.js';
import { emailAddressFault, emailAddressOf } from '../domain/email-address.js';
import { signInMail } from '../mail/sign-in-mail.js';
import { BadRequestError, InvalidSignInLinkError } from '../errors.js';
import { RateLimitedError } from '../http/http-errors.js';
import { AccountRef } from './account.js';
import { builder } from './builder.js';
import type { SessionViewer } from './context.js';
import type { Services } from '../services.js';
import { sessionViewerOf } from './viewer-scopes.js';

export const SIGN_IN_LINK_MINUTES = 15;
const HOUR_MS = 3_600_000;
export const LINKS_PER_ADDRESS_PER_HOUR = 5;
export const LINKS_PER_CLIENT_PER_HOUR = 20;
export const SESSION_IDLE_MS = 7 * 24 * HOUR_MS;
export const SESSION_ABSOLUTE_MS = 30 * 24 * HOUR_MS;
/** a session's last use is written at most this often, not on every page */
const TOUCH_INTERVAL_MS = 60_000;
/** 32 random bytes in base64url */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function isTokenShaped(text: string): boolean {
  return TOKEN_SHAPE.test(text);
}

/** The path an e-mailed link opens; the token travels in the query. */
export const SIGN_IN_PATH = '/dashboard/sign-in';

/** The session a cookie names, or null when it is malformed, unknown or expired (an expired one is deleted). */
export async function authenticateSession(services: Services, token: string): Promise<SessionViewer | null> {
  if (!isTokenShaped(token)) return null;
  const tokenHash = hashToken(token);
  const session = await findSession(services.db, tokenHash);
  if (!session) return null;
  const now = services.clock().getTime();
  if (now - session.lastSeenAt.getTime() >= SESSION_IDLE_MS || now - session.createdAt.getTime() >= SESSION_ABSOLUTE_MS) {
    await deleteSession(services.db, tokenHash);
    return null;
  }
  if (now - session.lastSeenAt.getTime() >= TOUCH_INTERVAL_MS) await touchSession(services.db, tokenHash, new Date(now));
  return { kind: 'session', tokenHash, account: session.account };
}

function waitMessage(oldest: Date | null, now: Date, what: string): RateLimitedError {
  const seconds = secondsUntil(new Date((oldest ?? now).getTime() + HOUR_MS), now);
  const minutes = Math.ceil(seconds / 60);
  return new RateLimitedError(`Too many sign-in links ${what} in the last hour. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, {
    'Retry-After': String(seconds),
  });
}

interface SignedIn {
  sessionToken: string;
  account: Account;
}

const SignedInRef = builder.objectRef<SignedIn>('SignedIn').implement({
  fields: (t) => ({
    sessionToken: t.exposeString('sessionToken', { description: "The session token for the browser's cookie: returned this once, stored only hashed" }),
    account: t.field({ type: AccountRef, resolve: (s) => s.account }),
  }),
});

builder.queryFields((t) => ({
  sessionAccount: t.field({
    type: AccountRef,
    description: 'The account of the signed-in dashboard session.',
    authScopes: { session: true },
    resolve: (_root, _args, ctx) => sessionViewerOf(ctx).account,
  }),
}));

builder.mutationFields((t) => ({
  requestSignInLink: t.field({
    type: 'Boolean',
    description:
      'E-mails a single-use sign-in link, valid 15 minutes, whether or not an account has the address yet (no enumeration). At most 5 links per address and 20 per client address in an hour.',
    args: {
      email: t.arg({ type: 'Text', required: true }),
      client: t.arg({ type: 'Text', required: true, description: "the requesting client's address, for the per-client limit" }),
    },
    resolve: async (_root, args, ctx) => {
      const fault = emailAddressFault(args.email);
      if (fault !== null) throw new BadRequestError(fault);
      const email = emailAddressOf(args.email);
      const { db, clock } = ctx.services;
      const now = clock();
      const since = new Date(now.getTime() - HOUR_MS);
      const byClient = await recentLinks(db, { client: args.client }, since);
      if (byClient.count >= LINKS_PER_CLIENT_PER_HOUR) throw waitMessage(byClient.oldest, now, 'from this network address');
      const byAddress = await recentLinks(db, { email }, since);
      if (byAddress.count >= LINKS_PER_ADDRESS_PER_HOUR) throw waitMessage(byAddress.oldest, now, 'for this e-mail address');
      const token = newToken();
      await insertSignInLink(db, {
        tokenHash: hashToken(token),
        email,
        client: args.client,
        createdAt: now,
        expiresAt: new Date(now.getTime() + SIGN_IN_LINK_MINUTES * 60_000),
      });
      const link = new URL(SIGN_IN_PATH, ctx.services.publicUrl);
      link.searchParams.set('token', token);
      await ctx.services.mailer.send(signInMail(email, link.href, SIGN_IN_LINK_MINUTES));
      return true;
    },
  }),
  signIn: t.field({
    type: SignedInRef,
    description: 'Uses a sign-in link: the first use for a new address creates its Free account. Opens a session.',
    args: { token: t.arg({ type: 'Text', required: true }) },
    resolve: async (_root, { token }, ctx) => {
      const invalid = () =>
        new InvalidSignInLinkError('This sign-in link cannot be used: it is expired, already used or not a link we sent. Ask for a new one.');
      if (!isTokenShaped(token)) throw invalid();
      const { db, clock } = ctx.services;
      const now = clock();
      const email = await consumeSignInLink(db, hashToken(token), now);
      if (email === null) throw invalid();
      const account = (await insertAccount(db, { email, plan: 'free', signedUpAt: now })) ?? (await findAccountByEmail(db, email));
      if (!account) throw new Error(`The account of ${email} vanished while signing in`);
      const sessionToken = newToken();
      await insertSession(db, { tokenHash: hashToken(sessionToken), accountId: account.id, now });
      return { sessionToken, account };
    },
  }),
  signOut: t.field({
    type: 'Boolean',
    description: 'Ends the dashboard session: its token stops working at once.',
    authScopes: { session: true },
    resolve: async (_root, _args, ctx) => {
      await deleteSession(ctx.services.db, sessionViewerOf(ctx).tokenHash);
      return true;
    },
  }),
}));
