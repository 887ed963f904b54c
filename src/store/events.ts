import { stmt, type Db } from './db.ts';

export type EventRow = {
  id: number;
  event: string;
  occurred_at: string;
  org_id: number;
  space_id: number | null;
  personal: number;
  payload: string;
  dispatched_at: string | null;
};

/**
 * Writes an outbox row. An event that no subscription can receive is written as dispatched
 * already: personal-space activity, and any event while no enabled subscription of its org
 * filters for its name and space. Subscriptions match only what happens while they are enabled
 * (outbox-drain.ts), and one created or enabled later commits after this row, so the drain would
 * only have marked it. Without this, a server with no webhooks paid for every write twice: the
 * drain's UPDATE of each row (2,000 at a time every second while writes saturate the loop, 7–14 ms
 * each on the main thread, measured under the core bench).
 */
export function insertEvent(db: Db, e: Omit<EventRow, 'id' | 'dispatched_at'>): number {
  return Number(stmt(db, `
    INSERT INTO events (event, occurred_at, org_id, space_id, personal, payload, dispatched_at)
    VALUES (@event, @occurred_at, @org_id, @space_id, @personal, @payload,
      CASE WHEN @personal = 0 AND EXISTS (
        SELECT 1 FROM webhooks w
        WHERE w.org_id = @org_id AND w.disabled_at IS NULL AND (w.space_id IS NULL OR w.space_id IS @space_id)
          AND EXISTS (SELECT 1 FROM json_each(w.events) WHERE value = @event))
      THEN NULL ELSE @occurred_at END)`).run(e).lastInsertRowid);
}

export function pendingEvents(db: Db, limit: number): EventRow[] {
  return stmt(db, 'SELECT * FROM events WHERE dispatched_at IS NULL ORDER BY id LIMIT ?').all(limit) as never;
}

export function markDispatched(db: Db, id: number, now: string): void {
  stmt(db, 'UPDATE events SET dispatched_at = ? WHERE id = ?').run(now, id);
}

/** Removes up to `limit` outbox rows dispatched before `beforeIso`; pending rows always stay. */
export function pruneEvents(db: Db, beforeIso: string, limit: number): number {
  return stmt(db, `DELETE FROM events WHERE id IN (
                     SELECT id FROM events WHERE dispatched_at IS NOT NULL AND dispatched_at < ? ORDER BY id LIMIT ?)`)
    .run(beforeIso, limit).changes;
}
