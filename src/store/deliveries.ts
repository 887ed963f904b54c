import { stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'blocked';
export type AttemptOutcome = 'delivered' | 'failed' | 'retrying' | 'blocked';

type NewDelivery = {
  id: string;
  webhook_id: string;
  event_id: number | null;
  event: string;
  body: Buffer;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: number | null;
  claimed: 0 | 1;
  created_at: string;
};

export function insertDelivery(db: Db, d: NewDelivery): void {
  stmt(
    db,
    `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event, body, status, attempts, next_attempt_at, claimed, created_at, updated_at)
            VALUES (@id, @webhook_id, @event_id, @event, @body, @status, @attempts, @next_attempt_at, @claimed, @created_at, @created_at)`,
  ).run(d);
}

/** A delivery ready to send, with what the attempt needs from its subscription. */
export type DueDelivery = {
  id: string;
  webhook_id: string;
  event: string;
  body: Buffer;
  attempts: number;
  url: string;
  secret: Buffer;
};

/** A subscription's unclaimed pending deliveries whose time has come, oldest due first (none if it is disabled). */
export function dueDeliveries(db: Db, webhookId: string, nowMs: number, limit: number): DueDelivery[] {
  return stmt(
    db,
    `SELECT d.id, d.webhook_id, d.event, d.body, d.attempts, w.url, w.secret
                   FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
                   WHERE d.webhook_id = ? AND d.status = 'pending' AND d.claimed = 0 AND d.next_attempt_at <= ?
                     AND w.disabled_at IS NULL
                   ORDER BY d.next_attempt_at LIMIT ?`,
  ).all(webhookId, nowMs, limit) as never;
}

/** Marks rows as held by the dispatcher, so the next load does not read them again. */
export function setClaimed(db: Db, ids: string[], claimed: 0 | 1): void {
  if (ids.length === 0) return;
  stmt(db, 'UPDATE webhook_deliveries SET claimed = ? WHERE id IN (SELECT value FROM json_each(?))').run(claimed, JSON.stringify(ids));
}

/** A starting dispatcher holds nothing: whatever the last process held is due again. */
export function clearClaims(db: Db): void {
  stmt(db, "UPDATE webhook_deliveries SET claimed = 0 WHERE claimed = 1 AND status = 'pending'").run();
}

/** The earliest unclaimed pending attempt time of a subscription after `afterMs`, for the retry timer. */
export function nextDueAfter(db: Db, webhookId: string, afterMs: number): number | null {
  const row = stmt(
    db,
    `SELECT MIN(next_attempt_at) AS t FROM webhook_deliveries
                        WHERE webhook_id = ? AND status = 'pending' AND claimed = 0 AND next_attempt_at > ?`,
  ).get(webhookId, afterMs) as { t: number | null };
  return row.t;
}

export type AttemptResult = {
  deliveryId: string;
  webhookId: string;
  attempt: number;
  at: string;
  outcome: AttemptOutcome;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
  /** The delivery's state after this attempt, and when to try again while pending. */
  status: DeliveryStatus;
  nextAttemptAt: number | null;
};

/**
 * Logs one attempt and moves its delivery on. A delivery deleted meanwhile (its subscription was
 * removed while the attempt was in flight) is left alone: there is nothing to log it under.
 */
export function recordAttempt(db: Db, r: AttemptResult): void {
  const moved = stmt(
    db,
    `UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, claimed = 0, updated_at = ?
                          WHERE id = ?`,
  ).run(r.status, r.attempt, r.nextAttemptAt, r.at, r.deliveryId);
  if (moved.changes === 0) return;
  stmt(
    db,
    `INSERT INTO webhook_attempts (delivery_id, webhook_id, attempt, at, outcome, http_status, error, duration_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(r.deliveryId, r.webhookId, r.attempt, r.at, r.outcome, r.httpStatus, r.error, r.durationMs);
}

type AttemptRow = {
  id: number;
  delivery_id: string;
  event: string;
  attempt: number;
  at: string;
  outcome: AttemptOutcome;
  http_status: number | null;
  error: string | null;
  duration_ms: number;
};

/** A subscription's attempts, newest first, those with a row id below `beforeId`. */
export function listAttempts(db: Db, webhookId: string, beforeId: number, limit: number): AttemptRow[] {
  return stmt(
    db,
    `SELECT a.id, a.delivery_id, d.event, a.attempt, a.at, a.outcome, a.http_status, a.error, a.duration_ms
                   FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
                   WHERE a.webhook_id = ? AND a.id < ? ORDER BY a.id DESC LIMIT ?`,
  ).all(webhookId, beforeId, limit) as never;
}

/**
 * Removes up to `limit` finished deliveries created before `beforeMs` (ids are time-ordered, so
 * this is a primary-key range) and log entries older than `beforeIso`; returns how many rows went.
 */
export function pruneDeliveries(db: Db, beforeMs: number, beforeIso: string, limit: number): number {
  const idBound = `dlv_${beforeMs.toString(16).padStart(12, '0')}`;
  const deliveries = stmt(
    db,
    `DELETE FROM webhook_deliveries WHERE id IN (
                                 SELECT id FROM webhook_deliveries WHERE id < ? AND status <> 'pending' LIMIT ?)`,
  ).run(idBound, limit).changes;
  // The oldest `limit` entries by id (ids grow with time), of those the ones past the cutoff.
  const attempts = stmt(
    db,
    `DELETE FROM webhook_attempts WHERE id IN (
                               SELECT id FROM (SELECT id, at FROM webhook_attempts ORDER BY id LIMIT ?) WHERE at < ?)`,
  ).run(limit, beforeIso).changes;
  return deliveries + attempts;
}
