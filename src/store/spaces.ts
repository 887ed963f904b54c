import { cached } from '../bounded-cache.ts';
import { stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';
import { VISIBLE_SPACE, callerParams } from './access-sql.ts';
import type { Caller } from '../model.ts';

export type SpaceRow = {
  id: number;
  org_id: number;
  slug: string;
  name: string;
  description: string;
  default_access: 'write' | 'read' | 'none';
  owner_id: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  /** Set while the space is in the org trash (absent to everyone but the trash routes). */
  deleted_at?: string | null;
  deleted_by?: string | null;
};

// Every page request resolves its space by slug, and spaces change rarely: committed rows are
// kept per connection (a read transaction of their own would be a noticeable share of a page
// read's time) and dropped whenever this process writes a space. Only rows read
// outside a transaction are kept, so an uncommitted space never enters it. Only this module
// writes spaces (the offline CLI writes principals and keys, not spaces). Past MAX_CACHED_SPACES
// the least recently used one goes.
const bySlug = new WeakMap<Db, Map<string, SpaceRow | undefined>>();
const MAX_CACHED_SPACES = 1024;

export function findSpaceBySlug(db: Db, slug: string): SpaceRow | undefined {
  let m = bySlug.get(db);
  if (!m) bySlug.set(db, (m = new Map()));
  return cached(
    m,
    slug,
    MAX_CACHED_SPACES,
    () => {
      const row = stmt(db, 'SELECT * FROM spaces WHERE slug = ?').get(slug) as SpaceRow | undefined;
      return row && Object.freeze(row); // shared by every later caller: not to be changed
    },
    (row) => row !== undefined && !db.inTransaction,
  );
}

export function findSpaceById(db: Db, id: number): SpaceRow | undefined {
  return stmt(db, 'SELECT * FROM spaces WHERE id = ?').get(id) as never;
}

/** Principals without a personal space (`~name`), at most `limit`. */
export function principalsWithoutPersonalSpace(db: Db, limit: number): Array<{ id: string; name: string; org_id: number }> {
  return stmt(
    db,
    `SELECT p.id, p.name, p.org_id FROM principals p
    WHERE NOT EXISTS (SELECT 1 FROM spaces s WHERE s.slug = '~' || p.name) ORDER BY p.created_at, p.id LIMIT ?`,
  ).all(limit) as never;
}

/** Shared spaces a principal has created, those in the org trash included. */
export function countSpacesCreatedBy(db: Db, principalId: string): number {
  return (stmt(db, 'SELECT count(*) AS n FROM spaces WHERE created_by = ? AND owner_id IS NULL').get(principalId) as { n: number }).n;
}

export function insertSpace(db: Db, s: Omit<SpaceRow, 'id'>): number {
  bySlug.delete(db);
  return Number(
    stmt(
      db,
      `INSERT INTO spaces (org_id, slug, name, description, default_access, owner_id, created_by, created_at, updated_at)
    VALUES (@org_id, @slug, @name, @description, @default_access, @owner_id, @created_by, @created_at, @updated_at)`,
    ).run(s).lastInsertRowid,
  );
}

export function updateSpace(
  db: Db,
  id: number,
  f: { name: string; description: string; default_access: string; updated_at: string },
): void {
  bySlug.delete(db);
  stmt(
    db,
    'UPDATE spaces SET name = @name, description = @description, default_access = @default_access, updated_at = @updated_at WHERE id = @id',
  ).run({ ...f, id });
}

export function listVisibleSpaces(db: Db, caller: Caller, afterSlug: string, limit: number): SpaceRow[] {
  return stmt(db, `SELECT s.* FROM spaces s WHERE ${VISIBLE_SPACE} AND s.slug > @after ORDER BY s.slug LIMIT @limit`).all({
    ...callerParams(caller),
    after: afterSlug,
    limit,
  }) as never;
}

export function hasAclGrantInSpace(db: Db, spaceId: number, principalId: string): boolean {
  return (
    stmt(
      db,
      `SELECT 1 FROM page_acl a JOIN pages p ON p.id = a.page_id
                   WHERE a.principal_id = ? AND p.space_id = ? AND p.deleted_at IS NULL LIMIT 1`,
    ).get(principalId, spaceId) !== undefined
  );
}

/** Puts a space in the org trash, or takes it out (`at` null). */
export function setSpaceDeleted(db: Db, id: number, at: string | null, by: string | null): void {
  bySlug.delete(db);
  stmt(db, 'UPDATE spaces SET deleted_at = ?, deleted_by = ? WHERE id = ?').run(at, by, id);
}

export type TrashedSpaceRow = SpaceRow & { deleted_by_name: string | null };

/** The org's spaces in the trash, by slug after `afterSlug`. */
export function listTrashedSpaces(db: Db, orgId: number, afterSlug: string, limit: number): TrashedSpaceRow[] {
  return stmt(
    db,
    `SELECT s.*, d.name AS deleted_by_name FROM spaces s LEFT JOIN principals d ON d.id = s.deleted_by
    WHERE s.org_id = ? AND s.deleted_at IS NOT NULL AND s.slug > ? ORDER BY s.slug LIMIT ?`,
  ).all(orgId, afterSlug, limit) as never;
}
