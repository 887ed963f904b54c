import { stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';

export type WebhookRow = {
  id: string;
  org_id: number;
  url: string;
  events: string; // JSON array
  space_id: number | null;
  description: string | null;
  active_since: string;
  disabled_at: string | null; // NULL = enabled
  secret: Buffer; // sealed
  created_at: string;
  updated_at: string;
};

/** A subscription with its space filter's slug, as the admin routes present it. */
export type WebhookView = WebhookRow & { space_slug: string | null };

const VIEW = `SELECT w.*, s.slug AS space_slug FROM webhooks w LEFT JOIN spaces s ON s.id = w.space_id`;

export function insertWebhook(db: Db, w: WebhookRow): void {
  stmt(
    db,
    `INSERT INTO webhooks (id, org_id, url, events, space_id, description, active_since, disabled_at, secret, created_at, updated_at)
            VALUES (@id, @org_id, @url, @events, @space_id, @description, @active_since, @disabled_at, @secret, @created_at, @updated_at)`,
  ).run(w);
}

export function findWebhook(db: Db, orgId: number, id: string): WebhookView | undefined {
  return stmt(db, `${VIEW} WHERE w.id = ? AND w.org_id = ?`).get(id, orgId) as never;
}

export function listWebhooks(db: Db, orgId: number): WebhookView[] {
  return stmt(db, `${VIEW} WHERE w.org_id = ? ORDER BY w.created_at, w.id`).all(orgId) as never;
}

export type WebhookChanges = Pick<WebhookRow, 'url' | 'events' | 'space_id' | 'description' | 'active_since' | 'disabled_at'>;

export function updateWebhook(db: Db, id: string, c: WebhookChanges, now: string): void {
  stmt(
    db,
    `UPDATE webhooks SET url = @url, events = @events, space_id = @space_id, description = @description,
            active_since = @active_since, disabled_at = @disabled_at, updated_at = @now WHERE id = @id`,
  ).run({ ...c, id, now });
}

export function updateSecret(db: Db, id: string, sealed: Buffer, now: string): void {
  stmt(db, 'UPDATE webhooks SET secret = ?, updated_at = ? WHERE id = ?').run(sealed, now, id);
}

export function deleteWebhook(db: Db, id: string): void {
  stmt(db, 'DELETE FROM webhooks WHERE id = ?').run(id);
}

/** What the outbox drain matches events against: every subscription with its active window. */
export type MatchableWebhook = Pick<
  WebhookRow,
  'id' | 'org_id' | 'events' | 'space_id' | 'active_since' | 'disabled_at' | 'url' | 'secret'
>;

export function listMatchableWebhooks(db: Db): MatchableWebhook[] {
  return stmt(db, 'SELECT id, org_id, events, space_id, active_since, disabled_at, url, secret FROM webhooks').all() as never;
}

export function enabledWebhookIds(db: Db): string[] {
  return stmt(db, 'SELECT id FROM webhooks WHERE disabled_at IS NULL').pluck().all() as string[];
}
