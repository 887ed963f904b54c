import type { Services } from '../services.ts';
import { notifyEventsWritten } from '../services.ts';
import { canCreateIn, canReadPage, canTakePersonal, canWritePage, readersWithin } from './access.ts';
import { AppError, invalid, notFound } from './errors.ts';
import { readersBefore, recordChange } from './changes.ts';
import { recordPageEvent } from './events.ts';
import { openBatch, pageMoved } from './indexes/list.ts';
import { hrefOf, rewriteLinks, type WikiRewrite } from './links/rewrite.ts';
import { wikiPathCandidates, wikiTargetFor } from './links/wikilinks.ts';
import { writeRevision } from './pages.ts';
import { checkPagePath, normalizePagePath } from './paths.ts';
import { resolveSpace } from './spaces.ts';
import type { Caller, Issue, PageRef } from '../model.ts';
import { tx } from '../store/db/transactions.ts';
import type { Db } from '../store/db/types.ts';
import { linkTargetsOf } from '../store/links.ts';
import * as moves from '../store/moves.ts';
import { findPage, readAcl, type PageRow } from '../store/pages.ts';
import { findSpaceById, findSpaceBySlug, type SpaceRow } from '../store/spaces.ts';

type MoveInput = { from: string; to: string; toSpace?: string; prefix?: boolean };
type MoveResult = { moved: Array<{ from: string; to: string }>; rewritten: PageRef[]; notRewritten: PageRef[] };

/**
 * POST /spaces/:slug/moves (docs/api.md, Moving and renaming). The page rows keep their ids, so history,
 * metadata and ACL go with them; the old addresses redirect. One transaction.
 */
