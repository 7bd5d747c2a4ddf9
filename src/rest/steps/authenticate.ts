// Who is asking (docs/api.md §5, D12 and D18 in docs/decisions.md): the account behind a bearer
// key; on the webhook endpoints (docs/api.md §4.2) a signed-in dashboard session instead, whose
// changes need its CSRF token in X-CSRF-Token. A key wins when both are sent, and its restrictions
// (src/key-restrictions.ts) apply to it.
import { BadRequestError, InvalidApiKeyError } from '../../errors.js';
import { isCsrfTokenOf, sessionTokenOf } from '../../http/session-cookie.js';
import type { SessionViewer } from '../../schema/context.js';
import type { Services } from '../../services.js';
import { authenticateSession } from '../../schema/session.js';
import { missingAccountKey, missingKey, type KeyAuthenticator } from '../auth.js';
import type { Exchange, Step } from '../exchange.js';

export function authenticate(keys: Pick<KeyAuthenticator, 'authenticate'>, services: Services): Step {
  return async (exchange, next) => {
    const { auth, path } = exchange.endpoint!;
    if (auth !== 'none') {
      const authorization = exchange.request.header('authorization');
      // Two credentials are ambiguous: which one the request meant cannot be guessed.
      if (authorization !== null && exchange.request.repeated('authorization')) throw new BadRequestError('Send one Authorization header, not several');
      if (authorization !== null) {
        // The key's restrictions are checked here, before the parameters (a restricted request is 403, never 400).
        const { viewer, refusal } = await keys.authenticate(authorization, { path, client: exchange.peer!.address });
        // The key's account sees the request in its usage even when the key may not make it; a
        // restricted request was still made by a valid key, so its answer says where the quota stands.
        exchange.keyHolder = viewer;
        if (refusal?.code !== 'invalid_api_key') exchange.viewer = viewer;
        if (refusal) throw refusal;
      } else if (auth === 'account') exchange.session = await dashboardSession(exchange, services);
      else if (auth === 'key') throw missingKey();
    }
    return next(exchange);
  };
}

/** The session the cookie names; 401 invalid_api_key (D12's type on these endpoints) saying what is wrong. */
async function dashboardSession(exchange: Exchange, services: Services): Promise<SessionViewer> {
  const { request } = exchange;
  const token = sessionTokenOf(request.header('cookie'), exchange.https);
  if (token === undefined) throw missingAccountKey();
  const session = await authenticateSession(services, token);
  if (!session) throw new InvalidApiKeyError('The dashboard session has ended (it expired or was signed out): sign in again, or send an API key');
  if (exchange.endpoint!.method !== 'GET') {
    const sent = request.header('x-csrf-token');
    if (sent === null) {
      throw new InvalidApiKeyError("With a dashboard session, changes need the session's CSRF token: send it in the X-CSRF-Token header");
    }
    if (!isCsrfTokenOf(sent, token)) {
      throw new InvalidApiKeyError('The X-CSRF-Token header is not the CSRF token of this dashboard session: reload the dashboard for the current one');
    }
  }
  return session;
}
