// The link index's side of wikilinks (docs/search.md "Wikilinks"). A wikilink resolves by what
// exists, so the index resolves it when the linking page is written, against the pages that
// every reader of that page may read (a link never points readers at a page some of them could
// not see, and which page it picks tells nobody about a page they cannot read), and files it
// under keys (wikilink_keys) so that the pages whose wikilinks could now mean something else are
// indexed again when a page appears, leaves, changes title or access, or moves. Runs inside the
// write's transaction, like the rest of indexing.
import type { Db } from '../../store/db/types.ts';
import { readersWithin } from '../access.ts';
import {
  insertLinks,
  linkRowsOf,
  replaceLinks,
  replaceWikiKeys,
  retargetLink,
  setWikiTarget,
  wikiKeysOf,
  wikiSourcesUnder,
  type WikiKeyRow,
} from '../../store/links.ts';
import { findPageById, findRedirect } from '../../store/moves.ts';
import {
  findPage,
  livePagesAtOrTitled,
  livePagesTitled,
  pageAccessById,
  readAcl,
  spaceHasRedirects,
  titledRowById,
  titledRowsOfSpace,
  type TitledRow,
} from '../../store/pages.ts';
import { findSpaceById, findSpaceBySlug, type SpaceRow } from '../../store/spaces.ts';
import type { AclEntry, PageAccessRow, PageRef } from '../../model.ts';
import type { ImportPlan, IndexBatch, KnownPages } from '../indexes/types.ts';
import { tooManyLinks } from './budget.ts';
import { distinctTargets, scanLinks, type LinkScan } from './extract.ts';
import {
  aliasList,
  foldCase,
  resolveWikilink,
  titleMatches,
  wikiKeys,
  wikiKeysOfPage,
  type TitleMatch,
  type WikiLookup,
} from './wikilinks.ts';
import { foldedWords } from '../../store/title-words-schema.ts';

/**
 * A page whose links are indexed. `written`: this write set its content, so links past the
 * batch's budget refuse the write (400 naming `content`); otherwise (stored content indexed
 * again) the links before the budget are indexed. `links`: the content's scan, made already.
 */
type LinkSource = { id: number; spaceSlug: string; path: string; content: string; written?: boolean; links?: LinkScan };

/** Which wikilinks to resolve again: those filed under these `space key`s, or all. */
type Again = Set<string> | 'all';

/**
 * Indexes a page's links (markdown links and resolved wikilinks) and files its wikilinks.
 * `again`: the same content indexed again because what some of its wikilinks could mean
 * changed: only those are resolved (the others keep the target filed with them), and links
 * and keys are written only when they changed.
 */
export function storeLinks(b: IndexBatch, page: LinkSource, fresh = false, again?: Again): void {
  const db = b.db;
  const from = { space: page.spaceSlug, path: page.path };
  const prev = again ? wikiKeysOf(db, page.id) : null;
  const rows = new Map<string, WikiKeyRow>();
  const scan = page.links ?? scanLinks(page.content, from, b.baseUrls, b.linkBudget);
  if (scan.over && page.written) throw tooManyLinks(scan.over, b.linkBudget);
  const occurrences = scan.occurrences;
  let lookup: WikiLookup | null = null;
  const links = distinctTargets(occurrences, from, (target, at) => {
    const keys = wikiKeys(target, at);
    const own = keys.length ? `${keys[0].space} ${keys[0].key}` : null;
    let ref: PageRef | null;
    const kept = own !== null && again !== 'all' && !again?.has(own) ? prev?.get(own) : undefined;
    if (kept !== undefined && kept !== null) ref = kept === '' ? null : refOf(kept);
    else ref = resolveWikilink(target, at, (lookup ??= indexLookup(db, page.id, b.importing)));
    const to = ref ? `${ref.space}/${ref.path}` : '';
    for (const k of keys) {
      const id = `${k.space} ${k.key}`;
      const row = rows.get(id);
      if (!row) rows.set(id, { ...k, target: to });
      else if (row.target !== to) row.target = null; // two spellings of one key that mean two pages
    }
    return ref;
  });
  if (prev) {
    updateLinks(db, page.id, links);
    // The same content files the same keys: only their targets may differ.
    if (rows.size !== prev.size || [...rows.keys()].some((id) => !prev.has(id))) replaceWikiKeys(db, page.id, [...rows.values()]);
    else for (const [id, r] of rows) if (prev.get(id) !== r.target) setWikiTarget(db, page.id, r);
    return;
  }
  if (fresh) insertLinks(db, page.id, links);
  else replaceLinks(db, page.id, links);
  replaceWikiKeys(db, page.id, [...rows.values()], fresh);
}

