// The access rules as SQL conditions, for every read, list, count and search (inside the SQL, so
// limits and cursors stay right). domain/access.ts encodes the same rules for one page already
// loaded (canReadPage …); a property test holds the two together.
import type { Caller } from '../model.ts';

/**
 * SQL condition: page `p` in space `s` is live and readable by the caller (a space in the org
 * trash reads as absent). Bind callerParams().
 */
export const READABLE_PAGE = `(p.deleted_at IS NULL AND ${readableLivePage('p.has_acl', 'p.id')})`;

/**
 * SQL condition: a live page of space `s`, whose `has_acl` and id are the expressions given (a
 * copy of the page's columns kept elsewhere, such as title_order), is readable by the caller:
 * READABLE_PAGE without its liveness check. Bind callerParams().
 */
export function readableLivePage(hasAcl: string, id: string): string {
  return `(s.org_id = @callerOrg AND s.deleted_at IS NULL AND (
  CASE WHEN s.owner_id IS NOT NULL THEN s.owner_id = @callerId
       WHEN @callerAdmin = 1 THEN 1
       WHEN ${hasAcl} = 0 THEN s.default_access <> 'none'
       ELSE EXISTS (SELECT 1 FROM page_acl a WHERE a.page_id = ${id} AND a.principal_id = @callerId)
  END))`;
}

/**
 * SQL condition: the pages of space `s` whose page ACL lists readers `g.readers` are readable by
 * the caller. READABLE_PAGE for counts kept per reader set (meta_key_stats) instead of per page:
 * `g.readers` is '' for pages without an ACL, else ',id1,id2,' (',' for an empty ACL). Deleted
 * pages are never counted there. Bind callerParams().
 */
export const READABLE_GROUP = readableGroup('s', 'g.readers');

/**
 * READABLE_GROUP for another space alias and reader-set expression (the change feed judges each
 * change by the space and readers it had before and after it: src/store/changes.ts).
 */
export function readableGroup(s: string, readers: string): string {
  return `(${s}.org_id = @callerOrg AND ${s}.deleted_at IS NULL AND (
  CASE WHEN ${s}.owner_id IS NOT NULL THEN ${s}.owner_id = @callerId
       WHEN @callerAdmin = 1 THEN 1
       WHEN ${readers} = '' THEN ${s}.default_access <> 'none'
       ELSE instr(${readers}, ',' || @callerId || ',') > 0
  END))`;
}

/**
 * SQL expression: the reader set of page `p`'s own ACL: NULL without one, else ',id1,id2,' of
 * the listed principals (sorted; ',' when it lists nobody). The format of meta_key_stats.readers,
 * revisions.readers and history_access.readers.
 */
export const ACL_READERS = `CASE WHEN p.has_acl = 0 THEN NULL ELSE ',' || coalesce(
  (SELECT group_concat(a.principal_id || ',', '' ORDER BY a.principal_id) FROM page_acl a WHERE a.page_id = p.id), '') END`;

// A revision's own ACL (r.readers) and every ACL that governed it before it was dropped
// (history_access rows, appended on delete and ACL removal) let only their readers read it.
const REVISION_ACL_READERS = `(r.readers IS NULL OR instr(r.readers, ',' || @callerId || ',') > 0)
   AND NOT EXISTS (SELECT 1 FROM history_access h WHERE h.page_id = r.page_id AND h.up_to >= r.version
                   AND instr(h.readers, ',' || @callerId || ',') = 0)`;

/**
 * SQL condition: revision `r` of a page in space `s` is readable by the caller, given that the
 * caller may read the live page (its current ACL covers all its history: check that first).
 * Beyond that, REVISION_ACL_READERS, except for org admins in shared spaces and the owner of a
 * personal space, who read all. And whatever space the page is in now, a revision written before
 * a move into another space is readable only by those who could read it in each space it left
 * since (move_history): its owner there, or org admins and the readers kept there (who pass
 * REVISION_ACL_READERS too). So no move widens who reads a revision. Bind callerParams().
 */
export const READABLE_REVISION = `((CASE WHEN s.owner_id IS NOT NULL THEN s.owner_id = @callerId
  WHEN @callerAdmin = 1 THEN 1
  ELSE ${REVISION_ACL_READERS}
  END)
  AND NOT EXISTS (SELECT 1 FROM move_history m JOIN spaces x ON x.id = m.space_id
    WHERE m.page_id = r.page_id AND m.up_to >= r.version AND NOT (CASE
      WHEN x.owner_id IS NOT NULL THEN x.owner_id = @callerId
      WHEN @callerAdmin = 1 THEN 1
      ELSE (m.readers = '*' OR instr(m.readers, ',' || @callerId || ',') > 0) AND ${REVISION_ACL_READERS}
    END)))`;

/** SQL condition: space `s` is visible to the caller (GET /spaces). */
export const VISIBLE_SPACE = `(s.org_id = @callerOrg AND s.deleted_at IS NULL AND (
  CASE WHEN s.owner_id IS NOT NULL THEN s.owner_id = @callerId
       WHEN @callerAdmin = 1 OR s.default_access <> 'none' THEN 1
       ELSE EXISTS (SELECT 1 FROM page_acl a JOIN pages p ON p.id = a.page_id
                    WHERE a.principal_id = @callerId AND p.space_id = s.id AND p.deleted_at IS NULL)
  END))`;

export function callerParams(caller: Caller): { callerId: string; callerOrg: number; callerAdmin: number } {
  return { callerId: caller.id, callerOrg: caller.orgId, callerAdmin: caller.orgAdmin ? 1 : 0 };
}
