// Webhook signatures. `X-Service-Signature` is keyed with the secret string exactly as issued
// (`whsec_…`, UTF-8, GitHub style); `webhook-signature` follows Standard Webhooks, keyed with the
// base64-decoded part after `whsec_`. Both are HMAC-SHA256 over the raw body bytes.
import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { cached } from '../../bounded-cache.ts';

const SECRET_PREFIX = 'whsec_';

/** `sha256=<hex>` for the `X-Service-Signature` header. */
export function serviceSignature(secret: string, rawBody: string | Buffer): string {
  // A string key is the same UTF-8 bytes, and far cheaper for node than a Buffer key (no KeyObject per call).
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/** `v1,<base64>` for the Standard Webhooks `webhook-signature` header. */
export function standardWebhooksSignature(secret: string, id: string, timestampSeconds: number, rawBody: string | Buffer): string {
  const mac = createHmac('sha256', standardKey(secret)).update(`${id}.${timestampSeconds}.`).update(rawBody).digest('base64');
  return `v1,${mac}`;
}

// Decoded Standard Webhooks keys by secret, as KeyObjects: the dispatcher signs thousands of
// deliveries a second with a handful of secrets. Bounded; the least recently used goes first.
const standardKeys = new Map<string, KeyObject>();
function standardKey(secret: string): KeyObject {
  return cached(standardKeys, secret, 256, () =>
    createSecretKey(Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64')),
  );
}

/** Constant-time check of an `X-Service-Signature` header value against the raw body. */
export function verifyServiceSignature(secret: string, rawBody: string | Buffer, header: string): boolean {
  const expected = Buffer.from(serviceSignature(secret, rawBody), 'utf8');
  const given = Buffer.from(header, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** `whsec_` + 32 random bytes in standard base64 (44 characters), as Standard Webhooks libraries expect. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}
