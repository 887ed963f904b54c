import type { Services } from '../services.ts';
import { canReadPage, canSeeSpace } from './access.ts';
import { resolveWikilink, type WikiLookup } from './links/wikilinks.ts';
import { livePagesTitled, readAcl } from '../store/pages.ts';
import { findSpaceBySlug, hasAclGrantInSpace } from '../store/spaces.ts';
import { invalidField } from './errors.ts';
import { createHash } from 'node:crypto';
import { cached } from '../bounded-cache.ts';
import { refKey, renderMarkdown } from './links/render.ts';
import { resolveSpace } from './spaces.ts';
import { readableTargets } from '../store/links.ts';
import type { Caller, PageRef } from '../model.ts';

// The web app's HTML of a page (view and preview): links to pages the caller cannot read are
// marked broken, exactly like pages that do not exist, so the HTML reveals nothing.

/** Content up to this size has its HTML kept (RENDER_CACHE entries of at most 2 link variants). */
const CACHED_CONTENT_CHARS = 32 * 1024;
const RENDER_CACHE_ENTRIES = 128;

// Pages are read far more often than written, and the page view asks for the HTML of the same
// version again and again: the Markdown is parsed once per version (key: a hash of the page's
// address and content), and the HTML kept per "which link targets this reader may read"
// (a bit per internal link), which is all a reader changes in it. About 12 ms → 0.1 ms for a
// 20 KB page. At most RENDER_CACHE_ENTRIES × 2 × ~50 KB of HTML is held.
type Rendered = { targets: PageRef[]; html: Map<string, string> };
const renderCache = new Map<string, Rendered>();

export function renderForCaller(svc: Services, caller: Caller, from: PageRef, content: string): string {
  const baseUrls = [svc.config.baseUrl];
  const readable = (targets: PageRef[]): Set<string> => (targets.length ? readableTargets(svc.db, caller, targets) : new Set());
  // Wikilinks resolve by what exists and what this reader may read, which the key does not
  // hold: a page with any is rendered each time.
  if (content.length > CACHED_CONTENT_CHARS || content.includes('[[')) {
    let lookup: WikiLookup | null = null;
    const wiki = (target: string, at: PageRef) => resolveWikilink(target, at, (lookup ??= callerLookup(svc, caller)));
    return renderMarkdown({ content, from, baseUrls, existing: readable, wiki });
  }
  const key = createHash('sha1').update(`${baseUrls[0]}\0${from.space}\0${from.path}\0`).update(content).digest('base64');
  const hit = renderCache.get(key);
  if (hit) {
    const exists = readable(hit.targets);
    const variant = variantOf(hit.targets, exists);
    let html = hit.html.get(variant);
    if (html === undefined) {
      html = renderMarkdown({ content, from, baseUrls, existing: () => exists });
      if (hit.html.size >= 2) hit.html.delete(hit.html.keys().next().value!);
      hit.html.set(variant, html);
    }
    return html;
  }
  let targets: PageRef[] = [];
  let exists = new Set<string>();
  const html = renderMarkdown({ content, from, baseUrls, existing: (t) => { targets = t; exists = readable(t); return exists; } });
  cached(renderCache, key, RENDER_CACHE_ENTRIES, () => ({ targets, html: new Map([[variantOf(targets, exists), html]]) }));
  return html;
}

/** One character per internal link: whether the reader may read its target. */
function variantOf(targets: PageRef[], exists: Set<string>): string {
  let v = '';
  for (const t of targets) v += exists.has(refKey(t)) ? '1' : '0';
  return v;
}

/**
 * Wikilinks as the reader finds them: only pages and spaces the reader may read count, so the
 * HTML never points at a page the reader cannot read, nor picks one because of it.
 */
function callerLookup(svc: Services, caller: Caller): WikiLookup {
  const db = svc.db;
  return {
    page: (ref) => readableTargets(db, caller, [ref]).size > 0,
    titled(slug, title) {
      const space = findSpaceBySlug(db, slug);
      if (!space || space.deleted_at) return [];
      return livePagesTitled(db, space.id, title, 16)
        .filter((p) => canReadPage(caller, space, p, p.has_acl ? readAcl(db, p.id) : []))
        .map((p) => ({ space: slug, path: p.path }));
    },
    space(slug) {
      const space = findSpaceBySlug(db, slug);
      return !!space && !space.deleted_at && canSeeSpace(caller, space, () => hasAclGrantInSpace(db, space.id, caller.id));
    },
  };
}

/** POST /render: Markdown that is not (yet) a page, as if it were the page at `path` of `space`. */
export function renderPreview(svc: Services, caller: Caller, input: { space: string; path: string; content: string }): string {
  resolveSpace(svc, caller, input.space); // 404 unless the caller may see the space
  if (input.content.length > svc.config.limits.pageBytes) throw invalidField('content', 'max', `at most ${svc.config.limits.pageBytes} bytes`);
  return renderForCaller(svc, caller, { space: input.space, path: input.path }, input.content);
}
