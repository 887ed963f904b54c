// Turns committed outbox events into per-subscription deliveries, in one transaction per batch:
// the deliveries and the events' dispatched mark commit together, so an event is matched once.
import type { Services } from '../../services.ts';
import { tx } from '../../store/db.ts';
import { insertDelivery, type DueDelivery } from '../../store/deliveries.ts';
import { markDispatched, pendingEvents, type EventRow } from '../../store/events.ts';
import { listEnabledWebhooks, type ActiveWebhook } from '../../store/webhooks.ts';
import { buildDeliveryBody, newDeliveryId } from './delivery.ts';

type Filter = { orgId: number; spaceId: number | null; events: Set<string>; activeSince: string };
type Subscription = Filter & { id: string; url: string; secret: Buffer };

/**
 * Which subscriptions receive an event: never personal-space activity; org, space filter and
 * event name must match, and the subscription must have been on when the event happened (the
 * outbox may be drained later: after a restart, or while the dispatcher is paced).
 */
export function matchSubscriptions<S extends Filter>(
  e: Pick<EventRow, 'event' | 'org_id' | 'space_id' | 'personal' | 'occurred_at'>, subs: S[],
): S[] {
  if (e.personal) return [];
  return subs.filter((s) => s.orgId === e.org_id && (s.spaceId === null || s.spaceId === e.space_id)
    && s.events.has(e.event) && e.occurred_at >= s.activeSince);
}

export function toSubscription(w: ActiveWebhook): Subscription {
  return {
    id: w.id, orgId: w.org_id, spaceId: w.space_id, events: new Set(JSON.parse(w.events) as string[]),
    activeSince: w.active_since, url: w.url, secret: w.secret,
  };
}

/**
 * Drains up to `limit` events (fewer taken = the outbox is empty) and returns the deliveries it
 * created, ready to send, so the dispatcher need not read them back.
 */
export function drainOutbox(svc: Services, limit: number): { events: number; deliveries: DueDelivery[] } {
  return tx(svc.db, () => {
    const events = pendingEvents(svc.db, limit);
    if (events.length === 0) return { events: 0, deliveries: [] };
    const subs = listEnabledWebhooks(svc.db).map(toSubscription);
    const now = svc.now();
    const nowMs = Date.parse(now);
    const deliveries: DueDelivery[] = [];
    for (const e of events) {
      for (const s of matchSubscriptions(e, subs)) {
        const id = newDeliveryId();
        const body = buildDeliveryBody(id, e.payload);
        insertDelivery(svc.db, {
          id, webhook_id: s.id, event_id: e.id, event: e.event, body,
          status: 'pending', attempts: 0, next_attempt_at: nowMs, created_at: now,
        });
        deliveries.push({ id, webhook_id: s.id, event: e.event, body, attempts: 0, url: s.url, secret: s.secret });
      }
      markDispatched(svc.db, e.id, now);
    }
    return { events: events.length, deliveries };
  });
}