/** Writes a page's links where they differ from `links` (usually one link now resolved). */
function updateLinks(db: Db, sourceId: number, links: PageRef[]): void {
  const now = linkRowsOf(db, sourceId);
  const key = (r: PageRef) => `${r.space}/${r.path}`;
  if (now.length === links.length) {
    const had = new Set(now.map(key));
    const changed = links.map((l, i) => (key(l) === key(now[i]) ? -1 : i)).filter((i) => i >= 0);
    if (changed.length === 0) return;
    // Each changed position to a target the page did not link to: moved in place (ord kept).
    if (changed.every((i) => !had.has(key(links[i])))) {
      for (const i of changed) retargetLink(db, sourceId, now[i], links[i]);
      return;
    }
  }
  replaceLinks(db, sourceId, links);
}

function refOf(key: string): PageRef {
  const slash = key.indexOf('/');
  return { space: key.slice(0, slash), path: key.slice(slash + 1) };
}

/**
 * A lookup from the point of view of every reader of page `sourceId`: a page counts when all of
 * them may read it (readersWithin), a space when all of them can see it; with an import in
 * progress, the pages it writes later count as there.
 */
export function indexLookup(db: Db, sourceId: number, importing: ImportPlan | null = null): WikiLookup {
  const src = pageAccessById(db, sourceId); // not its content (findPageById reads all of it)
  const srcSpace = src && findSpaceById(db, src.space_id);
  if (!src || !srcSpace) return { page: () => false, titled: () => [], space: () => false };
  const srcAcl = src.has_acl ? readAcl(db, src.id) : [];
  const spaces = new Map<string, SpaceRow | null>();
  const spaceOf = (slug: string): SpaceRow | null => {
    if (!spaces.has(slug)) {
      const s = slug === srcSpace.slug ? srcSpace : (findSpaceBySlug(db, slug) ?? null);
      spaces.set(slug, s && !s.deleted_at && s.org_id === srcSpace.org_id ? s : null);
    }
    return spaces.get(slug)!;
  };
  const counts = (space: SpaceRow, row: PageAccessRow | undefined): boolean =>
    row !== undefined && row.deleted_at === null && readersWithin(srcSpace, src, srcAcl, space, row, aclOf(db, row));
  const redirects = new Map<number, boolean>();
  const hasRedirects = (spaceId: number) => {
    if (!redirects.has(spaceId)) redirects.set(spaceId, spaceHasRedirects(db, spaceId));
    return redirects.get(spaceId)!;
  };
  const viaRedirect = (space: SpaceRow, path: string): boolean => {
    if (!hasRedirects(space.id)) return false;
    // The old address of a moved page still reaches it (it redirects): the link keeps it.
    const moved = findRedirect(db, space.id, path);
    if (moved === undefined) return false;
    const to = findPageById(db, moved);
    const toSpace = to && findSpaceById(db, to.space_id);
    return !!to && !!toSpace && !toSpace.deleted_at && counts(toSpace, to);
  };
  return {
    local(slug, paths, title) {
      const space = spaceOf(slug);
      if (!space) return { paths: new Set(), titled: [] };
      const fold = foldCase(title);
      const exp = importing && importing.space === slug ? importing : null;
      const view = exp ? knownPages(db, exp, space.id) : null;
      const rows = view
        ? knownAtOrTitled(view, paths, fold)
        : livePagesAtOrTitled(db, space.id, paths, title, foldedWords(title).join(' '));
      const found = new Set<string>();
      const titled: TitleMatch[] = [];
      if (exp) {
        // A page the import writes later has no ACL of its own (unless it is there already).
        const absent = (path: string): boolean =>
          view ? !view.byPath.has(path) : !rows.some((r) => r.path === path) && findPage(db, space.id, path) === undefined;
        const future = (path: string): boolean =>
          absent(path) && readersWithin(srcSpace, src, srcAcl, space, { id: 0, has_acl: 0, deleted_at: null }, []);
        for (const p of paths) if (exp.paths.has(p) && future(p)) found.add(p);
        for (const p of exp.titles.get(fold) ?? []) {
          // not written yet: newer than every page there
          if (future(p.path)) titled.push({ space: slug, path: p.path, exact: p.title === title, order: Number.MAX_SAFE_INTEGER });
        }
      }
      const seen = new Set<number>();
      const counted: TitledRow[] = [];
      for (const r of rows) {
        if (seen.has(r.id)) continue;
        seen.add(r.id);
        if (!counts(space, r)) continue;
        if (paths.includes(r.path)) found.add(r.path);
        counted.push(r);
      }
      titled.push(...titleMatches(slug, title, counted));
      for (const p of paths) if (!found.has(p) && !rows.some((r) => r.path === p) && viaRedirect(space, p)) found.add(p);
      return { paths: found, titled };
    },
    page(ref) {
      const space = spaceOf(ref.space);
      if (!space) return false;
      const row = findPage(db, space.id, ref.path);
      if (row && row.deleted_at === null) return counts(space, row);
      return viaRedirect(space, ref.path);
    },
    titled(slug, title) {
      const space = spaceOf(slug);
      if (!space) return [];
      return titleMatches(
        slug,
        title,
        livePagesTitled(db, space.id, title, foldedWords(title).join(' ')).filter((r) => counts(space, r)),
      );
    },
    space(slug) {
      const s = spaceOf(slug);
      return s !== null && s.id !== srcSpace.id && seenByAllReaders(srcSpace, s);
    },
  };
}

