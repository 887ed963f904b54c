// Wikilinks: `[[path]]`, `[[path|label]]`, `[[path#heading]]`, `[[space/path]]` (docs/search.md
// "Wikilinks"). Pure: parsing (a markdown-it inline rule, so code spans and blocks never hold
// one), the resolution rules over a lookup the caller provides (the database on the server, the
// folder's files in `kspace import-dir`), and the keys the link index files a wikilink under so
// that a page appearing later (or changing title) re-resolves the links that could mean it.
import type MarkdownIt from 'markdown-it';
import type { PageRef } from '../../model.ts';
import { RESERVED_LAST_SEGMENTS, isSpaceSlug, normalizePagePath } from '../paths.ts';
import { resolveSegments } from './segments.ts';

export type Wikilink = {
  /** The target as written (trimmed), without `#heading` and `|label`; '' for `[[#heading]]`. */
  target: string;
  heading: string | null;
  label: string | null;
};

type StateInline = Parameters<Parameters<MarkdownIt['inline']['ruler']['push']>[1]>[0];

const MAX_INNER = 1024;
const CONTROL = /\p{Cc}/u;

/**
 * The text between `[[` and `]]` as a wikilink, or null when it is none. `\|` is a `|` (the form
 * a wikilink takes inside a table cell).
 */
export function parseWikilink(inner: string): Wikilink | null {
  if (inner.length === 0 || inner.length > MAX_INNER || inner.includes('[') || inner.includes(']') || CONTROL.test(inner)) return null;
  const text = inner.replace(/\\\|/g, '|');
  const bar = text.indexOf('|');
  const head = bar < 0 ? text : text.slice(0, bar);
  const label = bar < 0 ? null : text.slice(bar + 1).trim() || null;
  const hash = head.indexOf('#');
  const target = (hash < 0 ? head : head.slice(0, hash)).trim();
  const heading = hash < 0 ? null : head.slice(hash + 1).trim() || null;
  if (target === '' && heading === null) return null;
  return { target, heading, label };
}

/**
 * Where the `]]` of the `[[` at `open` is, or -1. A wikilink holds no `[` or `]` and at most
 * MAX_INNER characters, so the scan stops at the first bracket or after MAX_INNER characters:
 * the scans from all the `[[` of a text together read it about once (an unbounded search for
 * `]]` from each `[[` read it once per `[[`).
 */
export function wikilinkEnd(src: string, open: number, max = src.length): number {
  const limit = Math.min(max - 2, open + 2 + MAX_INNER);
  for (let i = open + 2; i <= limit; i++) {
    const c = src.charCodeAt(i);
    if (c === 0x5d) return src.charCodeAt(i + 1) === 0x5d ? i : -1;
    if (c === 0x5b) return -1;
  }
  return -1;
}

// Files Obsidian embeds or links by name (images, audio, video, PDF): `[[x.png]]` and `![[x.png]]`
// name a file, not a page (docs/markdown.md "Files").
const IMAGE_EXT = ['png', 'jpg', 'jpeg', 'gif', 'webp', 'svg', 'avif', 'bmp'];
const AUDIO_EXT = ['mp3', 'ogg', 'wav', 'm4a', 'flac', 'oga', 'opus'];
const VIDEO_EXT = ['mp4', 'webm', 'mov', 'ogv', 'm4v'];
const MEDIA_KIND = new Map<string, 'image' | 'audio' | 'video' | 'pdf'>([
  ...IMAGE_EXT.map((e) => [e, 'image'] as const),
  ...AUDIO_EXT.map((e) => [e, 'audio'] as const),
  ...VIDEO_EXT.map((e) => [e, 'video'] as const),
  ['pdf', 'pdf'],
]);

/** What kind of file a name or path names by its extension (case-insensitive), or null for none of them. */
export function mediaKind(name: string): 'image' | 'audio' | 'video' | 'pdf' | null {
  const dot = name.lastIndexOf('.');
  if (dot < 0 || dot < name.lastIndexOf('/')) return null;
  return MEDIA_KIND.get(name.slice(dot + 1).toLowerCase()) ?? null;
}

/** Whether a wikilink's target names a file (mediaKind), which is no page link. */
export const isFileTarget = (target: string): boolean => mediaKind(target) !== null;

/**
 * The markdown-it inline rule: a `wikilink` token (meta: Wikilink) for `[[…]]`, a `wikiembed`
 * token for `![[…]]` (an Obsidian embed).
 */
export function wikilinkPlugin(md: MarkdownIt): void {
  md.inline.ruler.before('link', 'wikilink', (state: StateInline, silent: boolean) => {
    const src = state.src;
    let pos = state.pos;
    const embed = src.charCodeAt(pos) === 0x21;
    if (embed) pos++;
    if (src.charCodeAt(pos) !== 0x5b || src.charCodeAt(pos + 1) !== 0x5b) return false;
    // `![[…]]` that is no embed is no link either
    if (!embed && pos > 0 && src.charCodeAt(pos - 1) === 0x21) return false;
    const end = wikilinkEnd(src, pos, state.posMax);
    if (end < 0) return false;
    const link = parseWikilink(src.slice(pos + 2, end));
    if (!link || (embed && link.target === '' && !link.heading)) return false;
    if (!silent) {
      const token = state.push(embed ? 'wikiembed' : 'wikilink', '', 0);
      token.meta = link;
      token.content = src.slice(state.pos, end + 2);
    }
    state.pos = end + 2;
    return true;
  });
}

