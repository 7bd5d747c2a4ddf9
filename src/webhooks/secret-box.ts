// Signing secrets at rest: AES-256-GCM under the service's webhook key (D26 in docs/decisions.md:
// stored encrypted).
// A sealed secret is `v1.` + base64url(nonce ‖ tag ‖ ciphertext); the version leaves room for a
// key rotation later.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = 'v1.';

export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new RangeError('The webhook key must be 32 bytes');
  return {
    seal(plain) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return VERSION + Buffer.concat([nonce, cipher.getAuthTag(), ciphertext]).toString('base64url');
    },
    open(sealed) {
      if (!sealed.startsWith(VERSION)) throw new Error('Unknown sealed secret version');
      const raw = Buffer.from(sealed.slice(VERSION.length), 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, NONCE_BYTES));
      decipher.setAuthTag(raw.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}

/** A new signing secret (D26): `whsec_` and 32 random bytes in base64url. */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}