/** Whether every reader of a page of `src` can see space `dst` (same org, both live). */
function seenByAllReaders(src: SpaceRow, dst: SpaceRow): boolean {
  if (dst.owner_id !== null) return dst.owner_id === src.owner_id;
  return dst.default_access !== 'none';
}

/** The keys a page is found by in the import's view: its folded title and aliases. */
const namesOf = (r: TitledRow): string[] => [...new Set([r.title, ...aliasList(r.aliases)].map(foldCase))];

function aclOf(db: Db, row: PageAccessRow): AclEntry[] {
  return row.has_acl ? readAcl(db, row.id) : [];
}

// Pages an import is about to write (the rest of its bundle, IndexBatch.importing): a wikilink to
// one of them resolves to it at once, as if it were there, instead of to its default address and
// again when it comes (4 of 10 wikilinks of a vault point ahead of the import order). Only the
// batch of an import chunk carries it, so no other write sees it.
//
// While it is set, the pages of the import's space are also looked up in memory (`known`: every
// row of the space, live or deleted, read once) instead of with a query per wikilink (a third of
// the time wikilinks added to an import). The view follows the import's own writes (pageWritten,
// from the written hook) and is read again when anything else may have changed the space: when
// another write ran between two chunks (every page write goes through the group commit, which
// counts them), or when a page write of the chunk was refused (its savepoint rolled back what the
// view had already seen).

/** The pages of an import, for an import chunk's batch. */
export function expectPages(space: string, pages: Array<{ path: string; title: string }>): ImportPlan {
  const titles: ImportPlan['titles'] = new Map();
  for (const p of pages) {
    const t = foldCase(p.title);
    const list = titles.get(t);
    if (list) list.push({ path: p.path, title: p.title });
    else titles.set(t, [{ path: p.path, title: p.title }]);
  }
  return { space, paths: new Set(pages.map((p) => p.path)), titles };
}

// A space of more pages than this is looked up with queries: the view costs ~200 bytes a page
// for as long as the import runs. An object, so that tests can exercise both ways.
export const importView = { maxPages: 100_000 };

/** The view of the import's space; null (queries instead) for a space of more than importView.maxPages pages. */
function knownPages(db: Db, exp: ImportPlan, spaceId: number): KnownPages | null {
  if (exp.known === 'too many') return null;
  if (exp.known && exp.known.spaceId === spaceId) return exp.known;
  const rows = titledRowsOfSpace(db, spaceId, importView.maxPages + 1);
  if (rows.length > importView.maxPages) {
    exp.known = 'too many';
    return null;
  }
  const known: KnownPages = { spaceId, byPath: new Map(), byTitle: new Map(), write: -1 };
  for (const r of rows) addKnown(known, r);
  return (exp.known = known);
}

