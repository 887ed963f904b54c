// Link extraction for the link index: which pages does a page's Markdown point at?
// Pure functions; the caller stores the result in the same transaction as the page write.
import type MarkdownIt from 'markdown-it';
import { domainToUnicode } from 'node:url';
import { isRelativeFileHref } from './files.ts';
import { getLinkParsers as getParsers } from './parsers.ts';

export { normalizeLinkFast } from './parsers.ts';

import type { PageRef } from '../../model.ts';
import { RESERVED_LAST_SEGMENTS, normalizePagePath } from '../paths.ts';
import { NOTHING, isFileTarget, parseWikilink, resolveWikilink, wikilinkEnd, type Wikilink } from './wikilinks.ts';
import { decodeSegment, resolveSegments } from './segments.ts';

// markdown-it, not mdast-util-from-markdown: many times faster on the same pages
// (docs/performance.md), and link extraction runs on every write. CommonMark + GFM tables/strikethrough; raw HTML is not parsed.
// Bare URLs (GFM literal autolinks) can only be page links when they name a base URL's host, so
// linkify runs only when the text mentions one.
//
// Only what decides where links are runs (the block structure, code spans, escapes, autolinks,
// links and images), and inline parsing only of the blocks that can hold a link: on the core
// benchmark's pages that is under half the allocations of the full pipeline. Emphasis,
// strikethrough, entities and hard breaks never make or unmake a link (link labels are matched
// before emphasis is resolved, and an entity cannot spell `[`), so they are off.
//
// What markdown-it's 'normalize' rule does, needed only when the text has CR or NUL.
const NEEDS_NORMALIZE = /[\r\0]/;

const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;
const SPACE_SLUG = /^(~[^/]{1,64}|[a-z0-9][a-z0-9-]{0,62})$/;
const CONTROL = /\p{Cc}/u;
const MAX_PATH_CHARS = 512;

/** Where a wikilink's target points (wikilinks.ts resolveWikilink over some lookup), or null. */
export type WikiResolver = (target: string, from: PageRef) => PageRef | null;

const defaultWiki: WikiResolver = (target, from) => resolveWikilink(target, from, NOTHING);

/**
 * The distinct pages `content` links to, in order of first appearance (self links included).
 * Wikilinks resolve through `wiki` (by default as if no page existed: their default address).
 */
export function extractLinks(content: string, from: PageRef, baseUrls: string[] = [], wiki: WikiResolver = defaultWiki): PageRef[] {
  return distinctTargets(linkOccurrences(content, from, baseUrls), from, wiki);
}

/**
 * The occurrences' targets, each once, in order; wikilinks resolved through `wiki`, once per
 * target as written (a page repeating one wikilink costs one resolution).
 */
