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

export function insertEvent(db: Db, e: Omit<EventRow, 'id' | 'dispatched_at'>): number {
  return Number(stmt(db, `INSERT INTO events (event, occurred_at, org_id, space_id, personal, payload)
                          VALUES (@event, @occurred_at, @org_id, @space_id, @personal, @payload)`).run(e).lastInsertRowid);
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
