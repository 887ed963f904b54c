// The one authorization module. Every read, list, count and search decides what a caller may
// see with READABLE_PAGE (inside the SQL, so limits and cursors stay right) or canReadPage (for
// one page already loaded): both encode the same rules, and a property test holds them together.
//
// Rules (contract: Spaces and access):
// - personal space: its owner only (org admins included: they do not see into it);
// - shared space: org admins always; a page with an ACL: the listed principals (write implies
//   read); a page without one: every org member unless the space's defaultAccess is 'none'.

export type Caller = {
  id: string;
  name: string;
  kind: 'agent' | 'user';
  orgId: number;
  orgAdmin: boolean;
};

export type SpaceAccessRow = { id: number; org_id: number; owner_id: string | null; default_access: 'write' | 'read' | 'none' };
export type PageAccessRow = { id: number; has_acl: number; deleted_at: string | null };
export type AclEntry = { principal_id: string; perm: 'read' | 'write' };

/**
 * SQL condition: page `p` in space `s` is live and readable by the caller. Bind callerParams().
 */
export const READABLE_PAGE = `(p.deleted_at IS NULL AND s.org_id = @callerOrg AND (
  CASE WHEN s.owner_id IS NOT NULL THEN s.owner_id = @callerId
       WHEN @callerAdmin = 1 THEN 1
       WHEN p.has_acl = 0 THEN s.default_access <> 'none'
       ELSE EXISTS (SELECT 1 FROM page_acl a WHERE a.page_id = p.id AND a.principal_id = @callerId)
  END))`;

/**
 * SQL condition: the pages of space `s` whose page ACL lists readers `g.readers` are readable by
 * the caller. READABLE_PAGE for counts kept per reader set (meta_key_stats) instead of per page:
 * `g.readers` is '' for pages without an ACL, else ',id1,id2,' (',' for an empty ACL). Deleted
 * pages are never counted there. Bind callerParams().
 */
export const READABLE_GROUP = `(s.org_id = @callerOrg AND (
  CASE WHEN s.owner_id IS NOT NULL THEN s.owner_id = @callerId
       WHEN @callerAdmin = 1 THEN 1
       WHEN g.readers = '' THEN s.default_access <> 'none'
       ELSE instr(g.readers, ',' || @callerId || ',') > 0
  END))`;

/** SQL condition: space `s` is visible to the caller (GET /spaces). */
export const VISIBLE_SPACE = `(s.org_id = @callerOrg AND (
  CASE WHEN s.owner_id IS NOT NULL THEN s.owner_id = @callerId
       WHEN @callerAdmin = 1 OR s.default_access <> 'none' THEN 1
       ELSE EXISTS (SELECT 1 FROM page_acl a JOIN pages p ON p.id = a.page_id
                    WHERE a.principal_id = @callerId AND p.space_id = s.id AND p.deleted_at IS NULL)
  END))`;

export function callerParams(caller: Caller): { callerId: string; callerOrg: number; callerAdmin: number } {
  return { callerId: caller.id, callerOrg: caller.orgId, callerAdmin: caller.orgAdmin ? 1 : 0 };
}

export function canReadPage(caller: Caller, space: SpaceAccessRow, page: PageAccessRow, acl: AclEntry[]): boolean {
  if (page.deleted_at !== null || space.org_id !== caller.orgId) return false;
  if (space.owner_id !== null) return space.owner_id === caller.id;
  if (caller.orgAdmin) return true;
  if (!page.has_acl) return space.default_access !== 'none';
  return acl.some((e) => e.principal_id === caller.id);
}

export function canWritePage(caller: Caller, space: SpaceAccessRow, page: PageAccessRow, acl: AclEntry[]): boolean {
  if (page.deleted_at !== null || space.org_id !== caller.orgId) return false;
  if (space.owner_id !== null) return space.owner_id === caller.id;
  if (caller.orgAdmin) return true;
  if (!page.has_acl) return space.default_access === 'write';
  return acl.some((e) => e.principal_id === caller.id && e.perm === 'write');
}

/** May the caller create a new page (or re-create a deleted one) in the space? */
export function canCreateIn(caller: Caller, space: SpaceAccessRow): boolean {
  if (space.org_id !== caller.orgId) return false;
  if (space.owner_id !== null) return space.owner_id === caller.id;
  return caller.orgAdmin || space.default_access === 'write';
}

export function canSeeSpace(caller: Caller, space: SpaceAccessRow, hasAclGrant: () => boolean): boolean {
  if (space.org_id !== caller.orgId) return false;
  if (space.owner_id !== null) return space.owner_id === caller.id;
  return caller.orgAdmin || space.default_access !== 'none' || hasAclGrant();
}

/** Deleting: org admins in shared spaces, the owner in a personal space. */
export function canDeletePage(caller: Caller, space: SpaceAccessRow): boolean {
  if (space.org_id !== caller.orgId) return false;
  if (space.owner_id !== null) return space.owner_id === caller.id;
  return caller.orgAdmin;
}
