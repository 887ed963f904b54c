import type { Services } from '../services.ts';
import { canReadPage, canSeeSpace } from './access.ts';
import { NOTHING, resolveWikilink, titleMatches, wikiPathCandidates, type WikiLookup } from './links/wikilinks.ts';
import { foldedWords } from '../store/title-words-schema.ts';
import { livePagesTitled, readAcl } from '../store/pages.ts';
import { findSpaceBySlug, hasAclGrantInSpace } from '../store/spaces.ts';
import { invalidField } from './errors.ts';
import { hash } from 'node:crypto';
import { cached } from '../bounded-cache.ts';
import {
  appPageHref,
  finishRender,
  headingFragment,
  linkTargets,
  refKey,
  renderParts,
  unrenderedParts,
  type RenderParts,
} from './links/render.ts';
import { embedFrame, embeddedParts, embedNotShown } from './links/embeds.ts';
import { offload, warmOffload } from './offload.ts';
import { resolveSpace } from './spaces.ts';
import { readableContents, readableTargets } from '../store/links.ts';
import type { Caller, PageRef } from '../model.ts';

// The web app's HTML of a page (view and preview): links to pages the caller cannot read are
// marked broken, exactly like pages that do not exist, so the HTML reveals nothing. Bounded
// (docs/security.md "Rendering"): no request holds the event loop for long, whatever the Markdown.

/** Content up to this size has its parts kept (RENDER_CACHE entries). */
const CACHED_CONTENT_CHARS = 32 * 1024;
const RENDER_CACHE_ENTRIES = 128;
/** Content up to this size is rendered on the event loop (tens of milliseconds at worst); larger content on the worker. */
const INLINE_RENDER_CHARS = 64 * 1024;
/** How long the worker may take to render (and again to finish) large content; then it shows as written. */
const RENDER_DEADLINE_MS = 600;
const FINISH_DEADLINE_MS = 300;
/** Distinct wikilinks of one page resolved by what exists; any further ones take their default address. */
const MAX_RESOLVED_WIKILINKS = 1000;
/** Lookups (wikilink resolutions, readable-target batches) between two turns of the event loop. */
const LOOKUPS_PER_TURN = 100;
const TARGETS_PER_QUERY = 2000;
/** Embeds inside embeds: at most this deep (docs/markdown.md "Embeds"). */
const MAX_EMBED_DEPTH = 3;
/** Pages embedded in one render, at every depth together, and the Markdown they may show together. */
const MAX_EMBEDS = 50;
const MAX_EMBED_CHARS = 256 * 1024;
/** Embedded pages read in one query. */
const EMBED_READS_PER_QUERY = 16;
/** The most of one page an embed shows; a larger part is a link. */
const MAX_EMBED_PART_CHARS = INLINE_RENDER_CHARS;

/**
 * What is left of one render's embed budget, shared by its embeds at every depth, and the pages
 * it has split into sections (embeddedParts: each parsed once however often it is embedded).
 */
type EmbedBudget = {
  left: number;
  chars: number;
  parts: Map<string, { content: string; part: (heading: string | null) => string | null }>;
};

// Pages are read far more often than written, and the page view asks for the HTML of the same
// version again and again: the Markdown is parsed once per version (key: a hash of the page's
// address and content) into HTML with a marker for each internal link, which each reader's
// links (where wikilinks point for them, which targets they may read) then fill in.
const renderCache = new Map<string, RenderParts>();

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The HTML of `content` for `caller`. Large content is parsed on the worker (offload.ts), with a
 * deadline past which it shows as written; its links are looked up in steps that yield.
 */
export function renderForCaller(svc: Services, caller: Caller, from: PageRef, content: string): Promise<string> {
  const budget: EmbedBudget = { left: MAX_EMBEDS, chars: MAX_EMBED_CHARS, parts: new Map() };
  return renderEmbedding(svc, caller, from, content, budget, [`${refKey(from)}#`]);
}

/**
 * renderForCaller with the embed budget left and what is shown around this content (`chain`:
 * `refKey#heading` of each embed above it, `refKey#` for a whole page).
 */
async function renderEmbedding(
  svc: Services,
  caller: Caller,
  from: PageRef,
  content: string,
  budget: EmbedBudget,
  chain: string[],
): Promise<string> {
  const baseUrls = [svc.config.baseUrl];
  warmOffload(); // the next large render finds the worker started
  const large = content.length > INLINE_RENDER_CHARS;
  const parts = large
    ? ((await offload({ kind: 'render', content, from, baseUrls }, RENDER_DEADLINE_MS)) ?? unrenderedParts(content))
    : cachedParts(content, from, baseUrls);
  if (parts.links.length === 0) return parts.html;
  const { targets, exists } = await linksFor(svc, caller, from, parts);
  const embeds = await embedsFor(svc, caller, parts, targets, exists, budget, chain);
  if (!large) return finishRender(parts, targets, exists, embeds);
  const done = await offload({ kind: 'finish', parts, targets, exists: [...exists], embeds }, FINISH_DEADLINE_MS);
  return done ? done.html : unrenderedParts(content).html;
}