export function distinctTargets(occurrences: Array<PageRef | Wikilink>, from: PageRef, wiki: WikiResolver = defaultWiki): PageRef[] {
  const seen = new Set<string>();
  const resolved = new Map<string, PageRef | null>();
  const out: PageRef[] = [];
  for (const o of occurrences) {
    let target: PageRef | null;
    if ('target' in o) {
      target = resolved.get(o.target) ?? null;
      if (!resolved.has(o.target)) resolved.set(o.target, (target = wiki(o.target, from)));
    } else target = o;
    if (!target) continue;
    // `/` cannot occur in a slug, so this key is unambiguous.
    const key = `${target.space}/${target.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(target);
  }
  return out;
}

/**
 * What one page's link extraction may take (docs/security.md "Links on writes"). markdown-it's
 * work on a text grows with the characters that may open a link, so those are counted, besides
 * the links themselves.
 */
export type LinkBudget = {
  /** Distinct link targets as written: a markdown link's page, a wikilink's target text. */
  links: number;
  /**
   * `[` and `<` in text outside code (a wikilink has two); where bare URLs are read, in all the
   * text, and each `://` as BARE_URL_MARKS (linkify costs ~10× a bracket).
   */
  marks: number;
};

/**
 * A page's links in document order, up to its budget: `over` says which bound stopped the scan
 * (the occurrences are then those before it), null when the whole text was read.
 */
export type LinkScan = { occurrences: Array<PageRef | Wikilink>; over: 'links' | 'marks' | null };

const UNBOUNDED: LinkBudget = { links: Infinity, marks: Infinity };

/**
 * Every link of `content` in document order: a markdown link's page (internal links only), a
 * wikilink as written (its resolution needs to know what exists).
 */
export function linkOccurrences(content: string, from: PageRef, baseUrls: string[] = []): Array<PageRef | Wikilink> {
  return scanLinks(content, from, baseUrls).occurrences;
}

/** Text with none of these holds no link of any form (the cheap test before any scan). */
export function mayHoldLinks(content: string, baseUrls: string[] = []): boolean {
  // every link form needs `](` (inline), `]:` (definition), `<` (autolink), `[[` or a bare base URL
  return (
    content.includes('](') ||
    content.includes(']:') ||
    content.includes('<') ||
    content.includes('[[') ||
    mayContainBareBaseUrl(content, baseUrls)
  );
}

/**
 * linkOccurrences within `budget`: the text is read up to the mark past its budget (a block cut
 * there), and the links up to the first target past its budget. Linear in the text, and
 * markdown-it's share bounded by the marks.
 */
export function scanLinks(content: string, from: PageRef, baseUrls: string[] = [], budget: LinkBudget = UNBOUNDED): LinkScan {
  const bareUrls = mayContainBareBaseUrl(content, baseUrls);
  if (!bareUrls && !mayHoldLinks(content)) return { occurrences: [], over: null };
  const found = new Found(budget.links);
  if (!bareUrls && onlyWikilinks(content)) {
    const cut = markCut(content, budget.marks, false);
    for (const w of wikilinksIn(content, cut.at)) if (!found.add(w)) break;
    return found.scan(cut.at < content.length ? 'marks' : null);
  }
  let over: LinkScan['over'] = null;
  let tokens: ReturnType<MarkdownIt['parse']>;
  if (bareUrls) {
    const cut = markCut(content, budget.marks, true);
    if (cut.at < content.length) over = 'marks';
    tokens = getParsers().linkify.parse(over ? content.slice(0, cut.at) : content, {});
  } else {
    const parsed = parseBlocks(content, budget.marks);
    tokens = parsed.tokens;
    if (parsed.cut) over = 'marks';
  }
  const hrefs = new Map<string, PageRef | null>();
  // Inline links, autolinks and reference-style links (resolved to their definition) all come out
  // as link_open tokens in document order; code spans and blocks never do; images are not links.
  for (const block of tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    for (const t of block.children) {
      let o: PageRef | Wikilink | null = null;
      if (t.type === 'wikilink' || t.type === 'wikiembed') {
        const w = t.meta as Wikilink;
        if (!isFileTarget(w.target)) o = w; // a file is no page link
      } else if (t.type === 'link_open') {
        const href = t.attrGet('href') ?? '';
        o = hrefs.get(href) ?? null;
        if (!hrefs.has(href)) hrefs.set(href, (o = resolveLinkTarget(href, from, baseUrls)));
      }
      if (o && !found.add(o)) return found.scan('links');
    }
  }
  return found.scan(over);
}

/** Occurrences in order, up to `max` distinct targets as written. */
class Found {
  private readonly keys = new Set<string>();
  private readonly list: Array<PageRef | Wikilink> = [];
  private full = false;
  private readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  /** False when `o` is one target past the budget (not added). */
  add(o: PageRef | Wikilink): boolean {
    const key = 'target' in o ? `\0${o.target}` : `${o.space}/${o.path}`;
    if (!this.keys.has(key)) {
      if (this.keys.size >= this.max) {
        this.full = true;
        return false;
      }
      this.keys.add(key);
    }
    this.list.push(o);
    return true;
  }

  scan(over: LinkScan['over']): LinkScan {
    return { occurrences: this.list, over: this.full ? 'links' : over };
  }
}

/** What a bare URL's `://` counts against LinkBudget.marks. */
const BARE_URL_MARKS = 10;

/**
 * Where the text's marks run past `max`: `at` is the index of the first mark over the budget
 * (the text's length when they do not), `used` what the text before it counts. `bare`: a `://`
 * counts BARE_URL_MARKS (bare URLs are read).
 */
function markCut(text: string, max: number, bare: boolean): { at: number; used: number } {
  let used = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const w =
      c === 0x5b || c === 0x3c
        ? 1
        : bare && c === 0x3a && text.charCodeAt(i + 1) === 0x2f && text.charCodeAt(i + 2) === 0x2f
          ? BARE_URL_MARKS
          : 0;
    if (w === 0) continue;
    if (used + w > max) return { at: i, used };
    used += w;
  }
  return { at: text.length, used };
}

// Text whose only link syntax is `[[…]]`, where markdown-it would find every `[[…]]` as a
// wikilink: nothing that makes code (backticks, `~~~` fences, lines indented 4 or a tab),
// escapes, `<`, other link forms (`](`, `]:`) or a table delimiter row (a cell boundary may cut
// `[[a|b]]`). Most notes of a vault are like that; scanning them is ~20× cheaper than parsing.
const INDENTED = /(?:^|\n)(?: {4}|\t)/;
const TABLE_ROW = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*\||\|[ \t]*:?-+:?[ \t]*$/m;

/** The wikilinks of `content` in order when a scan finds exactly those markdown-it would, else null. */
export function scanWikilinksOnly(content: string): Wikilink[] | null {
  return onlyWikilinks(content) ? wikilinksIn(content, content.length) : null;
}

function onlyWikilinks(content: string): boolean {
  // includes() first: one multiline regex of all of these took a third of an import's extraction.
  return !(
    content.includes('`') ||
    content.includes('\\') ||
    content.includes('<') ||
    content.includes('~~~') ||
    content.includes('](') ||
    content.includes(']:') ||
    INDENTED.test(content) ||
    (content.includes('|') && TABLE_ROW.test(content))
  );
}

/** The wikilinks that start before `end`, in order (the text holds no other link syntax). */
function wikilinksIn(content: string, end: number): Wikilink[] {
  const out: Wikilink[] = [];
  let i = content.indexOf('[[');
  while (i >= 0 && i < end) {
    const close = wikilinkEnd(content, i);
    const link = close < 0 ? null : parseWikilink(content.slice(i + 2, close));
    // an embed `![[…]]` of a page counts as a link (wikilinkPlugin), but not `![[#]]`-like nothing
    const embed = i > 0 && content.charCodeAt(i - 1) === 0x21;
    if (link && !(embed && link.target === '' && !link.heading)) {
      if (!isFileTarget(link.target)) out.push(link);
      i = content.indexOf('[[', close + 2);
    } else {
      i = content.indexOf('[[', i + 1);
    }
  }
  return out;
}

/**
 * Block tokens of `content`, with the inline tokens of every block that may hold a link, up to
 * `marks` marks: the block where they run out is read up to its mark past the budget (`cut`), the
 * blocks after it not at all.
 */
function parseBlocks(content: string, marks: number): { tokens: ReturnType<MarkdownIt['parse']>; cut: boolean } {
  const src = NEEDS_NORMALIZE.test(content) ? content.replace(/\r\n?/g, '\n').replace(/\0/g, '\uFFFD') : content;
  const env = {}; // holds the reference definitions the block parser found, for the inline parser
  const parser = getParsers().plain;
  const tokens = parser.parse(src, env);
  let left = marks;
  for (const t of tokens) {
    // A link needs `[` (inline, reference) or `<` (autolink); other blocks keep no children.
    if (t.type !== 'inline' || !(t.content.includes('[') || t.content.includes('<'))) continue;
    const cut = markCut(t.content, left, false);
    t.children = [];
    parser.inline.parse(cut.at < t.content.length ? t.content.slice(0, cut.at) : t.content, parser, env, t.children);
    if (cut.at < t.content.length) return { tokens, cut: true };
    left -= cut.used;
  }
  return { tokens, cut: false };
}

/**
 * The page an href points at, or null when it is not an internal page link.
 * Relative hrefs resolve against `from`'s folder, in `from`'s space.
 */
export function resolveLinkTarget(href: string, from: PageRef, baseUrls: string[] = []): PageRef | null {
  if (SCHEME.test(href)) {
    const rest = stripBaseUrl(href, baseUrls);
    return rest === null ? null : resolveInSpace(rest);
  }
  // `#anchor`/`?q` leave an empty (folder) path, `//host` is no `/pages/` path: neither resolves.
  const bare = cutQueryAndFragment(href);
  if (bare.startsWith('/')) {
    if (bare.startsWith('/pages/')) return resolveInSpace(bare.slice('/pages/'.length));
    // Root-relative form of a base URL mounted under a path prefix: `/kspace/pages/...`.
    for (const base of baseUrls) {
      const prefix = parseBaseUrl(base)?.prefix;
      if (prefix && bare.startsWith(prefix)) return resolveInSpace(bare.slice(prefix.length));
    }
    return null;
  }
  if (isRelativeFileHref(href)) return null; // an attached file of this page (links/files.ts)
  const folder = from.path.split('/');
  folder.pop();
  const segments = resolveSegments(folder, bare.split('/'));
  return segments ? toPageRef(from.space, segments) : null;
}

function escapeRegExp(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|\/-]/g, '\\$&');
}

