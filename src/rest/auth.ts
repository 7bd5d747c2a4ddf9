// Bearer API keys (docs/api.md §5, D12, D18 in docs/decisions.md). Lookups are cached briefly per
// process: every change that affects authentication made through this process (revoke, suspend,
// plan change) clears the cache at once, and the TTL bounds how long a change made by another
// process can go unseen.
import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { findKeyHolderByHash, type KeyHolder } from '../db/api-keys.js';
import type { Database } from '../db/database.js';
import { hashKey, keyPrefix } from '../domain/api-key.js';
import { AccountSuspendedError, InvalidApiKeyError, UnauthorizedError } from '../errors.js';
import type { ApiKeyViewer } from '../schema/context.js';

const CACHE_TTL_MS = 2_000;
const MAX_CACHED_KEYS = 10_000;

export class KeyAuthenticator {
  /** key hash → its holder's lookup, for CACHE_TTL_MS by `now` */
  private readonly keyHolders: LRUCache<string, Promise<KeyHolder | null>>;

  constructor(
    private readonly db: Kysely<Database>,
    now: () => number = Date.now,
  ) {
    this.keyHolders = new LRUCache({ max: MAX_CACHED_KEYS, ttl: CACHE_TTL_MS, ttlResolution: 0, perf: { now } });
  }

  /** The viewer for an Authorization header; null when none was sent. Throws the 401 errors. */
  async authenticate(header: string | null): Promise<ApiKeyViewer | null> {
    if (header === null) return null;
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!match) throw new InvalidApiKeyError('Malformed Authorization header: use "Authorization: Bearer <API key>"');
    const key = match[1]!;
    if (keyPrefix(key) === null) throw new InvalidApiKeyError('Invalid API key');
    const holder = await this.lookup(hashKey(key));
    if (!holder || holder.keyStatus !== 'active') throw new InvalidApiKeyError('Invalid API key: it is unknown or has been revoked');
    if (holder.accountStatus === 'suspended') {
      throw new AccountSuspendedError('This account is suspended: its API keys cannot be used until it is reinstated');
    }
    return { kind: 'apiKey', accountId: holder.accountId, keyId: holder.keyId, plan: holder.plan, billingDay: holder.billingDay };
  }

  clear(): void {
    this.keyHolders.clear();
  }

  private lookup(keyHash: string): Promise<KeyHolder | null> {
    const cached = this.keyHolders.get(keyHash);
    if (cached) return cached;
    // The pending lookup is what is cached, so requests arriving together share one query; a
    // change clears it, so a lookup that raced the change answers only the requests already waiting.
    const holder = findKeyHolderByHash(this.db, keyHash);
    this.keyHolders.set(keyHash, holder);
    holder.catch(() => this.keyHolders.peek(keyHash) === holder && this.keyHolders.delete(keyHash));
    return holder;
  }
}

export function missingKey(): UnauthorizedError {
  return new UnauthorizedError('An API key is required: send Authorization: Bearer <API key>');
}

/** D12: on the webhook endpoints a missing key is invalid_api_key. */
export function missingAccountKey(): InvalidApiKeyError {
  return new InvalidApiKeyError('An API key is required: send Authorization: Bearer <API key>');
}