function cachedParts(content: string, from: PageRef, baseUrls: string[]): RenderParts {
  if (content.length > CACHED_CONTENT_CHARS) return renderParts(content, from, baseUrls);
  // One-shot hash: cheaper than a Hash object for a short text.
  const key = hash('sha1', `${baseUrls[0]}\0${from.space}\0${from.path}\0${content}`, 'base64');
  return cached(renderCache, key, RENDER_CACHE_ENTRIES, () => renderParts(content, from, baseUrls));
}

/**
 * linkTargets for this reader, and which of them the reader may read (refKey). Wikilinks resolve
 * by what the reader may read (the first MAX_RESOLVED_WIKILINKS distinct ones; the rest by their
 * default address). Every address a wikilink may resolve to by path (its folder, the root,
 * another space: wikiPathCandidates) and every other link's target are looked up together first
 * (readableInSteps), so resolving asks the database only for titles; a turn of the event loop
 * after every LOOKUPS_PER_TURN wikilinks.
 */
async function linksFor(
  svc: Services,
  caller: Caller,
  from: PageRef,
  parts: RenderParts,
): Promise<{ targets: Array<PageRef | null>; exists: Set<string> }> {
  const candidates: PageRef[] = [];
  const planned = new Set<string>();
  for (const l of parts.links) {
    if ('target' in l) candidates.push(l.target);
    else if (!planned.has(l.wiki.target) && planned.size < MAX_RESOLVED_WIKILINKS) {
      planned.add(l.wiki.target);
      candidates.push(...wikiPathCandidates(l.wiki.target, from));
    }
  }
  const asked = new Set(candidates.map(refKey));
  const readable = await readableInSteps(svc, caller, candidates);
  const direct = callerLookup(svc, caller);
  const lookup: WikiLookup = { ...direct, page: (ref) => (asked.has(refKey(ref)) ? readable.has(refKey(ref)) : direct.page(ref)) };
  const resolved = new Map<string, PageRef | null>();
  for (const l of parts.links) {
    if (!('wiki' in l) || resolved.has(l.wiki.target)) continue;
    if (resolved.size >= MAX_RESOLVED_WIKILINKS) break;
    resolved.set(l.wiki.target, resolveWikilink(l.wiki.target, from, lookup));
    if (resolved.size % LOOKUPS_PER_TURN === 0) await nextTurn();
  }
  const targets = linkTargets(parts, from, (target, at) => {
    const r = resolved.get(target);
    return r !== undefined ? r : resolveWikilink(target, at, NOTHING);
  });
  // A target found by title, or a wikilink's past MAX_RESOLVED_WIKILINKS, was not among the
  // addresses looked up: looked up now.
  const exists = new Set<string>();
  const others: PageRef[] = [];
  for (const t of targets) {
    if (!t) continue;
    const k = refKey(t);
    if (!asked.has(k)) others.push(t);
    else if (readable.has(k)) exists.add(k);
  }
  for (const k of await readableInSteps(svc, caller, others)) exists.add(k);
  return { targets, exists };
}

/**
 * The HTML of each page embed of `parts` (by its link's index) for this reader: the part of the
 * page it names, rendered for the reader with its own embeds. An embed of a page the reader may
 * not read is left out, so finishRender shows it exactly like one of a page that does not exist.
 * A page already embedding this one (a cycle), embeds past MAX_EMBED_DEPTH or past the budget,
 * and parts too large show as a link saying so.
 */