function mayContainBareBaseUrl(content: string, baseUrls: string[]): boolean {
  if (baseUrls.length === 0 || !content.includes('/pages/')) return false;
  for (const base of baseUrls) if (parseBaseUrl(base)?.hostPattern.test(content)) return true;
  return false;
}

function cutQueryAndFragment(href: string): string {
  const q = href.indexOf('?');
  const h = href.indexOf('#');
  const end = q < 0 ? h : h < 0 ? q : Math.min(q, h);
  return end < 0 ? href : href.slice(0, end);
}

type BaseUrl = { protocol: string; host: string; prefix: string; hostPattern: RegExp };
// Base URLs come from configuration, so a handful of entries; parse each once.
const baseUrlCache = new Map<string, BaseUrl | null>();

function parseBaseUrl(base: string): BaseUrl | null {
  let parsed = baseUrlCache.get(base);
  if (parsed === undefined) {
    const u = URL.parse(base);
    parsed =
      u && (u.protocol === 'http:' || u.protocol === 'https:')
        ? {
            protocol: u.protocol,
            host: u.host,
            prefix: `${u.pathname.replace(/\/+$/, '')}/pages/`,
            // Text may spell an internationalised host in Unicode or in punycode.
            hostPattern: new RegExp([u.hostname, domainToUnicode(u.hostname)].map(escapeRegExp).join('|'), 'i'),
          }
        : null;
    baseUrlCache.set(base, parsed);
  }
  return parsed;
}

