// One delivery attempt: the body, the headers, the signed POST behind the address guard, and what
// the outcome means for the delivery (delivered, retry later, give up, blocked).
import { createHash, randomBytes } from 'node:crypto';
import { BlockedAddressError, guardedPost, type AgentPool } from '../net/guarded-fetch.ts';
import type { AttemptOutcome, DeliveryStatus } from '../../store/deliveries.ts';
import { serviceSignature, standardWebhooksSignature } from './signing.ts';

/** `dlv_` + 12 hex digits of epoch ms + 16 random hex digits: unique, and sorted by creation time. */
export const newDeliveryId = () => `dlv_${Date.now().toString(16).padStart(12, '0')}${randomBytes(8).toString('hex')}`;

/**
 * The id of the delivery of outbox event `e` to subscription `webhookId`: derived from the event
 * (its row id, time and payload) and the subscription, so that draining the same event again
 * gives the same id. That happens after a failover (docs/scale-out.md): a promoted replica whose
 * copy holds the event but not the drain that the old primary committed (and perhaps sent) makes
 * the delivery again with the id the receiver saw, so the receiver can drop the duplicate.
 */
export function outboxDeliveryId(e: { id: number; occurred_at: string; payload: string }, webhookId: string): string {
  const ms = Date.parse(e.occurred_at);
  const hash = createHash('sha256').update(`${e.id}\n${webhookId}\n${e.payload}`).digest('hex').slice(0, 16);
  return `dlv_${(Number.isFinite(ms) ? ms : 0).toString(16).padStart(12, '0')}${hash}`;
}

/** The delivery body: the outbox payload (a JSON object) with the delivery id first. */
export function buildDeliveryBody(deliveryId: string, payloadJson: string): Buffer {
  const rest = payloadJson.trim().slice(1).trimStart();
  return Buffer.from(`{"id":${JSON.stringify(deliveryId)}${rest.startsWith('}') ? '' : ','}${rest}`, 'utf8');
}

type DeliveryTarget = {
  deliveryId: string;
  webhookId: string;
  event: string;
  url: string;
  /** The signing secret in clear (`whsec_…`), opened just for this attempt. */
  secret: string;
  body: Buffer;
};

/** Every header of one attempt; the Standard Webhooks timestamp is the attempt's own. */
export function deliveryHeaders(t: DeliveryTarget, timestampSeconds: number): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'kspace-webhooks/1',
    'x-service-event': t.event,
    'x-service-delivery': t.deliveryId,
    'x-service-webhook': t.webhookId,
    'x-service-signature': serviceSignature(t.secret, t.body),
    'webhook-id': t.deliveryId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': standardWebhooksSignature(t.secret, t.deliveryId, timestampSeconds, t.body),
  };
}

export type SendResult = { ok: boolean; blocked: boolean; httpStatus: number | null; error: string | null; durationMs: number };

type SendOptions = { timeoutMs: number; allowPrivate: boolean; agents: AgentPool; signal?: AbortSignal };

/** POSTs one attempt. Never throws: a 2xx is ok; 3xx (redirects are not followed), 4xx, 5xx and network errors are not. */
export async function sendDelivery(t: DeliveryTarget, opts: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const res = await guardedPost(t.url, {
      headers: deliveryHeaders(t, Math.floor(Date.now() / 1000)),
      body: t.body,
      timeoutMs: opts.timeoutMs,
      allowPrivate: opts.allowPrivate,
      agents: opts.agents,
      signal: opts.signal,
    });
    const ok = res.status >= 200 && res.status < 300;
    return { ok, blocked: false, httpStatus: res.status, error: ok ? null : `HTTP ${res.status}`, durationMs: elapsed() };
  } catch (e) {
    const blocked = e instanceof BlockedAddressError;
    return { ok: false, blocked, httpStatus: null, error: describeError(e, opts.timeoutMs), durationMs: elapsed() };
  }
}

function describeError(e: unknown, timeoutMs: number): string {
  if (!(e instanceof Error)) return String(e);
  if (e.name === 'TimeoutError') return `timed out after ${timeoutMs} ms`;
  // fetch-style failures carry the socket error as their cause.
  const cause = (e as { cause?: unknown }).cause;
  if (cause instanceof Error && cause.message) return cause.message;
  return e.message;
}

type AttemptPlan = { outcome: AttemptOutcome; status: DeliveryStatus; nextAttemptAt: number | null };

/**
 * What attempt number `attempt` (1 = first) means for its delivery: retries follow `delaysMs`
 * (the last delay repeats when there are more retries than delays) up to `maxRetries`; a guard
 * block is final at once.
 */
export function planAfterAttempt(
  result: Pick<SendResult, 'ok' | 'blocked'>,
  attempt: number,
  delaysMs: number[],
  maxRetries: number,
  nowMs: number,
): AttemptPlan {
  if (result.ok) return { outcome: 'delivered', status: 'delivered', nextAttemptAt: null };
  if (result.blocked) return { outcome: 'blocked', status: 'blocked', nextAttemptAt: null };
  if (attempt > maxRetries) return { outcome: 'failed', status: 'failed', nextAttemptAt: null };
  const delay = delaysMs.length === 0 ? 0 : delaysMs[Math.min(attempt - 1, delaysMs.length - 1)];
  return { outcome: 'retrying', status: 'pending', nextAttemptAt: nowMs + delay };
}
