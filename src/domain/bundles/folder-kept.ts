// What a Markdown folder export keeps beside its notes (docs/export-import.md "The folder"): a note's
// properties are its page's metadata and frontmatter and nothing else; what the file cannot say (a
// title that is not the file's name, a frontmatter key that reads as metadata, a frontmatter key
// the metadata has too) goes to `.kspace/pages.json`, keyed by the note's path. Obsidian does not
// list dot-folders, so the notes open as a plain vault. Pure.
import YAML from 'yaml';
import { checkKey, checkValue } from '../metadata.ts';
import { normalizePagePath } from '../paths.ts';
import type { BundlePage } from './bundle.ts';

/** The file of the kept entries, beside the marker. */
export const PAGES_FILE = '.kspace/pages.json';
const PAGES_FORMAT = 'kspace-markdown-pages';

/**
 * What `.kspace/pages.json` keeps of one note. `title`: the page's title, when it is not the note's
 * file name. `frontmatterKeys`: properties of the note that are page frontmatter though their
 * value reads as metadata. `frontmatter`: frontmatter entries the note cannot hold (the metadata
 * has a key of that name too).
 */
export type KeptPage = { title?: string; frontmatterKeys?: string[]; frontmatter?: Record<string, unknown> };

// Limits of a metadata value as every server applies them by default; the server checks again.
const VALUE_LIMITS = { listItems: 1000, stringBytes: 4096 } as never;

/** A property that is a metadata value: a valid key and a string, number, boolean or list of those. */
export function isMetadataValue(key: string, value: unknown): boolean {
  if (checkKey(key) !== null || value === null || value === undefined) return false;
  if (Array.isArray(value) && value.length === 0) return true;
  return checkValue(key, value, VALUE_LIMITS) === null;
}

/** The title a note has when nothing else names it: its file's name without `.md`. */
export function titleOfFile(filePath: string): string {
  const named = normalizePagePath(filePath.replace(/\.md$/i, ''));
  return named.slice(named.lastIndexOf('/') + 1);
}

// What a reader takes as frontmatter at the start of a note (markdown-folder.ts reads the same).
const LOOKS_LIKE_FRONTMATTER = /^(?:\uFEFF|---)/;

/**
 * A page as a note (`file`: its path, from markdown-folder.ts's fileOfPage) and what pages.json
 * keeps of it (null: nothing). The properties are the metadata, then the frontmatter; a note with
 * none has no frontmatter block, unless its content starts like one (or with a byte-order mark,
 * which a reader drops), when an empty block (`{}`: a reader takes `---` on the next line as the
 * block's end) comes first so that it is read back as content.
 */
export function pageToNote(page: BundlePage, file: string): { text: string; kept: KeptPage | null } {
  const props: Record<string, unknown> = { ...page.metadata };
  const kept: KeptPage = {};
  if (page.title !== titleOfFile(file)) kept.title = page.title;
  for (const [k, v] of Object.entries(page.frontmatter)) {
    if (Object.hasOwn(page.metadata, k)) (kept.frontmatter ??= {})[k] = v;
    else {
      props[k] = v;
      if (isMetadataValue(k, v)) (kept.frontmatterKeys ??= []).push(k);
    }
  }
  const head = Object.keys(props).length
    ? `---\n${YAML.stringify(props, { lineWidth: 0 })}---\n`
    : LOOKS_LIKE_FRONTMATTER.test(page.content)
      ? '---\n{}\n---\n'
      : '';
  return { text: head + page.content, kept: Object.keys(kept).length ? kept : null };
}

/**
 * A note's properties as a page's metadata and frontmatter, by what `kept` says of it: a
 * property is metadata when its value is a metadata value and `kept` does not name it as
 * frontmatter; `kept.frontmatter` is added. `title` and `kspace` are properties like any other.
 */
export function keptProps(
  props: Record<string, unknown>,
  kept: KeptPage,
  toJson: (v: unknown) => unknown,
): { metadata: Record<string, unknown>; frontmatter: Record<string, unknown> } {
  const asFrontmatter = new Set(Array.isArray(kept.frontmatterKeys) ? kept.frontmatterKeys : []);
  const metadata: Record<string, unknown> = {};
  const frontmatter: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(props)) {
    if (!asFrontmatter.has(k) && isMetadataValue(k, v)) metadata[k] = v;
    else frontmatter[k] = toJson(v);
  }
  const fm = kept.frontmatter;
  if (fm !== null && typeof fm === 'object' && !Array.isArray(fm)) Object.assign(frontmatter, fm);
  return { metadata, frontmatter };
}

/** The text of pages.json: an entry for each note that needs one, in note path order. */
export function keptPagesText(entries: Iterable<[string, KeptPage]>): string {
  const pages = Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return `${JSON.stringify({ format: PAGES_FORMAT, version: 1, pages }, null, 1)}\n`;
}

/** pages.json read: note path → entry; an error message when it is not such a file. */
export function parseKeptPages(text: string): { pages: Map<string, KeptPage>; problem: string | null } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { pages: new Map(), problem: 'not JSON: the notes are read with no kept titles' };
  }
  const pages = (data as { pages?: unknown } | null)?.pages;
  if (pages === null || typeof pages !== 'object' || Array.isArray(pages))
    return { pages: new Map(), problem: "no 'pages' map: the notes are read with no kept titles" };
  const out = new Map<string, KeptPage>();
  for (const [k, v] of Object.entries(pages)) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) continue;
    const e = v as Record<string, unknown>;
    const entry: KeptPage = {};
    if (typeof e.title === 'string' && e.title !== '') entry.title = e.title;
    if (Array.isArray(e.frontmatterKeys)) entry.frontmatterKeys = e.frontmatterKeys.filter((x): x is string => typeof x === 'string');
    if (e.frontmatter !== null && typeof e.frontmatter === 'object' && !Array.isArray(e.frontmatter))
      entry.frontmatter = e.frontmatter as Record<string, unknown>;
    out.set(normalizePagePath(k), entry);
  }
  return { pages: out, problem: null };
}
