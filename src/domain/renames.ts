// A page's new title carries its wikilinks with it (docs/api.md, "Renaming a page"): every
// `[[Old title]]` (with `#heading` and `|label`) that resolved to the page is rewritten to the new
// title, in the pages the writer may change, in the write's transaction; one `page.updated`
// event per page rewritten (writeRevision records it). Pages the writer may read but not change
// are listed as not rewritten; pages the writer cannot read are neither changed nor mentioned.
import type { Services } from '../services.ts';
import { canReadPage, canWritePage } from './access.ts';
import { outsideFences, WIKILINK } from './links/rewrite.ts';
import { indexLookup } from './links/wiki-index.ts';
import { foldCase, parseWikilink, resolveWikilink, wikiTargetFor } from './links/wikilinks.ts';
import { normalizePagePath } from './paths.ts';
import type { Caller, PageRef } from '../model.ts';
import { findPageById, linkSourcesOf } from '../store/moves.ts';
import { findPage, readAcl, type PageRow } from '../store/pages.ts';
import { findSpaceById, findSpaceBySlug, type SpaceRow } from '../store/spaces.ts';

/** Which wikilink targets, per linking page, meant the page under its old title. */
export type RenamePlan = { pageId: number; ref: PageRef; sources: Map<number, Set<string>> };
export type RenameResult = { rewritten: PageRef[]; notRewritten: PageRef[] };

/** The wikilink targets written in `content` (outside fenced code). */
function wikiTargets(content: string): Set<string> {
  const out = new Set<string>();
  outsideFences(content, (text) => {
    for (const m of text.matchAll(WIKILINK)) {
      const link = parseWikilink(m[1]);
      if (link && link.target !== '') out.add(link.target);
    }
    return text;
  });
  return out;
}

/**
 * Before the title changes: the pages linking to `ref` whose wikilinks spell the old title and
 * resolve (by the index's own rules, for the readers of the linking page) to it.
 */
export function planRename(svc: Services, pageId: number, ref: PageRef, oldTitle: string): RenamePlan {
  const db = svc.db;
  const sources = new Map<number, Set<string>>();
  const wanted = foldCase(normalizePagePath(oldTitle));
  const seen = new Set<number>();
  for (const s of linkSourcesOf(db, [ref])) {
    if (s.id === pageId || seen.has(s.id)) continue;
    seen.add(s.id);
    const row = findPageById(db, s.id);
    const space = row && findSpaceById(db, row.space_id);
    if (!row || !space || row.deleted_at !== null) continue;
    const from = { space: space.slug, path: row.path };
    const lookup = indexLookup(db, row.id);
    const targets = new Set<string>();
    for (const t of wikiTargets(row.content)) {
      if (foldCase(normalizePagePath(t)) !== wanted) continue;
      const to = resolveWikilink(t, from, lookup);
      if (to && to.space === ref.space && to.path === ref.path) targets.add(t);
    }
    if (targets.size) sources.set(row.id, targets);
  }
  return { pageId, ref, sources };
}

/** One linking page's new text; its writer (putPage) writes it as a revision. */
type RenameRewrite = { space: SpaceRow; row: PageRow; content: string };

/**
 * After the title changed (same transaction): the planned wikilinks rewritten to `newTitle`, as the
 * new content of each linking page the caller may write, and the readable ones it may not.
 */
export function renameRewrites(
  svc: Services,
  caller: Caller,
  plan: RenamePlan,
  newTitle: string,
): { writes: RenameRewrite[]; notRewritten: PageRef[] } {
  const db = svc.db;
  const writes: RenameRewrite[] = [];
  const notRewritten: PageRef[] = [];
  for (const [id, targets] of plan.sources) {
    const row = findPageById(db, id);
    const space = row && findSpaceById(db, row.space_id);
    if (!row || !space || row.deleted_at !== null) continue;
    const acl = row.has_acl ? readAcl(db, row.id) : [];
    if (!canReadPage(caller, space, row, acl)) continue;
    const ref = { space: space.slug, path: row.path };
    if (!canWritePage(caller, space, row, acl)) {
      notRewritten.push(ref);
      continue;
    }
    const to = newTarget(svc, row.id, ref, plan.ref, newTitle);
    const content = outsideFences(row.content, (text) =>
      text.replace(WIKILINK, (m: string, inner: string) => {
        const link = parseWikilink(inner);
        if (!link || !targets.has(link.target)) return m;
        const bar = inner.includes('\\|') ? '\\|' : '|';
        const label = link.label ?? (to.byTitle ? null : newTitle);
        return `[[${to.target}${link.heading ? `#${link.heading}` : ''}${label ? `${bar}${label}` : ''}]]`;
      }),
    );
    if (content !== row.content) writes.push({ space, row, content });
  }
  return { writes, notRewritten: notRewritten.sort(byAddress) };
}

/** Pages in address order (space, then path). */
export const byAddress = (a: PageRef, b: PageRef) => (a.space + '/' + a.path < b.space + '/' + b.path ? -1 : 1);

/**
 * How a linking page spells the renamed page now: the new title when it is a plain wikilink
 * target that resolves to the page; otherwise (another page shares the title, or the title holds
 * `#`, `|`, brackets) its path, labelled with the title.
 */
function newTarget(svc: Services, sourceId: number, from: PageRef, page: PageRef, title: string): { target: string; byTitle: boolean } {
  const link = parseWikilink(title);
  if (link && link.target === title.trim() && link.heading === null && link.label === null) {
    const to = resolveWikilink(link.target, from, indexLookup(svc.db, sourceId));
    if (to && to.space === page.space && to.path === page.path) return { target: link.target, byTitle: true };
  }
  const target = wikiTargetFor(page, from, (r) => {
    const s = findSpaceBySlug(svc.db, r.space);
    const p = s && findPage(svc.db, s.id, r.path);
    return !!p && p.deleted_at === null;
  });
  return { target, byTitle: false };
}