export function movePages(svc: Services, caller: Caller, slug: string, input: MoveInput): MoveResult {
  const issues: Issue[] = [];
  for (const key of ['from', 'to'] as const) {
    const issue = checkPagePath(input[key], key, key === 'from');
    if (issue) issues.push(issue);
  }
  if (issues.length) throw invalid(issues);
  const from = normalizePagePath(input.from);
  const to = normalizePagePath(input.to);
  const result = tx(svc.db, () => {
    const db = svc.db;
    const space = resolveSpace(svc, caller, slug);
    const target = input.toSpace !== undefined ? resolveSpace(svc, caller, input.toSpace) : space;
    if (target.id === space.id && (to === from || (input.prefix && to.startsWith(from + '/')))) {
      throw invalid([{ key: 'to', code: 'format', message: 'a page cannot move onto itself or under itself' }]);
    }
    if (!canCreateIn(caller, target)) throw new AppError('forbidden', `you may not create pages in '${target.slug}'`);
    // Pages the caller may not read are absent: left where they are, never mentioned.
    const rows = moves
      .pagesAtOrUnder(db, space.id, from, input.prefix === true)
      .filter((p) => p.deleted_at === null)
      .map((p) => ({ p, acl: p.has_acl ? readAcl(db, p.id) : [] }))
      .filter(({ p, acl }) => canReadPage(caller, space, p, acl));
    if (rows.length === 0) throw notFound(input.prefix ? `pages under '${slug}/${from}'` : `page '${slug}/${from}'`);
    // Into a personal space from a shared one, the page vanishes for every other reader: that
    // takes the right to delete it for all of them (docs/security.md "Moves").
    const takePersonal = space.owner_id === null && target.owner_id !== null;
    for (const { p, acl } of rows) {
      if (!canWritePage(caller, space, p, acl)) throw new AppError('forbidden', `you may read '${slug}/${p.path}' but not change it`);
      if (takePersonal && !canTakePersonal(caller, p, acl, () => moves.wroteBesides(db, p.id, caller.id))) {
        throw new AppError(
          'forbidden',
          `moving '${slug}/${p.path}' into a personal space hides it from its other readers: org admins, or the page's only writer, may do that`,
        );
      }
    }
    const plan = rows.map(({ p }) => ({ row: p, to: input.prefix ? to + p.path.slice(from.length) : to }));
    for (const { to: dest } of plan) {
      const issue = checkPagePath(dest, 'to');
      if (issue) throw invalid([issue]);
      const there = moves.pagesAtOrUnder(db, target.id, dest, false)[0];
      if (there && !plan.some((m) => m.row.id === there.id)) {
        throw new AppError(
          'conflict',
          there.deleted_at === null
            ? `a page exists at '${target.slug}/${dest}'`
            : `a deleted page at '${target.slug}/${dest}' is in the trash: restore it elsewhere first`,
        );
      }
    }
    const now = svc.now();
    // Re-resolution of wikilinks around the moved pages is collected and done once, at the end.
    const batch = openBatch(svc, { collects: true });
    // Who read each page where it was (the change feed: docs/changes.md).
    const before = new Map(plan.map((m) => [m.row.id, readersBefore(db, m.row.id, m.row.path)]));
    // Two passes, so a prefix moving onto its own pages' paths never collides half-way.
    for (const m of plan) {
      // Into another space: the history so far stays with the readers it had where it was.
      if (target.id !== space.id) moves.sealMovedHistory(db, m.row.id);
      moves.setPageAddress(db, m.row.id, space.id, `\u0000moving/${m.row.id}`);
    }
    const movedMap = new Map<string, PageRef>();
    for (const m of plan) {
      const moved = {
        id: m.row.id,
        title: m.row.title,
        content: m.row.content,
        frontmatter: JSON.parse(m.row.frontmatter) as Record<string, unknown>,
        from: { space: space.slug, path: m.row.path },
        to: { space: target.slug, path: m.to },
      };
      pageMoved(batch, moved, () => {
        moves.setPageAddress(db, m.row.id, target.id, m.to);
        moves.dropRedirect(db, target.id, m.to);
        moves.putRedirect(db, space.id, m.row.path, m.row.id, now);
      });
      movedMap.set(`${space.slug}/${m.row.path}`, { space: target.slug, path: m.to });
      recordPageEvent(
        db,
        'page.moved',
        caller,
        target,
        { path: m.to, title: m.row.title, version: m.row.version },
        now,
        undefined,
        { space: space.slug, path: m.row.path },
        space,
      );
      recordChange(db, caller, {
        event: 'page.moved',
        pageId: m.row.id,
        path: m.to,
        version: m.row.version,
        at: now,
        before: before.get(m.row.id),
      });
    }
    const movedRows = new Map(plan.map((m) => [`${space.slug}/${m.row.path}`, m.row]));
    const { rewritten, notRewritten } = rewriteSources(svc, caller, movedMap, movedRows, target);
    // What the indexes left for the end (wikilinks that could mean a page at its old or new
    // address resolve again): after the rewrite, so that the rewrite sees what they meant.
    batch.finish();
    return { moved: plan.map((m) => ({ from: m.row.path, to: m.to })), rewritten, notRewritten };
  });
  notifyEventsWritten(svc);
  return result;
}

/**
 * Rewrites the links to moved addresses in the pages the mover may write, when that tells no
 * reader of the source anything it could not read: the rewritten link names the new address,
 * so a source is rewritten only if everyone who can read it can read the moved page. The rest
 * are left (their links follow the redirect) and reported when the mover can read them.
 */
