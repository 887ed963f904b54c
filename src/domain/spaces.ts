import type { Services } from '../services.ts';
import { canSeeSpace } from './access.ts';
import { AppError, NeedsPrimary, invalid, notFound } from './errors.ts';
import { SPACE_SLUG, isPersonalSlug } from './paths.ts';
import { tx } from '../store/db/transactions.ts';
import * as store from '../store/spaces.ts';
import type { SpaceRow } from '../store/spaces.ts';
import type { Caller, Issue } from '../model.ts';

export type Space = {
  slug: string;
  name: string;
  description: string;
  defaultAccess: 'write' | 'read' | 'none';
  personal: boolean;
  createdAt: string;
  updatedAt: string;
};

export function presentSpace(s: SpaceRow): Space {
  return {
    slug: s.slug,
    name: s.name,
    description: s.description,
    defaultAccess: s.default_access,
    personal: s.owner_id !== null,
    createdAt: s.created_at,
    updatedAt: s.updated_at,
  };
}

/** The space `slug` if the caller may see it, else 404 (a hidden space is absent). */
export function resolveSpace(svc: Services, caller: Caller, slug: string): SpaceRow {
  let space = store.findSpaceBySlug(svc.db, slug);
  if (!space && slug === `~${caller.name}`) space = ensurePersonalSpace(svc, caller);
  if (!space || space.deleted_at || !canSeeSpace(caller, space, () => store.hasAclGrantInSpace(svc.db, space.id, caller.id))) {
    throw notFound(`space '${slug}'`);
  }
  return space;
}

/**
 * The caller's personal space. It is made with its principal (createPrincipal), and at start for
 * the principals of an older kspace (addMissingPersonalSpaces), so a read never has to write it
 * here; the insert below is a fallback for a principal that has none all the same.
 */
function ensurePersonalSpace(svc: Services, caller: Caller): SpaceRow {
  const slug = `~${caller.name}`;
  const found = store.findSpaceBySlug(svc.db, slug); // most calls: no write transaction at all
  if (found) return found;
  if (svc.config.replication.role === 'replica') throw new NeedsPrimary('a personal space is created on the primary');
  return tx(
    svc.db,
    () => store.findSpaceBySlug(svc.db, slug) ?? insertPersonalSpace(svc, { id: caller.id, name: caller.name, orgId: caller.orgId }),
  );
}

/** Inserts the personal space `~name` of a principal; inside a transaction. */
export function insertPersonalSpace(svc: Services, owner: { id: string; name: string; orgId: number }): SpaceRow {
  const slug = `~${owner.name}`;
  const now = svc.now();
  store.insertSpace(svc.db, {
    org_id: owner.orgId,
    slug,
    name: `${owner.name}'s space`,
    description: 'Personal space',
    default_access: 'none',
    owner_id: owner.id,
    created_by: owner.id,
    created_at: now,
    updated_at: now,
  });
  return store.findSpaceBySlug(svc.db, slug)!;
}

/**
 * At start (before the server listens): a personal space for each principal that has none (made
 * by a kspace that created them on first use). Returns how many were made.
 */
export function addMissingPersonalSpaces(svc: Services): number {
  if (store.principalsWithoutPersonalSpace(svc.db, 1).length === 0) return 0; // every start but one: no write
  return tx(svc.db, () => {
    const owners = store.principalsWithoutPersonalSpace(svc.db, Number.MAX_SAFE_INTEGER);
    for (const o of owners) insertPersonalSpace(svc, { id: o.id, name: o.name, orgId: o.org_id });
    return owners.length;
  });
}

export type NewSpace = { slug: string; name: string; description?: string; defaultAccess?: 'write' | 'read' | 'none' };

export function createSpace(svc: Services, caller: Caller, input: NewSpace): SpaceRow {
  const issues: Issue[] = [];
  if (!SPACE_SLUG.test(input.slug)) {
    issues.push({ key: 'slug', code: 'format', message: 'a slug is 1–63 characters of a-z, 0-9 and -, starting with a letter or digit' });
  }
  if (issues.length) throw invalid(issues);
  return tx(svc.db, () => {
    if (store.findSpaceBySlug(svc.db, input.slug)) throw new AppError('conflict', `a space '${input.slug}' exists`);
    checkSpaceCount(svc, caller);
    const now = svc.now();
    const id = store.insertSpace(svc.db, {
      org_id: caller.orgId,
      slug: input.slug,
      name: input.name,
      description: input.description ?? '',
      default_access: input.defaultAccess ?? 'write',
      owner_id: null,
      created_by: caller.id,
      created_at: now,
      updated_at: now,
    });
    return store.findSpaceById(svc.db, id)!;
  });
}

/**
 * Each principal creates at most SERVICE_MAX_SPACES_PER_PRINCIPAL shared spaces (those in the org
 * trash count: they keep their pages and files): every space brings its own attachment quota, so
 * without a cap one member could store without bound. Org admins, who can delete spaces, have none.
 */
function checkSpaceCount(svc: Services, caller: Caller): void {
  const cap = svc.config.limits.maxSpacesPerPrincipal;
  if (cap === 0 || caller.orgAdmin) return;
  const used = store.countSpacesCreatedBy(svc.db, caller.id);
  if (used >= cap) {
    throw new AppError(
      'quota_exceeded',
      `you have created ${used} spaces; the cap is ${cap} a principal (SERVICE_MAX_SPACES_PER_PRINCIPAL)`,
      undefined,
      { setting: 'SERVICE_MAX_SPACES_PER_PRINCIPAL', limit: cap, used },
    );
  }
}

type SpacePatch = { name?: string; description?: string; defaultAccess?: 'write' | 'read' | 'none' };

/** Renaming and access changes: org admins and the space's creator; a personal space's owner. */
export function patchSpace(svc: Services, caller: Caller, slug: string, patch: SpacePatch): SpaceRow {
  return tx(svc.db, () => {
    const space = resolveSpace(svc, caller, slug);
    const personal = space.owner_id !== null;
    const allowed = personal ? space.owner_id === caller.id : caller.orgAdmin || space.created_by === caller.id;
    if (!allowed) throw new AppError('forbidden', 'only org admins and the space creator may change a space');
    if (personal && patch.defaultAccess !== undefined && patch.defaultAccess !== 'none') {
      throw invalid([{ key: 'defaultAccess', code: 'option', message: 'a personal space is visible only to its owner' }]);
    }
    store.updateSpace(svc.db, space.id, {
      name: patch.name ?? space.name,
      description: patch.description ?? space.description,
      default_access: patch.defaultAccess ?? space.default_access,
      updated_at: svc.now(),
    });
    return store.findSpaceById(svc.db, space.id)!;
  });
}

export function listSpaces(svc: Services, caller: Caller, after: string, limit: number): SpaceRow[] {
  ensurePersonalSpace(svc, caller);
  return store.listVisibleSpaces(svc.db, caller, after, limit);
}

export { isPersonalSlug };