// The part after `<base>/pages/`, still percent-encoded, or null when href is not under a base.
function stripBaseUrl(href: string, baseUrls: string[]): string | null {
  if (baseUrls.length === 0 || !href.includes('/pages/')) return null;
  // URL compares scheme and host as a browser would (case, default port) ...
  const u = URL.parse(href);
  if (!u) return null;
  // ... but the path is taken as written, so `..` is judged by the same rules as `/pages/...`.
  const rest = cutQueryAndFragment(href.slice(u.protocol.length));
  if (!rest.startsWith('//')) return null;
  const slash = rest.indexOf('/', 2);
  if (slash < 0) return null;
  const path = rest.slice(slash);
  for (const base of baseUrls) {
    const b = parseBaseUrl(base);
    if (b && u.protocol === b.protocol && u.host === b.host && path.startsWith(b.prefix)) {
      return path.slice(b.prefix.length);
    }
  }
  return null;
}

// `rest` is `<space>/<path>` as it follows `/pages/`.
function resolveInSpace(rest: string): PageRef | null {
  const raw = rest.split('/');
  const space = decodeSegment(raw[0]);
  if (space === null || !SPACE_SLUG.test(space) || raw.length < 2) return null;
  const segments = resolveSegments([], raw.slice(1));
  return segments ? toPageRef(space, segments) : null;
}

function toPageRef(space: string, segments: string[]): PageRef | null {
  // Page paths are stored in NFC, so a link written in another form reaches the same page.
  let path = normalizePagePath(segments.join('/'));
  if (path.endsWith('.md')) path = path.slice(0, -3);
  return isValidPagePath(path) ? { space, path } : null;
}

// The page-path rules of the contract, applied to the resolved (decoded) path.
function isValidPagePath(path: string): boolean {
  if (path.length === 0 || CONTROL.test(path)) return false;
  // "Characters" are code points; only count them when UTF-16 length could exceed the limit.
  if (path.length > MAX_PATH_CHARS && [...path].length > MAX_PATH_CHARS) return false;
  const segments = path.split('/');
  for (const seg of segments) {
    if (seg === '' || seg === '.' || seg === '..') return false;
  }
  return !RESERVED_LAST_SEGMENTS.has(segments[segments.length - 1]);
}
