// The Keys page's handlers: list and generate keys, edit a key's restrictions, revoke a key.
import type { VNode } from 'preact';
import type { Account } from '../db/database.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import { PLAN_LIMITS } from '../domain/plans.js';
import { graphql } from '../graphql.js';
import type { SessionViewer } from '../schema/context.js';
import { inFormWords, restrictionsChange, sentRestrictions } from './key-restrictions-form.js';
import { KeysPage, RestrictKeyPage, RevokeKeyPage, restrictionsForm, type KeysData } from './keys-page.js';
import { ASSETS, type DashboardRequest, type PageKit, type PageRoutes } from './page-kit.js';

export const keysDocuments = {
  keys: graphql(
    'query { sessionAccount { email status plan planLimits { name apiKeys } apiKeys { id prefix lastFour status createdAt lastUsedOn restrictions { allowedIps allowedEndpoints expiresOn monthlyCap capUsed } } } }',
  ),
  createKey: graphql('mutation($restrictions: KeyRestrictionsInput) { createSessionApiKey(restrictions: $restrictions) { key } }'),
  restrictKey: graphql(
    'mutation($id: Text!, $restrictions: KeyRestrictionsInput, $clear: Boolean) { restrictSessionApiKey(id: $id, restrictions: $restrictions, clear: $clear) { id } }',
  ),
  revokeKey: graphql('mutation($id: Text!) { revokeSessionApiKey(id: $id) { id } }'),
};

export function keysRoutes({ run, page, redirect, frameOf, signedIn, signedInForm, services }: PageKit): PageRoutes {
  async function keysOf(session: SessionViewer): Promise<KeysData & { account: Pick<Account, 'email' | 'status'> }> {
    const { sessionAccount: account } = await run(keysDocuments.keys, {}, session);
    const now = services.clock();
    const today = now.toISOString().slice(0, 10);
    const plan = PLAN_LIMITS[account.plan];
    return { account, planName: account.planLimits.name, plan, keyLimit: account.planLimits.apiKeys, keys: account.apiKeys, today, now };
  }

  async function keysPage(req: DashboardRequest, session: SessionViewer, extra: { created?: string; refusal?: string } = {}): Promise<VNode> {
    const data = await keysOf(session);
    return KeysPage({ assets: ASSETS, frame: frameOf(req, data.account, 'keys'), data, ...extra });
  }

  /** An active key of the account, for its restrictions page; 404 otherwise. */
  async function activeKeyOf(session: SessionViewer, id: string | null) {
    const data = await keysOf(session);
    const key = data.keys.find((k) => k.id === id && k.status === 'active');
    if (!key) throw new NotFoundError('This account has no active key with that id.');
    return { ...data, key };
  }

  return {
    '/dashboard/keys': {
      GET: async (req) => {
        const session = signedIn(req);
        return page(200, await keysPage(req, session));
      },
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        const before = await keysOf(session);
        const active = before.keys.filter((k) => k.status === 'active').length;
        // Free and Starter hold one key: replacing it must be confirmed, as the old one stops at once.
        if (before.keyLimit === 1 && active > 0 && form.get('confirm') !== 'yes') {
          throw new BadRequestError('Tick the box confirming that your current key stops working at once, then generate again.');
        }
        const sent = sentRestrictions(form);
        try {
          const { createSessionApiKey } = await run(keysDocuments.createKey, { restrictions: restrictionsChange(sent) }, session);
          return page(200, await keysPage(req, session, { created: createSessionApiKey.key }));
        } catch (error) {
          if (!(error instanceof BadRequestError)) throw error;
          return page(400, await keysPage(req, session, { refusal: inFormWords(error.message) }));
        }
      },
    },
    '/dashboard/keys/restrict': {
      GET: async (req) => {
        const session = signedIn(req);
        const { account, key, today, plan } = await activeKeyOf(session, req.url.searchParams.get('id'));
        const form = restrictionsForm(key.restrictions);
        return page(200, RestrictKeyPage({ assets: ASSETS, frame: frameOf(req, account, 'keys'), keyToRestrict: key, today, plan, form }));
      },
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        const id = form.get('id') ?? '';
        if (form.get('clear') === 'yes') {
          await run(keysDocuments.restrictKey, { id, clear: true }, session);
          return redirect('/dashboard/keys');
        }
        const sent = sentRestrictions(form);
        try {
          await run(keysDocuments.restrictKey, { id, restrictions: restrictionsChange(sent) }, session);
        } catch (error) {
          if (!(error instanceof BadRequestError)) throw error;
          const { account, key, today, plan } = await activeKeyOf(session, id);
          const shown = { ...sent, error: inFormWords(error.message) };
          return page(400, RestrictKeyPage({ assets: ASSETS, frame: frameOf(req, account, 'keys'), keyToRestrict: key, today, plan, form: shown }));
        }
        return redirect('/dashboard/keys');
      },
    },
    '/dashboard/keys/revoke': {
      GET: async (req) => {
        const session = signedIn(req);
        const { account, keys } = await keysOf(session);
        const key = keys.find((k) => k.id === req.url.searchParams.get('id') && k.status === 'active');
        if (!key) throw new NotFoundError('This account has no active key with that id.');
        return page(200, RevokeKeyPage({ assets: ASSETS, frame: frameOf(req, account, 'keys'), keyToRevoke: key }));
      },
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        await run(keysDocuments.revokeKey, { id: form.get('id') ?? '' }, session);
        return redirect('/dashboard/keys');
      },
    },
  };
}
