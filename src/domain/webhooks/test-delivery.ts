import type { Services } from '../../services.ts';
import { insertDelivery, recordAttempt } from '../../store/deliveries.ts';
import { createAgentPool } from '../net/guarded-fetch.ts';
import { buildDeliveryBody, newDeliveryId, planAfterAttempt, sendDelivery } from './delivery.ts';
import { requireSecretBox } from './secret-box.ts';
import { loadWebhook } from './subscriptions.ts';
import type { Caller } from '../../model.ts';

type TestOutcome = { outcome: 'delivered' | 'failed' | 'blocked'; status?: number; error?: string; durationMs: number };

/**
 * Sends `webhook.test` now, waits for the answer and logs it as a one-attempt delivery. It is
 * never retried: the caller sees the outcome and decides. Works on a disabled subscription too.
 */
export async function sendTestDelivery(svc: Services, caller: Caller, id: string): Promise<TestOutcome> {
  const w = loadWebhook(svc, caller, id);
  const secret = requireSecretBox(svc).open(w.secret);
  const deliveryId = newDeliveryId();
  const now = svc.now();
  const payload = { event: 'webhook.test', occurredAt: now, actor: { id: caller.id, kind: caller.kind } };
  const body = buildDeliveryBody(deliveryId, JSON.stringify(payload));
  // next_attempt_at stays NULL, so the dispatcher never picks the row up.
  await svc.writes.run(() =>
    insertDelivery(svc.db, {
      id: deliveryId,
      webhook_id: w.id,
      event_id: null,
      event: 'webhook.test',
      body,
      status: 'pending',
      attempts: 0,
      next_attempt_at: null,
      claimed: 0,
      created_at: now,
    }),
  );
  const { timeoutMs, allowPrivate } = svc.config.webhooks;
  const agents = createAgentPool(1);
  const r = await sendDelivery(
    { deliveryId, webhookId: w.id, event: 'webhook.test', url: w.url, secret, body },
    { timeoutMs, allowPrivate, agents },
  ).finally(() => agents.close());
  const plan = planAfterAttempt(r, 1, [], 0, Date.now());
  const outcome = plan.outcome === 'retrying' ? 'failed' : plan.outcome;
  await svc.writes.run(() =>
    recordAttempt(svc.db, {
      deliveryId,
      webhookId: w.id,
      attempt: 1,
      at: svc.now(),
      outcome,
      httpStatus: r.httpStatus,
      error: r.error,
      durationMs: r.durationMs,
      status: plan.status,
      nextAttemptAt: null,
    }),
  );
  return {
    outcome,
    ...(r.httpStatus !== null ? { status: r.httpStatus } : {}),
    ...(r.error !== null ? { error: r.error } : {}),
    durationMs: r.durationMs,
  };
}
