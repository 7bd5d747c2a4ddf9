// Signing in and out: the address form's post, the link's confirmation (a new session, its cookie)
// and signing out.
import { DomainError } from '../errors.js';
import { graphql } from '../graphql.js';
import { SIGN_IN_LINK_MINUTES, SIGN_IN_PATH, isTokenShaped } from '../schema/session.js';
import { ASSETS, type PageKit, type PageRoutes } from './page-kit.js';
import { BadLinkPage, CheckEmailPage, ConfirmSignInPage, SignInPage } from './sign-in-page.js';

const SESSION_MAX_AGE_S = 30 * 24 * 3600;

export const signInDocuments = {
  requestSignInLink: graphql('mutation($email: Text!, $client: Text!) { requestSignInLink(email: $email, client: $client) }'),
  signIn: graphql('mutation($token: Text!) { signIn(token: $token) { sessionToken } }'),
  signOut: graphql('mutation { signOut }'),
};

export function signInRoutes({ run, page, redirect, sessionCookie, checkSameOrigin, checkCsrf, formOf }: PageKit): PageRoutes {
  return {
    '/dashboard/sign-in-link': {
      POST: async (req) => {
        checkSameOrigin(req);
        const email = (await formOf(req)).get('email') ?? '';
        try {
          await run(signInDocuments.requestSignInLink, { email, client: req.peer.client }, null);
        } catch (error) {
          if (error instanceof DomainError && error.code === 'bad_request') {
            return page(400, SignInPage({ assets: ASSETS, error: error.message, email: email.slice(0, 254) }));
          }
          throw error;
        }
        return page(200, CheckEmailPage({ assets: ASSETS, minutes: SIGN_IN_LINK_MINUTES }));
      },
    },
    [SIGN_IN_PATH]: {
      // Opening the link only shows a button: a mail scanner that fetches it consumes nothing.
      GET: async (req) => {
        const token = req.url.searchParams.get('token') ?? '';
        if (!isTokenShaped(token)) {
          return page(
            400,
            BadLinkPage({ assets: ASSETS, message: 'This address is not a complete sign-in link. Copy the whole link from the e-mail, or ask for a new one.' }),
          );
        }
        return page(200, ConfirmSignInPage({ assets: ASSETS, token }));
      },
      POST: async (req) => {
        checkSameOrigin(req);
        const token = (await formOf(req)).get('token') ?? '';
        let sessionToken: string;
        try {
          ({
            signIn: { sessionToken },
          } = await run(signInDocuments.signIn, { token }, null));
        } catch (error) {
          if (error instanceof DomainError && error.code === 'invalid_sign_in_link') return page(400, BadLinkPage({ assets: ASSETS, message: error.message }));
          throw error;
        }
        // A new session every time, never the cookie the browser came with (no fixation); the old one ends.
        if (req.session) await run(signInDocuments.signOut, {}, req.session);
        return redirect('/dashboard', { 'Set-Cookie': sessionCookie(req.https, sessionToken, SESSION_MAX_AGE_S) });
      },
    },
    '/dashboard/sign-out': {
      POST: async (req) => {
        checkSameOrigin(req);
        const session = checkCsrf(req, await formOf(req));
        await run(signInDocuments.signOut, {}, session);
        return redirect('/dashboard', { 'Set-Cookie': sessionCookie(req.https, '', 0) });
      },
    },
  };
}
