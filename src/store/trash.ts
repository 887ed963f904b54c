import { stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';
import { ACL_READERS, callerParams } from './access-sql.ts';
import type { AclEntry, Caller } from '../model.ts';

// The page trash: a deleted page keeps its row (pages.deleted_at); `trash` remembers who deleted
// it and the ACL it had, which deletion drops from page_acl (see sealHistory).

/** Before the page's ACL is dropped: who deletes it and the ACL it has now. */
export function putInTrash(db: Db, pageId: number, deletedBy: string): void {
  stmt(
    db,
    `INSERT OR REPLACE INTO trash (page_id, deleted_by, readers, acl)
    SELECT p.id, @deletedBy, ${ACL_READERS},
      CASE WHEN p.has_acl = 0 THEN NULL ELSE (SELECT json_group_array(json_object('principal_id', a.principal_id, 'perm', a.perm))
        FROM page_acl a WHERE a.page_id = p.id) END
    FROM pages p WHERE p.id = @pageId`,
  ).run({ pageId, deletedBy });
}

export function takeFromTrash(db: Db, pageId: number): void {
  stmt(db, 'DELETE FROM trash WHERE page_id = ?').run(pageId);
}

/** The ACL a deleted page had (null without one, or deleted before the trash kept it). */
export function trashedAcl(db: Db, pageId: number): AclEntry[] | null {
  const t = findTrashRow(db, pageId);
  return t?.acl ? (JSON.parse(t.acl) as AclEntry[]) : null;
}

export type TrashRow = { page_id: number; acl: string | null; readers: string | null };

export function findTrashRow(db: Db, pageId: number): TrashRow | undefined {
  return stmt(db, 'SELECT page_id, acl, readers FROM trash WHERE page_id = ?').get(pageId) as never;
}

/**
 * SQL condition: deleted page `p` of space `s` (trash row `t`, maybe NULL) was readable by the
 * caller when deleted: READABLE_PAGE with the ACL the trash row kept. Bind callerParams().
 */
export const READABLE_TRASHED = `(p.deleted_at IS NOT NULL AND s.org_id = @callerOrg AND s.deleted_at IS NULL AND (
  CASE WHEN s.owner_id IS NOT NULL THEN s.owner_id = @callerId
       WHEN @callerAdmin = 1 THEN 1
       WHEN t.readers IS NULL THEN s.default_access <> 'none'
       ELSE instr(t.readers, ',' || @callerId || ',') > 0
  END))`;

export type TrashListRow = {
  id: number;
  path: string;
  title: string;
  version: number;
  deleted_at: string;
  deleted_by: string | null;
  deleted_by_name: string | null;
};

/** Deleted pages of a space the caller could read, in path order after `afterPath`. */
export function listTrash(db: Db, caller: Caller, spaceId: number, afterPath: string, limit: number): TrashListRow[] {
  return stmt(
    db,
    `SELECT p.id, p.path, p.title, p.version, p.deleted_at, t.deleted_by, d.name AS deleted_by_name
    FROM pages p JOIN spaces s ON s.id = p.space_id LEFT JOIN trash t ON t.page_id = p.id
    LEFT JOIN principals d ON d.id = t.deleted_by
    WHERE p.space_id = @spaceId AND p.path > @after AND ${READABLE_TRASHED}
    ORDER BY p.path LIMIT @limit`,
  ).all({ ...callerParams(caller), spaceId, after: afterPath, limit }) as never;
}

/** Whether the caller could read this deleted page. */
export function canReadTrashed(db: Db, caller: Caller, pageId: number): boolean {
  return (
    stmt(
      db,
      `SELECT 1 FROM pages p JOIN spaces s ON s.id = p.space_id LEFT JOIN trash t ON t.page_id = p.id
    WHERE p.id = @pageId AND ${READABLE_TRASHED}`,
    ).get({ ...callerParams(caller), pageId }) !== undefined
  );
}