function addKnown(known: KnownPages, r: TitledRow): void {
  known.byPath.set(r.path, r);
  if (r.deleted_at !== null) return;
  for (const t of namesOf(r)) {
    const list = known.byTitle.get(t);
    if (list) list.push(r);
    else known.byTitle.set(t, [r]);
  }
}

function dropKnown(known: KnownPages, path: string): void {
  const r = known.byPath.get(path);
  if (!r) return;
  known.byPath.delete(path);
  for (const t of namesOf(r)) {
    const list = known.byTitle.get(t)?.filter((x) => x !== r);
    if (list?.length) known.byTitle.set(t, list);
    else known.byTitle.delete(t);
  }
}

/** What livePagesAtOrTitled answers, from the view. */
function knownAtOrTitled(known: KnownPages, paths: string[], foldedTitle: string): TitledRow[] {
  const out: TitledRow[] = [];
  for (const p of paths) {
    const r = known.byPath.get(p);
    if (r && r.deleted_at === null) out.push(r);
  }
  const titled = known.byTitle.get(foldedTitle);
  if (titled) out.push(...titled.slice(0, 32));
  return out;
}

/** A page of the space was written (the written hook): the view of an import in progress follows it. */
export function pageWritten(b: IndexBatch, spaceSlug: string, id: number, path: string): void {
  const known = b.importing?.space === spaceSlug ? b.importing.known : undefined;
  if (!known || known === 'too many') return;
  const row = titledRowById(b.db, id);
  dropKnown(known, path);
  if (row) addKnown(known, row);
}

/**
 * Runs an import chunk, the group commit's write number `write`, whose batch carries `pages`:
 * `fn` returns false when one of its page writes was refused (the view is read again next time).
 */
export function withImportChunk(pages: ImportPlan, write: number, fn: () => boolean): void {
  if (pages.known && pages.known !== 'too many' && pages.known.write !== write - 1) pages.known = undefined;
  const intact = fn();
  if (pages.known === 'too many') return;
  if (!intact) pages.known = undefined;
  else if (pages.known) pages.known.write = write;
}

// Re-resolution in a batch that collects (an import chunk, a move) is gathered and done once at
// its end: a page linking to 500 pages that the same import creates after it is indexed again
// once, not 500 times.
type Pending = Map<number, Again>;
const PENDING = 'links.pending';

function pendingOf(b: IndexBatch): Pending | null {
  if (!b.collects) return null;
  return b.state(PENDING, () => {
    const mine: Pending = new Map();
    b.atEnd(() => {
      b.forget(PENDING);
      for (const [id, again] of mine) reindexSource(b, id, again);
    });
    return mine;
  });
}

/**
 * Indexes again the pages (but `except`) whose wikilinks are filed in `space` under the keys of
 * the page at `path` titled `titles` (path null: a change of title only), because it appeared
 * (`appeared`: created, restored, moved there), left, or changed title or access. Call it once
 * the change is written.
 */
export function reresolveAround(
  b: IndexBatch,
  space: string,
  path: string | null,
  titles: string[],
  except?: number,
  appeared = false,
): void {
  const keys = path === null ? [...new Set(titles.map(foldCase))] : wikiKeysOfPage(path, titles);
  const found = new Map<number, Set<string>>();
  const here = `${space}/${path}`;
  for (const { id, key, target } of wikiSourcesUnder(b.db, space, keys)) {
    if (id === except) continue;
    // A page appearing where a wikilink already points (its default address, or foreseen by an
    // import) changes nothing for it: a page it found before would have come first.
    if (appeared && target === here) continue;
    found.set(id, (found.get(id) ?? new Set()).add(`${space} ${key}`));
  }
  if (found.size === 0) return;
  const pending = pendingOf(b);
  for (const [id, again] of found) {
    if (!pending) {
      reindexSource(b, id, again);
      continue;
    }
    const was = pending.get(id);
    if (!was) pending.set(id, again);
    else if (was !== 'all') for (const k of again) was.add(k);
  }
}

/** Re-indexes the links of the live page `id` (a no-op for a page that is not live). */
export function reindexSource(b: IndexBatch, id: number, again: Again = 'all'): void {
  const row = findPageById(b.db, id);
  const space = row && row.deleted_at === null ? findSpaceById(b.db, row.space_id) : undefined;
  if (!row || !space) return;
  storeLinks(b, { id, spaceSlug: space.slug, path: row.path, content: row.content }, false, again);
}
