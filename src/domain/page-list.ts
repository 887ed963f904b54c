// Listing a space's pages: flat, in path order from a prefix, and one level of its tree at a time
// (`GET /spaces/:slug/pages`, with and without `depth=1`). Only pages the caller may read.
import type { Services } from '../services.ts';
import type { Caller } from '../model.ts';
import { normalizePagePath } from './paths.ts';
import { resolveSpace } from './spaces.ts';
import * as store from '../store/pages.ts';

type PageListItem = { path: string; title: string; version: number; updatedAt: string; template?: string };

const presentListItem = (r: store.PageListRow): PageListItem => ({
  path: r.path,
  title: r.title,
  version: r.version,
  updatedAt: r.updated_at,
  ...(r.template ? { template: r.template } : {}),
});

export function listPages(svc: Services, caller: Caller, slug: string, q: { prefix: string; after: string; limit: number }) {
  const space = resolveSpace(svc, caller, slug);
  const rows = store.listReadablePages(svc.db, caller, space.id, normalizePagePath(q.prefix), q.after, q.limit + 1);
  const more = rows.length > q.limit;
  const pages = rows.slice(0, q.limit).map(presentListItem);
  return { pages, last: more ? pages[pages.length - 1].path : null };
}

/** Sorts after every path inside a folder: `folder + FOLDER_END` is where the walk resumes past it. */
const FOLDER_END = '/\u{10FFFF}';

/**
 * One level of a space's tree under `prefix` (`GET /spaces/:slug/pages?depth=1`): the pages whose
 * path after the prefix has no `/`, and the folders (the first segment after the prefix of deeper
 * paths) that hold at least one readable page. A page may be a folder as well (`guide` and
 * `guide/setup`); it is then in both lists. Entries come in path order, `limit` of them in all;
 * `last` is where the next call resumes. Each step seeks past a whole folder, so a level costs one
 * index seek per entry however many pages lie below it.
 */
export function listPageLevel(svc: Services, caller: Caller, slug: string, q: { prefix: string; after: string; limit: number }) {
  const space = resolveSpace(svc, caller, slug);
  const prefix = normalizePagePath(q.prefix);
  const end = prefix + '\u{10FFFF}';
  const pages: PageListItem[] = [];
  const folders: Array<{ path: string }> = [];
  let after = q.after;
  for (let n = 0; ; n++) {
    const row = store.nextReadablePage(svc.db, caller, space.id, prefix, end, after);
    if (!row) return { pages, folders, last: null };
    if (n === q.limit) return { pages, folders, last: after };
    const slash = row.path.indexOf('/', prefix.length);
    if (slash < 0) {
      pages.push(presentListItem(row));
      after = row.path;
    } else {
      const folder = row.path.slice(0, slash);
      folders.push({ path: folder });
      after = folder + FOLDER_END;
    }
  }
}
