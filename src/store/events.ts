import { stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';

export type EventRow = {
  id: number;
  event: string;
  occurred_at: string;
  org_id: number;
  space_id: number | null;
  /** page.moved into another space: the space the page left (its subscriptions receive it too). */
  from_space_id: number | null;
  personal: number;
  payload: string;
  dispatched_at: string | null;
};

/**
 * Writes an outbox row, unless no subscription can ever receive the event: personal-space
 * activity, and any event while no enabled subscription of its org filters for its name and
 * space. Subscriptions match only what happens while they are enabled (outbox-drain.ts), and one
 * created or enabled later commits after this write, so such a row would never be read, and
 * would only fill the data directory of a server without webhooks. Returns whether the row was
 * written.
 */
export function insertEvent(
  db: Db,
  e: Omit<EventRow, 'id' | 'dispatched_at' | 'from_space_id'> & { from_space_id?: number | null },
): boolean {
  return (
    stmt(
      db,
      `
    INSERT INTO events (event, occurred_at, org_id, space_id, from_space_id, personal, payload)
    SELECT @event, @occurred_at, @org_id, @space_id, @from_space_id, @personal, @payload
    WHERE @personal = 0 AND EXISTS (
      SELECT 1 FROM webhooks w
      WHERE w.org_id = @org_id AND w.disabled_at IS NULL
        AND (w.space_id IS NULL OR w.space_id IS @space_id OR w.space_id IS @from_space_id)
        AND EXISTS (SELECT 1 FROM json_each(w.events) WHERE value = @event))`,
    ).run({ from_space_id: null, ...e }).changes === 1
  );
}

export function pendingEvents(db: Db, limit: number): EventRow[] {
  return stmt(db, 'SELECT * FROM events WHERE dispatched_at IS NULL ORDER BY id LIMIT ?').all(limit) as never;
}

export function markDispatched(db: Db, id: number, now: string): void {
  stmt(db, 'UPDATE events SET dispatched_at = ? WHERE id = ?').run(now, id);
}

/** Removes up to `limit` outbox rows dispatched before `beforeIso`; pending rows always stay. */
export function pruneEvents(db: Db, beforeIso: string, limit: number): number {
  return stmt(
    db,
    `DELETE FROM events WHERE id IN (
                     SELECT id FROM events WHERE dispatched_at IS NOT NULL AND dispatched_at < ? ORDER BY id LIMIT ?)`,
  ).run(beforeIso, limit).changes;
}
