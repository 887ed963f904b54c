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

// markdown-it, not mdast-util-from-markdown: on the same 2 KB pages with three links it takes
// ~0.02 ms a page against ~0.5–0.8 ms for micromark/mdast (measured in one run), and link
// extraction runs on every write. CommonMark + GFM tables/strikethrough; raw HTML is not parsed.
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

/** The occurrences' targets, each once, in order; wikilinks resolved through `wiki`. */
export function distinctTargets(occurrences: Array<PageRef | Wikilink>, from: PageRef, wiki: WikiResolver = defaultWiki): PageRef[] {
  const seen = new Set<string>();
  const out: PageRef[] = [];
  for (const o of occurrences) {
    const target = 'target' in o ? wiki(o.target, from) : o;
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
 * Every link of `content` in document order: a markdown link's page (internal links only), a
 * wikilink as written (its resolution needs to know what exists).
 */
export function linkOccurrences(content: string, from: PageRef, baseUrls: string[] = []): Array<PageRef | Wikilink> {
  const bareUrls = mayContainBareBaseUrl(content, baseUrls);
  if (!bareUrls && !content.includes('](') && !content.includes(']:') && !content.includes('<') && !content.includes('[[')) {
    return []; // every other link form needs `](` (inline), `]:` (definition), `<` (autolink) or `[[`
  }
  const plain = bareUrls ? null : scanWikilinksOnly(content);
  if (plain) return plain;
  const tokens = bareUrls ? getParsers().linkify.parse(content, {}) : parseBlocks(content);
  const out: Array<PageRef | Wikilink> = [];
  // Inline links, autolinks and reference-style links (resolved to their definition) all come out
  // as link_open tokens in document order; code spans and blocks never do; images are not links.
  for (const block of tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    for (const t of block.children) {
      if (t.type === 'wikilink' || t.type === 'wikiembed') {
        if (!isFileTarget((t.meta as Wikilink).target)) out.push(t.meta as Wikilink); // a file is no page link
      }
      else if (t.type === 'link_open') {
        const target = resolveLinkTarget(t.attrGet('href') ?? '', from, baseUrls);
        if (target) out.push(target);
      }
    }
  }
  return out;
}

// Text whose only link syntax is `[[…]]`, where markdown-it would find every `[[…]]` as a
// wikilink: nothing that makes code (backticks, `~~~` fences, lines indented 4 or a tab),
// escapes, `<`, other link forms (`](`, `]:`) or a table delimiter row (a cell boundary may cut
// `[[a|b]]`). Most notes of a vault are like that; scanning them is ~20× cheaper than parsing.
const INDENTED = /(?:^|\n)(?: {4}|\t)/;
const TABLE_ROW = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*\||\|[ \t]*:?-+:?[ \t]*$/m;

/** The wikilinks of `content` in order when a scan finds exactly those markdown-it would, else null. */
export function scanWikilinksOnly(content: string): Wikilink[] | null {
  // includes() first: one multiline regex of all of these took a third of an import's extraction.
  if (content.includes('`') || content.includes('\\') || content.includes('<') || content.includes('~~~')
    || content.includes('](') || content.includes(']:') || INDENTED.test(content)
    || (content.includes('|') && TABLE_ROW.test(content))) return null;
  const out: Wikilink[] = [];
  let i = content.indexOf('[[');
  while (i >= 0) {
    const end = wikilinkEnd(content, i);
    const link = end < 0 ? null : parseWikilink(content.slice(i + 2, end));
    // an embed `![[…]]` of a page counts as a link (wikilinkPlugin), but not `![[#]]`-like nothing
    const embed = i > 0 && content.charCodeAt(i - 1) === 0x21;
    if (link && !(embed && link.target === '' && !link.heading)) {
      if (!isFileTarget(link.target)) out.push(link);
      i = content.indexOf('[[', end + 2);
    } else {
      i = content.indexOf('[[', i + 1);
    }
  }
  return out;
}

/** Block tokens of `content`, with the inline tokens of every block that may hold a link. */
function parseBlocks(content: string): ReturnType<MarkdownIt['parse']> {
  const src = NEEDS_NORMALIZE.test(content) ? content.replace(/\r\n?/g, '\n').replace(/\0/g, '\uFFFD') : content;
  const env = {}; // holds the reference definitions the block parser found, for the inline parser
  const parser = getParsers().plain;
  const tokens = parser.parse(src, env);
  for (const t of tokens) {
    // A link needs `[` (inline, reference) or `<` (autolink); other blocks keep no children.
    if (t.type === 'inline' && (t.content.includes('[') || t.content.includes('<'))) {
      t.children = [];
      parser.inline.parse(t.content, parser, env, t.children);
    }
  }
  return tokens;
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
            hostPattern: new RegExp(
              [u.hostname, domainToUnicode(u.hostname)].map(escapeRegExp).join('|'),
              'i',
            ),
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
