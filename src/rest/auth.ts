// Bearer API keys (docs/api.md §5, D12, D18 in docs/decisions.md) and their restrictions
// (src/key-restrictions.ts). Lookups are cached briefly per process: every change that affects
// authentication (revoke, suspend, plan change, a key's restrictions) clears the cache of every
// process through the change feed before the change is reported done, and the TTL bounds how long
// a change can go unseen by a process whose feed was down.
import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { findKeyHolderByHash, type KeyHolder } from '../db/api-keys.js';
import type { Database } from '../db/database.js';
import { hashKey, keyPrefix } from '../domain/api-key.js';
import { AccountSuspendedError, InvalidApiKeyError, KeyRestrictedError, UnauthorizedError } from '../errors.js';
import type { IpAddress } from '../ip-address.js';
import { checkRestrictions, hasExpired, preparedRestrictions, type CheckedRestrictions, type KeyEndpoint } from '../key-restrictions.js';
import type { ApiKeyViewer } from '../schema/context.js';

const CACHE_TTL_MS = 2_000;
const MAX_CACHED_KEYS = 10_000;

/** A key's record as requests use it: its holder, and its restrictions made ready once. */
interface CachedKey {
  holder: KeyHolder;
  restrictions: CheckedRestrictions;
}

/** A key that was found: its holder, and the refusal of this request if its key may not make it. */
export interface KeyCheck {
  viewer: ApiKeyViewer;
  refusal: InvalidApiKeyError | KeyRestrictedError | null;
}

/** What a request is, for its key's restrictions: the route's path and the client's address. */
export interface KeyedRequest {
  path: string;
  client: IpAddress;
}

export class KeyAuthenticator {
  /** key hash → its record's lookup, for CACHE_TTL_MS by `now` */
  private readonly keyHolders: LRUCache<string, Promise<CachedKey | null>>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: () => Date = () => new Date(),
    now: () => number = Date.now,
  ) {
    this.keyHolders = new LRUCache({ max: MAX_CACHED_KEYS, ttl: CACHE_TTL_MS, ttlResolution: 0, perf: { now } });
  }

  /**
   * The key an Authorization header names: its holder as a viewer, and why this request may not use
   * it (an expired key's 401, a restriction's 403) or null. Throws the other 401s (a malformed,
   * unknown or revoked key, a suspended account), where no key of an account is known.
   */
  async authenticate(header: string, request: KeyedRequest): Promise<KeyCheck> {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!match) throw new InvalidApiKeyError('Malformed Authorization header: use "Authorization: Bearer <API key>"');
    const key = match[1]!;
    if (keyPrefix(key) === null) throw new InvalidApiKeyError('Invalid API key');
    const cached = await this.lookup(hashKey(key));
    const holder = cached?.holder;
    if (!holder || holder.keyStatus !== 'active') throw new InvalidApiKeyError('Invalid API key: it is unknown or has been revoked');
    if (holder.accountStatus === 'suspended') {
      throw new AccountSuspendedError('This account is suspended: its API keys cannot be used until it is reinstated');
    }
    const viewer: ApiKeyViewer = {
      kind: 'apiKey',
      accountId: holder.accountId,
      keyId: holder.keyId,
      plan: holder.plan,
      billingDay: holder.billingDay,
      monthlyCap: holder.monthlyCap,
    };
    if (hasExpired(holder.expiresOn, this.clock())) {
      return { viewer, refusal: new InvalidApiKeyError(`Invalid API key: it expired on ${holder.expiresOn} (from 00:00 UTC, its expiresOn restriction)`) };
    }
    try {
      checkRestrictions(cached.restrictions, request);
    } catch (error) {
      if (error instanceof KeyRestrictedError) return { viewer, refusal: error };
      throw error;
    }
    return { viewer, refusal: null };
  }

  clear(): void {
    this.keyHolders.clear();
  }

  private lookup(keyHash: string): Promise<CachedKey | null> {
    const cached = this.keyHolders.get(keyHash);
    if (cached) return cached;
    // The pending lookup is what is cached, so requests arriving together share one query; a
    // change clears it, so a lookup that raced the change answers only the requests already waiting.
    const holder = findKeyHolderByHash(this.db, keyHash).then((found) => found && { holder: found, restrictions: restrictionsOf(found) });
    this.keyHolders.set(keyHash, holder);
    holder.catch(() => this.keyHolders.peek(keyHash) === holder && this.keyHolders.delete(keyHash));
    return holder;
  }
}

function restrictionsOf(holder: KeyHolder): CheckedRestrictions {
  const { allowedIps, expiresOn, monthlyCap } = holder;
  return preparedRestrictions({ allowedIps, allowedEndpoints: holder.allowedEndpoints as KeyEndpoint[] | null, expiresOn, monthlyCap });
}

export function missingKey(): UnauthorizedError {
  return new UnauthorizedError('An API key is required: send Authorization: Bearer <API key>');
}

/** D12: on the webhook endpoints a missing key is invalid_api_key. */
export function missingAccountKey(): InvalidApiKeyError {
  return new InvalidApiKeyError('An API key is required: send Authorization: Bearer <API key>');
}