function rewriteSources(
  svc: Services,
  caller: Caller,
  movedMap: Map<string, PageRef>,
  movedRows: Map<string, PageRow>,
  target: SpaceRow,
): { rewritten: PageRef[]; notRewritten: PageRef[] } {
  const db = svc.db;
  const targets = [...movedMap.keys()].map((k) => {
    const slash = k.indexOf('/');
    return { space: k.slice(0, slash), path: k.slice(slash + 1) };
  });
  const sources = new Map<number, Set<string>>();
  for (const s of moves.linkSourcesOf(db, targets)) {
    const set = sources.get(s.id) ?? new Set();
    set.add(`${s.target_space}/${s.target_path}`);
    sources.set(s.id, set);
  }
  const rewritten: PageRef[] = [];
  const notRewritten: PageRef[] = [];
  const spaces = new Map<number, SpaceRow | undefined>();
  const spaceOf = (id: number) => {
    if (!spaces.has(id)) spaces.set(id, findSpaceById(db, id));
    return spaces.get(id);
  };
  for (const [id, pointsAt] of sources) {
    const row = moves.findPageById(db, id);
    const space = row && spaceOf(row.space_id);
    if (!row || !space || row.deleted_at !== null || space.deleted_at) continue;
    const acl = row.has_acl ? readAcl(db, row.id) : [];
    if (!canReadPage(caller, space, row, acl)) continue;
    const ref = { space: space.slug, path: row.path };
    const seeAll = [...pointsAt].every((k) => {
      const moved = movedRows.get(k);
      return moved !== undefined && readersWithin(space, row, acl, target, moved, moved.has_acl ? readAcl(db, moved.id) : []);
    });
    if (!canWritePage(caller, space, row, acl) || !seeAll) {
      notRewritten.push(ref);
      continue;
    }
    const content = rewriteLinks(row.content, ref, movedMap, [svc.config.baseUrl], wikiRewrite(db, row.id, movedMap));
    if (content === row.content) continue; // the index saw a link the text no longer spells the same way
    writeRevision(svc, caller, space, row.path, row, {
      title: row.title,
      content,
      frontmatter: row.frontmatter,
      metadata: row.metadata,
      template: row.template,
    });
    rewritten.push(ref);
  }
  const order = (a: PageRef, b: PageRef) => (a.space + '/' + a.path < b.space + '/' + b.path ? -1 : 1);
  return { rewritten: rewritten.sort(order), notRewritten: notRewritten.sort(order) };
}

/**
 * A wikilink of page `sourceId` meant the first of its path candidates that the index holds for
 * the page (title matches do not change with a move); when that one moved, the new spelling.
 */
function wikiRewrite(db: Db, sourceId: number, movedMap: Map<string, PageRef>): WikiRewrite {
  let indexed: Set<string> | null = null;
  return (target, from) => {
    indexed ??= linkTargetsOf(db, sourceId);
    for (const c of wikiPathCandidates(target, from)) {
      const key = `${c.space}/${c.path}`;
      if (!indexed.has(key)) continue;
      const to = movedMap.get(key);
      if (!to) return null;
      return wikiTargetFor(to, from, (ref) => {
        const space = findSpaceBySlug(db, ref.space);
        const row = space && findPage(db, space.id, ref.path);
        return !!row && row.deleted_at === null;
      });
    }
    return null;
  };
}

/**
 * Where a GET of a moved-away address goes: the page's current address (`/pages/…`, followed by
 * the rest of `segments` past the old path), or null when no redirect applies or the caller may
 * not read the page, now or as it would stand at the old address (then the 404 stands: an
 * unreadable page is absent, moved or not, and the old address tells nobody where it went who
 * could not read it there).
 */
export function redirectFor(svc: Services, caller: Caller, slug: string, segments: string[]): string | null {
  let space: SpaceRow;
  try {
    space = resolveSpace(svc, caller, slug);
  } catch {
    return null;
  }
  for (let k = segments.length; k >= 1; k--) {
    const old = normalizePagePath(segments.slice(0, k).join('/'));
    const pageId = moves.findRedirect(svc.db, space.id, old);
    if (pageId === undefined) continue;
    const row = moves.findPageById(svc.db, pageId);
    const at = row && findSpaceById(svc.db, row.space_id);
    if (!row || !at || at.deleted_at) return null;
    const acl = row.has_acl ? readAcl(svc.db, row.id) : [];
    if (!canReadPage(caller, at, row, acl) || !canReadPage(caller, space, row, acl)) return null;
    const rest = segments.slice(k).map(encodeURIComponent);
    return [hrefOf({ space: at.slug, path: row.path }), ...rest].join('/');
  }
  return null;
}