async function embedsFor(
  svc: Services,
  caller: Caller,
  parts: RenderParts,
  targets: Array<PageRef | null>,
  exists: Set<string>,
  budget: EmbedBudget,
  chain: string[],
): Promise<Record<number, string>> {
  const out: Record<number, string> = {};
  const contents = embedContents(svc, caller, parts, targets, exists);
  for (let i = 0; i < parts.links.length; i++) {
    const link = parts.links[i];
    const target = targets[i];
    if (!('embed' in link) || !link.embed || !target || !exists.has(refKey(target))) continue;
    const content = contents(target);
    if (content === null) continue; // gone for this reader since: shown as unavailable
    const ref = target;
    const href = appPageHref(ref) + headingFragment(link.wiki.heading);
    const notShown = (why: string) => (out[i] = embedNotShown(link.label, href, why));
    // A page may embed a section of itself; a whole page inside itself, or the same section
    // inside that section, is a cycle.
    const shown = `${refKey(ref)}#${link.wiki.heading ?? ''}`;
    const cycle = link.wiki.heading ? chain.includes(shown) : chain.some((c) => c.startsWith(`${refKey(ref)}#`));
    if (cycle) notShown('it embeds this page');
    else if (chain.length > MAX_EMBED_DEPTH || budget.left <= 0) notShown('too many embeds to show here');
    else {
      let split = budget.parts.get(refKey(ref));
      if (split?.content !== content) budget.parts.set(refKey(ref), (split = { content, part: embeddedParts(content) }));
      const part = split.part(link.wiki.heading);
      if (part === null) notShown('no such section');
      else if (part.length > MAX_EMBED_PART_CHARS || part.length > budget.chars) notShown('too large to show here');
      else {
        budget.left--;
        budget.chars -= part.length;
        out[i] = embedFrame(link.label, href, await renderEmbedding(svc, caller, ref, part, budget, [...chain, shown]));
      }
    }
  }
  return out;
}

/**
 * The content of the pages `parts` embeds, for a reader who may read them (`exists`), each read
 * once: the first time one is asked for, it and up to EMBED_READS_PER_QUERY - 1 of the embeds after
 * it are read in one query (readableContents; one larger than MAX_EMBED_PART_CHARS on its own, when
 * asked for). Null for a page the reader may no longer read.
 */
function embedContents(
  svc: Services,
  caller: Caller,
  parts: RenderParts,
  targets: Array<PageRef | null>,
  exists: Set<string>,
): (target: PageRef) => string | null {
  const embedded: PageRef[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < parts.links.length; i++) {
    const link = parts.links[i];
    const t = targets[i];
    if (!('embed' in link) || !link.embed || !t || seen.has(refKey(t)) || !exists.has(refKey(t))) continue;
    seen.add(refKey(t));
    embedded.push(t);
  }
  const found = new Map<string, string | null>();
  const tried = new Set<string>();
  let next = 0;
  return (target) => {
    const key = refKey(target);
    if (!tried.has(key)) {
      while (next < embedded.length && refKey(embedded[next]) !== key) next++;
      const batch = next < embedded.length ? embedded.slice(next, next + EMBED_READS_PER_QUERY) : [target];
      next += batch.length;
      for (const [k, c] of readableContents(svc.db, caller, batch, MAX_EMBED_PART_CHARS)) found.set(k, c);
      for (const t of batch) tried.add(refKey(t));
    }
    if (!found.has(key)) return null;
    let c = found.get(key) ?? null;
    if (c === null) {
      // Over what a batch holds: read on its own once, then kept for its other sections.
      c = readableContents(svc.db, caller, [target], Number.MAX_SAFE_INTEGER).get(key) ?? null;
      if (c !== null) found.set(key, c);
    }
    return c;
  };
}

/** The keys (refKey) of the targets the reader may read, looked up in batches, a turn of the event loop between them. */
async function readableInSteps(svc: Services, caller: Caller, targets: Array<PageRef | null>): Promise<Set<string>> {
  const distinct = new Map<string, PageRef>();
  for (const t of targets) if (t) distinct.set(refKey(t), t);
  const all = [...distinct.values()];
  const exists = new Set<string>();
  for (let i = 0; i < all.length; i += TARGETS_PER_QUERY) {
    if (i > 0) await nextTurn();
    for (const k of readableTargets(svc.db, caller, all.slice(i, i + TARGETS_PER_QUERY))) exists.add(k);
  }
  return exists;
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
      const rows = livePagesTitled(db, space.id, title, foldedWords(title).join(' ')).filter((p) =>
        canReadPage(caller, space, p, p.has_acl ? readAcl(db, p.id) : []),
      );
      return titleMatches(slug, title, rows);
    },
    space(slug) {
      const space = findSpaceBySlug(db, slug);
      return !!space && !space.deleted_at && canSeeSpace(caller, space, () => hasAclGrantInSpace(db, space.id, caller.id));
    },
  };
}

/** POST /render: Markdown that is not (yet) a page, as if it were the page at `path` of `space`. */
export function renderPreview(svc: Services, caller: Caller, input: { space: string; path: string; content: string }): Promise<string> {
  resolveSpace(svc, caller, input.space); // 404 unless the caller may see the space
  if (input.content.length > svc.config.limits.pageBytes)
    throw invalidField('content', 'max', `at most ${svc.config.limits.pageBytes} bytes`);
  return renderForCaller(svc, caller, { space: input.space, path: input.path }, input.content);
}
