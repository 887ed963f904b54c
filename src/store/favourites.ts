// A person's favourite pages (schema.sql favourites), listed through the access rules.
import type { Caller } from '../model.ts';
import { callerParams, READABLE_PAGE } from './access-sql.ts';
import { stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';

export type FavouriteRow = { space: string; path: string; title: string };

/** The caller's favourites they may read now, the newest first. */
export function listFavourites(db: Db, caller: Caller): FavouriteRow[] {
  return stmt(
    db,
    `SELECT s.slug AS space, p.path, p.title FROM favourites f
      JOIN pages p ON p.id = f.page_id JOIN spaces s ON s.id = p.space_id
      WHERE f.principal_id = @callerId AND ${READABLE_PAGE}
      ORDER BY f.created_at DESC, p.id DESC`,
  ).all(callerParams(caller)) as FavouriteRow[];
}

/** How many favourites the principal holds (readable or not). */
export function countFavourites(db: Db, principalId: string): number {
  return stmt(db, 'SELECT count(*) FROM favourites WHERE principal_id = ?').pluck().get(principalId) as number;
}

export function isFavourite(db: Db, principalId: string, pageId: number): boolean {
  return stmt(db, 'SELECT 1 FROM favourites WHERE principal_id = ? AND page_id = ?').get(principalId, pageId) !== undefined;
}

/** Adds a favourite; false when it was one already. */
export function addFavourite(db: Db, principalId: string, pageId: number, now: string): boolean {
  return (
    stmt(db, 'INSERT OR IGNORE INTO favourites (principal_id, page_id, created_at) VALUES (?, ?, ?)').run(principalId, pageId, now)
      .changes > 0
  );
}

export function removeFavourite(db: Db, principalId: string, pageId: number): void {
  stmt(db, 'DELETE FROM favourites WHERE principal_id = ? AND page_id = ?').run(principalId, pageId);
}
