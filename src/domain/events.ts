import type { Db } from '../store/db/types.ts';
import { insertEvent } from '../store/events.ts';
import type { SpaceRow } from '../store/spaces.ts';
import type { Caller } from '../model.ts';

export const PAGE_EVENTS = ['page.created', 'page.updated', 'page.deleted', 'page.metadata.updated', 'page.moved'] as const;
type PageEvent = (typeof PAGE_EVENTS)[number];
export const EVENT_NAMES = [...PAGE_EVENTS, 'webhook.test'] as const;

type EventPayload = {
  event: string;
  occurredAt: string;
  actor: { id: string; kind: string };
  page: { path: string; space: string; title: string; version: number };
  changedKeys?: string[];
  /** page.moved: the address the page had. */
  from?: { space: string; path: string };
};

/**
 * Writes one outbox row when a subscription can receive the event (insertEvent); call inside the
 * transaction of the change it describes. A move names the space the page left (`fromSpace`):
 * subscriptions of either space receive it, and it is personal-space activity only when both are
 * personal, so a page leaving a shared space for a personal one is announced to the shared side.
 */
export function recordPageEvent(
  db: Db,
  event: PageEvent,
  actor: Caller,
  space: SpaceRow,
  page: { path: string; title: string; version: number },
  occurredAt: string,
  changedKeys?: string[],
  from?: { space: string; path: string },
  fromSpace?: SpaceRow,
): void {
  const payload: EventPayload = {
    event,
    occurredAt,
    actor: { id: actor.id, kind: actor.kind },
    page: { path: page.path, space: space.slug, title: page.title, version: page.version },
    ...(changedKeys ? { changedKeys } : {}),
    ...(from ? { from } : {}),
  };
  insertEvent(db, {
    event,
    occurred_at: occurredAt,
    org_id: space.org_id,
    space_id: space.id,
    from_space_id: fromSpace && fromSpace.id !== space.id ? fromSpace.id : null,
    personal: space.owner_id !== null && (fromSpace === undefined || fromSpace.owner_id !== null) ? 1 : 0,
    payload: JSON.stringify(payload),
  });
}
