// Turns committed outbox events into per-subscription deliveries, in one transaction per batch:
// the deliveries and the events' dispatched mark commit together, so an event is matched once.
import type { Services } from '../../services.ts';
import { tx } from '../../store/db.ts';
import { insertDelivery } from '../../store/deliveries.ts';
import { markDispatched, pendingEvents, type EventRow } from '../../store/events.ts';
import { listEnabledWebhooks, type ActiveWebhook } from '../../store/webhooks.ts';
import { buildDeliveryBody, newDeliveryId } from './delivery.ts';

type Subscription = { id: string; orgId: number; spaceId: number | null; events: Set<string> };

/** Which subscriptions receive an event: never personal-space activity; org, space filter and event must match. */
export function matchSubscriptions(e: Pick<EventRow, 'event' | 'org_id' | 'space_id' | 'personal'>, subs: Subscription[]): Subscription[] {
  if (e.personal) return [];
  return subs.filter((s) => s.orgId === e.org_id && (s.spaceId === null || s.spaceId === e.space_id) && s.events.has(e.event));
}

export function toSubscription(w: ActiveWebhook): Subscription {
  return { id: w.id, orgId: w.org_id, spaceId: w.space_id, events: new Set(JSON.parse(w.events) as string[]) };
}

/** Drains up to `limit` events; returns how many it took (fewer than `limit` = the outbox is empty). */
export function drainOutbox(svc: Services, limit: number): { events: number; deliveries: number } {
  return tx(svc.db, () => {
    const events = pendingEvents(svc.db, limit);
    if (events.length === 0) return { events: 0, deliveries: 0 };
    const subs = listEnabledWebhooks(svc.db).map(toSubscription);
    const now = svc.now();
    const nowMs = Date.parse(now);
    let deliveries = 0;
    for (const e of events) {
      for (const s of matchSubscriptions(e, subs)) {
        const id = newDeliveryId();
        insertDelivery(svc.db, {
          id, webhook_id: s.id, event_id: e.id, event: e.event, body: buildDeliveryBody(id, e.payload),
          status: 'pending', attempts: 0, next_attempt_at: nowMs, created_at: now,
        });
        deliveries++;
      }
      markDispatched(svc.db, e.id, now);
    }
    return { events: events.length, deliveries };
  });
}