/** What resolution may ask: only pages and spaces the link's readers may read count as there. */
export type WikiLookup = {
  /** A live page at this address that counts (see above). */
  page(ref: PageRef): boolean;
  /**
   * The live pages of `space` whose title or an alias is `title` under foldCase (at most a few
   * dozen) that count: `exact` when it is `title` as written, `order` their age (smaller: older).
   */
  titled(space: string, title: string): TitleMatch[];
  /** `slug` names a live space the link's readers can see. */
  space(slug: string): boolean;
  /**
   * Optional, all at once (one query instead of three): which of `paths` in `space` count, and
   * the pages titled `title` that count.
   */
  local?(space: string, paths: string[], title: string): { paths: Set<string>; titled: TitleMatch[] };
};

/** A page a wikilink names by its title or an alias (WikiLookup.titled). */
export type TitleMatch = PageRef & { exact: boolean; order: number };

/**
 * Titles, aliases and wikilink targets as resolution compares them: NFC, then full Unicode case
 * folding (`Über` = `über`, `STRASSE` = `straße`), by upper- then lower-casing.
 */
export function foldCase(s: string): string {
  return /^[\x00-\x7f]*$/.test(s) ? s.toLowerCase() : s.normalize('NFC').toUpperCase().toLowerCase();
}

/** Whether a page titled `title` with these `aliases` matches `target`: 'exact', 'folded' or null. */
function titleMatch(target: string, folded: string, title: string, aliases: readonly string[]): 'exact' | 'folded' | null {
  if (title === target || aliases.includes(target)) return 'exact';
  if (foldCase(title) === folded || aliases.some((a) => foldCase(a) === folded)) return 'folded';
  return null;
}

