// Encryption at rest for settings-derived secrets (webhook signing secrets). AES-256-GCM with a
// key derived by HKDF-SHA256 from SERVICE_SETTINGS_ENCRYPTION_KEY; a fresh 12-byte nonce per seal.
// Sealed layout: version (1 byte) | nonce (12) | tag (16) | ciphertext. The version byte is bound
// as associated data, so it cannot be swapped without failing authentication.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + NONCE_BYTES + TAG_BYTES;
const SALT = 'kspace-settings-v1';
const INFO = 'webhook-secret';
const MIN_SETTING_CHARS = 32;

export interface SecretBox {
  seal(plain: string): Buffer;
  open(sealed: Buffer): string;
}

/** A box keyed from the encryption setting; throws when the setting is shorter than 32 characters. */
export function createSecretBox(settingValue: string): SecretBox {
  if ([...settingValue].length < MIN_SETTING_CHARS) {
    throw new Error(`the settings encryption key must be at least ${MIN_SETTING_CHARS} characters`);
  }
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(settingValue, 'utf8'), SALT, INFO, 32));
  const aad = Buffer.from([VERSION]);

  return {
    seal(plain: string): Buffer {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad);
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([aad, nonce, cipher.getAuthTag(), ciphertext]);
    },
    open(sealed: Buffer): string {
      if (sealed.length < HEADER_BYTES) throw new Error('sealed secret is truncated');
      if (sealed[0] !== VERSION) throw new Error(`unknown sealed secret version ${sealed[0]}`);
      const nonce = sealed.subarray(1, 1 + NONCE_BYTES);
      const tag = sealed.subarray(1 + NONCE_BYTES, HEADER_BYTES);
      const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
      decipher.setAAD(aad);
      decipher.setAuthTag(tag);
      // final() throws when the tag does not verify (tampering or a different key).
      return Buffer.concat([decipher.update(sealed.subarray(HEADER_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}
