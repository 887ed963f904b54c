// Turns committed outbox events into per-subscription deliveries, in one transaction per batch:
// the deliveries and the events' dispatched mark commit together, so an event is matched once.
import type { Services } from '../../services.ts';
import { tx } from '../../store/db/transactions.ts';
import { insertDelivery, type DueDelivery } from '../../store/deliveries.ts';
import { markDispatched, pendingEvents, type EventRow } from '../../store/events.ts';
import { listMatchableWebhooks, type MatchableWebhook } from '../../store/webhooks.ts';
import { buildDeliveryBody, outboxDeliveryId } from './delivery.ts';

type Filter = { orgId: number; spaceId: number | null; events: Set<string>; activeSince: string; disabledAt: string | null };
type Subscription = Filter & { id: string; url: string; secret: Buffer };

/**
 * Which subscriptions receive an event: never personal-space activity; org, space filter (the
 * event's space, or for a move into another space the one it left too) and
 * event name must match, and the subscription must have been on when the event happened (the
 * outbox may be drained later: after a restart, or while the dispatcher is paced). A delivery
 * for a subscription disabled since then waits, paused, until it is enabled again.
 */
export function matchSubscriptions<S extends Filter>(
  e: Pick<EventRow, 'event' | 'org_id' | 'space_id' | 'personal' | 'occurred_at'> & { from_space_id?: number | null },
  subs: S[],
): S[] {
  if (e.personal) return [];
  return subs.filter(
    (s) =>
      s.orgId === e.org_id &&
      (s.spaceId === null || s.spaceId === e.space_id || (e.from_space_id != null && s.spaceId === e.from_space_id)) &&
      s.events.has(e.event) &&
      e.occurred_at >= s.activeSince &&
      (s.disabledAt === null || e.occurred_at < s.disabledAt),
  );
}

function toSubscription(w: MatchableWebhook): Subscription {
  return {
    id: w.id,
    orgId: w.org_id,
    spaceId: w.space_id,
    events: new Set(JSON.parse(w.events) as string[]),
    activeSince: w.active_since,
    disabledAt: w.disabled_at,
    url: w.url,
    secret: w.secret,
  };
}

/**
 * Drains up to `limit` events, stopping early once `maxDeliveries` deliveries are made; `more`
 * says whether events are left. New deliveries go to the dispatcher's queue while `roomFor(webhookId)` allows: those are
 * stored as claimed and returned (to queue after the commit), so they are never read back; `left`
 * names the subscriptions with deliveries left in the table.
 */
export function drainOutbox(
  svc: Services,
  limit: number,
  maxDeliveries: number,
  roomFor: (webhookId: string) => number,
): { more: boolean; taken: DueDelivery[]; left: string[] } {
  return tx(svc.db, () => {
    const events = pendingEvents(svc.db, limit);
    if (events.length === 0) return { more: false, taken: [], left: [] };
    const subs = listMatchableWebhooks(svc.db).map(toSubscription);
    const roomLeft = new Map(subs.map((s) => [s.id, roomFor(s.id)]));
    const now = svc.now();
    const nowMs = Date.parse(now);
    const taken: DueDelivery[] = [];
    const left = new Set<string>(); // subscriptions with deliveries left in the table
    let made = 0;
    let done = 0;
    for (const e of events) {
      if (made >= maxDeliveries) break;
      for (const s of matchSubscriptions(e, subs)) {
        made++;
        const id = outboxDeliveryId(e, s.id);
        const body = buildDeliveryBody(id, e.payload);
        const take = s.disabledAt === null && roomLeft.get(s.id)! > 0; // a paused one's wait in the table
        if (take) {
          roomLeft.set(s.id, roomLeft.get(s.id)! - 1);
          taken.push({ id, webhook_id: s.id, event: e.event, body, attempts: 0, url: s.url, secret: s.secret });
        } else left.add(s.id);
        insertDelivery(svc.db, {
          id,
          webhook_id: s.id,
          event_id: e.id,
          event: e.event,
          body,
          status: 'pending',
          attempts: 0,
          next_attempt_at: nowMs,
          claimed: take ? 1 : 0,
          created_at: now,
        });
      }
      markDispatched(svc.db, e.id, now);
      done++;
    }
    return { more: done < events.length || events.length === limit, taken, left: [...left] };
  });
}