/** The aliases of a page from its frontmatter's `aliases` as JSON text (TitledRow.aliases). */
export function aliasList(json: string | null): string[] {
  if (!json) return [];
  try {
    const a: unknown = JSON.parse(json);
    if (typeof a === 'string') return [a];
    return Array.isArray(a) ? a.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** The pages of `rows` (candidates of a query) that a wikilink to `target` names, as TitleMatch. */
export function titleMatches(
  space: string,
  target: string,
  rows: Iterable<{ id: number; path: string; title: string; aliases: string | null }>,
): TitleMatch[] {
  const folded = foldCase(target);
  const out: TitleMatch[] = [];
  const seen = new Set<number>();
  for (const r of rows) {
    if (seen.has(r.id)) continue;
    seen.add(r.id);
    const m = titleMatch(target, folded, r.title, aliasList(r.aliases));
    if (m) out.push({ space, path: r.path, exact: m === 'exact', order: r.id });
  }
  return out;
}

/**
 * Of several pages a wikilink names by title (docs/search.md "Wikilinks"): exact matches before
 * folded ones, then one in the linking page's folder, then the shortest path, then the oldest.
 */
function pickTitled(titled: TitleMatch[], from: PageRef): PageRef {
  const folder = from.path.slice(0, from.path.lastIndexOf('/') + 1);
  const here = (r: PageRef) => r.space === from.space && r.path.startsWith(folder) && !r.path.slice(folder.length).includes('/');
  let best = titled[0];
  for (const t of titled.slice(1)) {
    const d =
      Number(t.exact === false) - Number(best.exact === false) ||
      Number(!here(t)) - Number(!here(best)) ||
      t.path.length - best.path.length ||
      t.order - best.order ||
      (t.path < best.path ? -1 : t.path > best.path ? 1 : 0);
    if (d < 0) best = t;
  }
  return { space: best.space, path: best.path };
}

/** A lookup for which nothing exists: every wikilink takes its default address. */
export const NOTHING: WikiLookup = { page: () => false, titled: () => [], space: () => false };

type Plan =
  | { kind: 'only'; ref: PageRef | null }
  | { kind: 'search'; relative: PageRef | null; root: PageRef | null; title: string; cross: PageRef | null };

// A page's wikilinks are planned by the index (keys, resolution) and again when it is indexed
// anew: the last few thousand plans are kept.
const plans = new Map<string, Plan>();

function plan(target: string, from: PageRef): Plan {
  const id = `${from.space}\n${from.path}\n${target}`;
  let p = plans.get(id);
  if (p === undefined) {
    if (plans.size >= 4096) plans.clear();
    p = planOf(target, from);
    plans.set(id, p);
  }
  return p;
}

function planOf(target: string, from: PageRef): Plan {
  let t = normalizePagePath(target);
  if (t.toLowerCase().endsWith('.md')) t = t.slice(0, -3);
  if (t === '') return { kind: 'only', ref: from }; // `[[#heading]]`: this page
  const folder = from.path.split('/');
  folder.pop();
  if (t.startsWith('/')) return { kind: 'only', ref: toRef(from.space, resolveDots([], t.slice(1).split('/'))) };
  if (t.startsWith('./') || t.startsWith('../')) return { kind: 'only', ref: toRef(from.space, resolveDots(folder, t.split('/'))) };
  const segs = t.split('/');
  const relative = folder.length ? toRef(from.space, resolveDots([...folder], segs)) : null;
  const root = toRef(from.space, resolveDots([], segs));
  let cross: PageRef | null = null;
  // Only a first segment that can be a space slug names another space.
  if (segs.length >= 2 && segs[0] !== from.space && isSpaceSlug(segs[0])) cross = toRef(segs[0], resolveDots([], segs.slice(1)));
  return { kind: 'search', relative, root, title: t, cross };
}

/**
 * Where a wikilink points (docs/search.md "Wikilinks"): `/x` from the space root only, `./x`
 * and `../x` from the page's folder only; otherwise the first of: the page's folder, the space
 * root, the pages titled or aliased so (foldCase; several: pickTitled), another space named by the first segment;
 * and when none is there, the page's folder for a bare name and the space root for a path with
 * a `/` (where the page would be created). Null when the target can be no page address.
 */
export function resolveWikilink(target: string, from: PageRef, lookup: WikiLookup): PageRef | null {
  const p = plan(target, from);
  if (p.kind === 'only') return p.ref;
  let titled: TitleMatch[];
  if (lookup.local) {
    const paths = [p.relative, p.root].filter((r): r is PageRef => r !== null).map((r) => r.path);
    const found = lookup.local(from.space, paths, p.title);
    if (p.relative && found.paths.has(p.relative.path)) return p.relative;
    if (p.root && found.paths.has(p.root.path)) return p.root;
    titled = found.titled;
  } else {
    if (p.relative && lookup.page(p.relative)) return p.relative;
    if (p.root && lookup.page(p.root)) return p.root;
    titled = lookup.titled(from.space, p.title);
  }
  if (titled.length > 0) return pickTitled(titled, from);
  if (p.cross && lookup.space(p.cross.space)) return p.cross;
  return p.title.includes('/') ? p.root : (p.relative ?? p.root);
}

/**
 * The (space, key) pairs under which the link index files a wikilink: when a page appears in,
 * leaves or changes title in `space`, the wikilinks filed under the lower-cased title or under a
 * lower-cased trailing part of its path are resolved again (wikiKeysOfPage).
 */
export function wikiKeys(target: string, from: PageRef): Array<{ space: string; key: string }> {
  const p = plan(target, from);
  if (p.kind === 'only') return [];
  const out = [{ space: from.space, key: foldCase(p.title) }];
  if (p.cross) out.push({ space: p.cross.space, key: foldCase(p.cross.path) });
  return out;
}

/** The keys to look up when the page at `path` titled `title` appears, leaves or changes. */
export function wikiKeysOfPage(path: string, titles: string[]): string[] {
  const keys = new Set(titles.map(foldCase));
  const segs = foldCase(path).split('/');
  for (let i = 0; i < segs.length; i++) keys.add(segs.slice(i).join('/'));
  return [...keys];
}

/**
 * The candidate addresses of a wikilink that are page paths, in the order they are tried (the
 * folder, the root, another space); a move rewrites the first one the index says it points at.
 */
export function wikiPathCandidates(target: string, from: PageRef): PageRef[] {
  const p = plan(target, from);
  if (p.kind === 'only') return p.ref ? [p.ref] : [];
  return [p.relative, p.root, p.cross].filter((r): r is PageRef => r !== null);
}

/**
 * How a wikilink from `from` spells `to`: relative to the page's folder when `to` is under it,
 * else the path from the root, as `/path` only when the folder holds a page that a bare `path`
 * would find first (`taken`).
 */
export function wikiTargetFor(to: PageRef, from: PageRef, taken: (ref: PageRef) => boolean = () => false): string {
  if (to.space !== from.space) return `${to.space}/${to.path}`;
  const folder = from.path.includes('/') ? from.path.slice(0, from.path.lastIndexOf('/') + 1) : '';
  if (folder && to.path.startsWith(folder)) return to.path.slice(folder.length);
  return folder && taken({ space: from.space, path: folder + to.path }) ? `/${to.path}` : to.path;
}

/** `resolveSegments` of the link rules, each segment trimmed (a wikilink is not percent-encoded). */
function resolveDots(out: string[], raw: string[]): string[] | null {
  return resolveSegments(out, raw, (seg) => seg.trim());
}

function toRef(space: string, segs: string[] | null): PageRef | null {
  if (!segs || segs.length === 0) return null;
  const path = segs.join('/');
  if (path.length > 512 || segs.some((s) => s === '') || RESERVED_LAST_SEGMENTS.has(segs[segs.length - 1])) return null;
  return { space, path };
}
