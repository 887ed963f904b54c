import crypto from 'node:crypto';
import type { Services } from '../services.ts';
import { invalid } from '../domain/errors.ts';
import { ensureCursorKey, readCursorKey } from '../store/cursor-key.ts';

// Every `nextCursor` is sealed: AES-256-GCM of the position's JSON under the database's cursor
// key (src/store/cursor-key.ts), written as base64url(nonce ‖ ciphertext ‖ tag). The 12-byte
// nonce is synthetic, an HMAC-SHA-256 of the JSON under a key derived from the cursor key: the
// same position always seals to the same cursor (so a cursor, like the rest of an answer, is a
// function of what the caller may read), and two positions share a nonce only if their HMACs
// collide in 96 bits. A client reads nothing in it (no page id, no row number, no sign of where
// or why a walk stopped) and cannot make one: a cursor whose tag does not verify is a 400 on
// `cursor`. The router opens `cursor` before the query schema reads it (src/http/router.ts).

const AAD = Buffer.from('kspace cursor 1');
const NONCE = 12;
const TAG = 16;

type Sealer = { key: Buffer; nonceKey: Buffer; durable: boolean };
const sealer = (key: Buffer, durable: boolean): Sealer => ({
  key,
  nonceKey: crypto.createHmac('sha256', key).update('cursor nonce').digest(),
  durable,
});
const sealers = new WeakMap<Services, Sealer>();

// A primary makes the key on first use; a replica reads the primary's. A replica whose copy has
// no key yet seals with a key of its own process until the row arrives (its cursors then stop
// reading back once: a 400, and the list starts over).
function sealerOf(svc: Services): Sealer {
  const known = sealers.get(svc);
  if (known?.durable) return known;
  const stored = svc.config.replication.role === 'primary' ? ensureCursorKey(svc.db) : readCursorKey(svc.db);
  const made = stored ? sealer(stored, true) : (known ?? sealer(crypto.randomBytes(32), false));
  sealers.set(svc, made);
  return made;
}

/** A sealed cursor for `value` (a position some list reads back with its own check). */
export function encodeCursor(svc: Services, value: unknown): string {
  const { key, nonceKey } = sealerOf(svc);
  const json = JSON.stringify(value);
  const nonce = crypto.createHmac('sha256', nonceKey).update(json).digest().subarray(0, NONCE);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(AAD);
  const body = Buffer.concat([cipher.update(json, 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url');
}

/** The JSON inside a cursor this server sealed; a 400 on `cursor` for anything else. */
export function openCursor(svc: Services, raw: string): string {
  const bytes = Buffer.from(raw, 'base64url');
  // Only the one spelling this server wrote: base64url decoding skips stray characters and bits.
  if (bytes.length > NONCE + TAG && bytes.toString('base64url') === raw) {
    try {
      const decipher = crypto.createDecipheriv('aes-256-gcm', sealerOf(svc).key, bytes.subarray(0, NONCE));
      decipher.setAAD(AAD);
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG));
      return Buffer.concat([decipher.update(bytes.subarray(NONCE, bytes.length - TAG)), decipher.final()]).toString('utf8');
    } catch {
      // a tag that does not verify: falls through to the issue
    }
  }
  throw invalid([{ key: 'cursor', code: 'format', message: 'the cursor is not one this server issued' }]);
}
