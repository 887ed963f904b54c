import type { Services } from '../services.ts';
import { notifyEventsWritten } from '../services.ts';
import { canRestoreTrashed } from './access.ts';
import { AppError, invalid, notFound } from './errors.ts';
import { accessChanged, withBatch } from './indexes/list.ts';
import { presentPage, writeRevision, type Page } from './pages.ts';
import { checkPagePath, normalizePagePath } from './paths.ts';
import { presentSpace, resolveSpace, type Space } from './spaces.ts';
import { tx } from '../store/db/transactions.ts';
import { dropRedirect, pagesAtOrUnder, setPageAddress } from '../store/moves.ts';
import { findPage, replaceAcl } from '../store/pages.ts';
import * as spaces from '../store/spaces.ts';
import * as store from '../store/trash.ts';
import type { Caller } from '../model.ts';

type TrashItem = { path: string; title: string; version: number; deletedAt: string; deletedBy: { id: string; name: string } | null };

/** GET /spaces/:slug/trash: deleted pages the caller could read when they were deleted. */
export function listTrash(svc: Services, caller: Caller, slug: string, q: { after: string; limit: number }) {
  const space = resolveSpace(svc, caller, slug);
  const rows = store.listTrash(svc.db, caller, space.id, q.after, q.limit + 1);
  const pages: TrashItem[] = rows.slice(0, q.limit).map((r) => ({
    path: r.path,
    title: r.title,
    version: r.version,
    deletedAt: r.deleted_at,
    // Pages deleted before schema version 6 have no trash row: who deleted them is not known.
    deletedBy: r.deleted_by ? { id: r.deleted_by, name: r.deleted_by_name ?? '' } : null,
  }));
  return { pages, last: rows.length > q.limit ? pages[pages.length - 1].path : null };
}

/**
 * POST /spaces/:slug/trash/restore: the deleted page comes back as a new revision (its last
 * state) at `path` or `to`, with the ACL it had. Allowed to those who could write it when it was
 * deleted and may create pages in the space.
 */
export function restoreFromTrash(svc: Services, caller: Caller, slug: string, input: { path: string; to?: string }): Page {
  const pathIssue = checkPagePath(input.path, 'path', true) ?? (input.to !== undefined ? checkPagePath(input.to, 'to') : null);
  if (pathIssue) throw invalid([pathIssue]);
  const path = normalizePagePath(input.path);
  const dest = input.to !== undefined ? normalizePagePath(input.to) : path;
  const out = tx(svc.db, () => {
    const db = svc.db;
    const space = resolveSpace(svc, caller, slug);
    const row = findPage(db, space.id, path);
    if (!row || row.deleted_at === null || !store.canReadTrashed(db, caller, row.id)) throw notFound(`deleted page '${slug}/${path}'`);
    const acl = store.trashedAcl(db, row.id);
    if (!canRestoreTrashed(caller, space, acl)) throw new AppError('forbidden', 'you may not restore this page');
    if (dest !== path) {
      const there = pagesAtOrUnder(db, space.id, dest, false)[0];
      if (there) throw new AppError('conflict', `a ${there.deleted_at === null ? '' : 'deleted '}page exists at '${slug}/${dest}'`);
      setPageAddress(db, row.id, space.id, dest);
      dropRedirect(db, space.id, dest);
    }
    const written = withBatch(svc, undefined, (b) => {
      // The page is still in the trash here: its written hook indexes it with its readers.
      if (acl)
        accessChanged(b, { id: row.id, spaceSlug: space.slug, path: dest, title: row.title, live: false }, () =>
          replaceAcl(db, row.id, acl),
        );
      return writeRevision(
        svc,
        caller,
        space,
        dest,
        { ...row, path: dest },
        {
          title: row.title,
          content: row.content,
          frontmatter: row.frontmatter,
          metadata: row.metadata,
          template: row.template,
        },
        { name: 'page.restored' },
        b,
      );
    });
    return presentPage(space, { ...written.row, has_acl: acl ? 1 : 0 });
  });
  notifyEventsWritten(svc);
  return out;
}

/** DELETE /spaces/:slug (org admins, shared spaces): into the org trash; nothing is removed. */
export function trashSpace(svc: Services, caller: Caller, slug: string): void {
  tx(svc.db, () => {
    const space = resolveSpace(svc, caller, slug);
    if (space.owner_id !== null) throw new AppError('forbidden', 'a personal space cannot be deleted');
    if (!caller.orgAdmin) throw new AppError('forbidden', 'only org admins delete spaces');
    spaces.setSpaceDeleted(svc.db, space.id, svc.now(), caller.id);
  });
}

type TrashedSpace = Space & { deletedAt: string; deletedBy: { id: string; name: string } | null };

export function listTrashedSpaces(svc: Services, caller: Caller, q: { after: string; limit: number }) {
  requireAdmin(caller);
  const rows = spaces.listTrashedSpaces(svc.db, caller.orgId, q.after, q.limit + 1);
  const list: TrashedSpace[] = rows.slice(0, q.limit).map((r) => ({
    ...presentSpace(r),
    deletedAt: r.deleted_at!,
    deletedBy: r.deleted_by ? { id: r.deleted_by, name: r.deleted_by_name ?? '' } : null,
  }));
  return { spaces: list, last: rows.length > q.limit ? list[list.length - 1].slug : null };
}

export function restoreSpace(svc: Services, caller: Caller, slug: string): Space {
  requireAdmin(caller);
  return tx(svc.db, () => {
    const space = spaces.findSpaceBySlug(svc.db, slug);
    if (!space || space.org_id !== caller.orgId || !space.deleted_at) throw notFound(`deleted space '${slug}'`);
    spaces.setSpaceDeleted(svc.db, space.id, null, null);
    return presentSpace(spaces.findSpaceById(svc.db, space.id)!);
  });
}

function requireAdmin(caller: Caller): void {
  if (!caller.orgAdmin) throw new AppError('forbidden', 'org admins only');
}
