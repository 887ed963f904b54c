// The one authorization module. Every read, list, count and search decides what a caller may
// see with READABLE_PAGE (inside the SQL, so limits and cursors stay right) or canReadPage (for
// one page already loaded): both encode the same rules, and a property test holds them together.
//
// Rules (contract: Spaces and access):
// - personal space: its owner only (org admins included: they do not see into it);
// - shared space: org admins always; a page with an ACL: the listed principals (write implies
//   read); a page without one: every org member unless the space's defaultAccess is 'none'.

import type { AclEntry, Caller, PageAccessRow, SpaceAccessRow } from '../model.ts';

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

/**
 * May the caller bring a page back from the trash (a restore, or a write at its path)? Those who
 * could write it when it was deleted (`acl`: the ACL it had then, null without one) and may
 * create pages in the space; org admins always (shared spaces), the owner (personal ones).
 */
export function canRestoreTrashed(caller: Caller, space: SpaceAccessRow, acl: AclEntry[] | null): boolean {
  const couldWrite =
    space.owner_id !== null || caller.orgAdmin || acl === null || acl.some((e) => e.principal_id === caller.id && e.perm === 'write');
  return couldWrite && canCreateIn(caller, space);
}

/**
 * May the caller take a shared page into their personal space? That hides it from every other
 * reader, org admins included, so it needs the right to delete it for all of them: org admins,
 * or the page's only writer: its own ACL names the caller as its one writer and every revision
 * is theirs (`othersWrote` false), so that setting such an ACL on a page others wrote is not
 * enough. Checked on top of canWritePage.
 */
export function canTakePersonal(caller: Caller, page: PageAccessRow, acl: AclEntry[], othersWrote: () => boolean): boolean {
  if (caller.orgAdmin) return true;
  const writers = acl.filter((e) => e.perm === 'write');
  return page.has_acl === 1 && writers.length === 1 && writers[0].principal_id === caller.id && !othersWrote();
}

/**
 * Whether every reader of `src` may read `dst` (both live, rules of access.ts). Conservative:
 * answers false when it cannot tell without listing the org's members.
 */
export function readersWithin(
  srcSpace: SpaceAccessRow,
  src: PageAccessRow,
  srcAcl: AclEntry[],
  dstSpace: SpaceAccessRow,
  dst: PageAccessRow,
  dstAcl: AclEntry[],
): boolean {
  if (srcSpace.owner_id !== null) {
    // Only the owner reads the source: do they read the target?
    const owner = { id: srcSpace.owner_id, orgId: srcSpace.org_id, orgAdmin: false } as Caller;
    return canReadPage(owner, dstSpace, dst, dstAcl);
  }
  if (dstSpace.owner_id !== null) return false; // a personal page: nobody else reads it
  // Readers of the source: its ACL's principals (plus org admins), or with no ACL the whole org
  // (none but the org admins when the space's default is 'none'). Org admins read every shared page.
  const srcReaders: string[] | 'org' | 'admins' = src.has_acl
    ? srcAcl.map((e) => e.principal_id)
    : srcSpace.default_access === 'none'
      ? 'admins'
      : 'org';
  if (srcReaders === 'admins') return true;
  if (!dst.has_acl) return dstSpace.default_access !== 'none' || (srcReaders !== 'org' && srcReaders.length === 0);
  if (srcReaders === 'org') return false;
  const dstReaders = new Set(dstAcl.map((e) => e.principal_id));
  return srcReaders.every((id) => dstReaders.has(id));
}
