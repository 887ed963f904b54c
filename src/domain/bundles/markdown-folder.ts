// A space as a folder of Markdown files and back (docs/export-import.md "Markdown folders"):
// one `<path>.md` per page with YAML frontmatter (the title and the metadata as Obsidian
// properties), read back as a bundle for the ordinary import. Pure: `kspace export --format
// markdown`, `kspace import-dir` and GET /spaces/:slug/export?format=zip all use these.
import YAML from 'yaml';
import { checkPagePath, normalizePagePath } from '../paths.ts';
import type { Issue, PageRef } from '../../model.ts';
import { scanWikilinksOnly } from '../links/extract.ts';
import { rewriteLinks } from '../links/rewrite.ts';
import { foldCase, resolveWikilink, wikiTargetFor, type WikiLookup } from '../links/wikilinks.ts';
import { parseSimpleYaml } from './simple-yaml.ts';
import { escapeReservedPath, exportedFileName, unescapeReservedPath } from './folder-names.ts';
import { attachReferencedFiles, respellReservedMdLinks, type FolderAttachment } from './folder-refs.ts';
import { linksFromPlaces, linksToPlaces, type PlacedAttachment } from './folder-files.ts';
import { isMetadataValue, keptPagesText, keptProps, PAGES_FILE, pageToNote, parseKeptPages, type KeptPage } from './folder-kept.ts';

export { attachReferencedFiles, type FolderAttachment } from './folder-refs.ts';
export { decodeNote, escapeReservedPath, exportedFileName, unescapeReservedPath } from './folder-names.ts';
export { PAGES_FILE, type KeptPage } from './folder-kept.ts';
export { ATTACHMENTS_FOLDER, placeAttachments, type PlacedAttachment } from './folder-files.ts';
import { BUNDLE_FORMAT, BUNDLE_FORMAT_VERSION, type BundleError, type BundlePage, type BundleSpace } from './bundle.ts';

/** The file a folder export writes beside the pages (a dot-folder: Obsidian does not list it). */
export const FOLDER_MARKER = '.kspace/space.json';
const FOLDER_FORMAT = 'kspace-markdown-folder';

/** A file of the folder: its path relative to the folder, `/`-separated. */
export type FolderFile = { path: string; text: string };

/** The property under which the earlier layout (pageToFile) keeps what Obsidian properties cannot say. */
const KSPACE_KEY = 'kspace';

/** A page path's file: `<path>.md` (with exportedFileName's encoding), a reserved name unescaped. */
export const fileOfPage = (path: string): string => `${exportedFileName(unescapeReservedPath(path))}.md`;

/**
 * A page as a note of an export: the metadata and frontmatter as properties and nothing more,
 * then the content as stored, its links to its attached files pointing at their places
 * (`places`: name → the file's place, folder-files.ts); `kept`, what `.kspace/pages.json` holds
 * of it (folder-kept.ts).
 */
export function pageToNoteFile(page: BundlePage, places?: Map<string, string>): { file: FolderFile; kept: KeptPage | null } {
  const path = fileOfPage(page.path);
  const content = places ? linksToPlaces(page.content, path, places) : page.content;
  const { text, kept } = pageToNote(content === page.content ? page : { ...page, content }, path);
  return { file: { path, text }, kept };
}

/** Each page's attached files by name, at their places (placeAttachments). */
export function placesByPage(placed: PlacedAttachment[]): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const p of placed) {
    let m = out.get(p.path);
    if (!m) out.set(p.path, (m = new Map()));
    m.set(p.name, p.file);
  }
  return out;
}

/**
 * A page as a Markdown file of the earlier layout, which exports and sync folders made before
 * pages.json have, and every reader without pages.json reads (kept for those, and for tests): frontmatter with `title`, then each metadata key as a property,
 * then, only when there is any, `kspace: {frontmatter, metadata}` holding the page's free-form
 * frontmatter and the metadata keys that would collide with `title` or `kspace`; then the
 * content exactly as stored.
 */
export function pageToFile(page: BundlePage): FolderFile {
  const props: Record<string, unknown> = { title: page.title };
  const extra: Record<string, unknown> = {};
  const hidden: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(page.metadata)) {
    if (k === 'title' || k === KSPACE_KEY) hidden[k] = v;
    else props[k] = v;
  }
  if (Object.keys(page.frontmatter).length) extra.frontmatter = page.frontmatter;
  if (Object.keys(hidden).length) extra.metadata = hidden;
  if (Object.keys(extra).length) props[KSPACE_KEY] = extra;
  return { path: fileOfPage(page.path), text: `---\n${YAML.stringify(props, { lineWidth: 0 })}---\n${page.content}` };
}

/**
 * The marker file: the space, and where each attached file is. Version 2: the notes carry no
 * `title`/`kspace` properties, and `.kspace/pages.json` keeps what they cannot say.
 */
export function folderMarker(space: BundleSpace, attachments: PlacedAttachment[] = []): FolderFile {
  const marker = { format: FOLDER_FORMAT, version: 2, space, ...(attachments.length ? { attachments } : {}) };
  return { path: FOLDER_MARKER, text: `${JSON.stringify(marker, null, 2)}\n` };
}

/** `.kspace/pages.json` of these entries (note path → what it keeps). */
export function keptPagesFile(entries: Iterable<[string, KeptPage]>): FolderFile {
  return { path: PAGES_FILE, text: keptPagesText(entries) };
}

/** The folder of a bundle: one note per page, the marker and pages.json (the attached files' bytes are the caller's to write). */
export function bundleToFolder(space: BundleSpace, pages: BundlePage[], attachments: PlacedAttachment[] = []): FolderFile[] {
  const kept: Array<[string, KeptPage]> = [];
  const places = placesByPage(attachments);
  const notes = pages.map((p) => {
    const n = pageToNoteFile(p, places.get(p.path));
    if (n.kept) kept.push([n.file.path, n.kept]);
    return n.file;
  });
  return [folderMarker(space, attachments), keptPagesFile(kept), ...notes];
}

/** Whether a folder entry is left out of an import: a part of its path starts with `.` (`.obsidian/`, `.git/`, `.trash/`). */
export function isSkipped(relPath: string): boolean {
  return relPath.split('/').some((seg) => seg.startsWith('.'));
}

const FRONTMATTER = /^---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;

/**
 * A folder read as a bundle, with its per-file reports (docs/export-import.md "Reports"):
 * `errors`, a note not imported; `warnings`, a note imported but not exactly as written (or a
 * file the marker lists that is missing); `leftOut`, a file that is not imported by rule (a file
 * no note refers to, a symlink not followed).
 */
export type FolderBundle = {
  space: BundleSpace;
  pages: BundlePage[];
  attachments: FolderAttachment[];
  errors: BundleError[];
  warnings: BundleError[];
  leftOut: BundleError[];
  native: boolean;
};

/**
 * The bundle of a folder's Markdown files (`files`: every `.md` file not skipped, any order).
 * `marker`: the text of `.kspace/space.json` when the folder has one (a kspace export: its
 * links are kspace links already and are kept as written). Without it (an Obsidian vault, a
 * SilverBullet space, any folder) a wikilink that kspace would resolve differently from
 * Obsidian (a note found by its name anywhere in the vault) is respelled to the page Obsidian
 * finds, its text kept as the label. One error per file that cannot be a page. `pagesText`: the
 * text of `.kspace/pages.json` when the folder has one: the notes are then read as an export
 * writes them (readNote's `kept`); without it, by the earlier rules (a `title` property is the
 * title, a `kspace` property restores frontmatter).
 */
export function folderToBundle(
  files: FolderFile[],
  marker?: string,
  binaries: Map<string, Uint8Array> = new Map(),
  pagesText?: string,
): FolderBundle {
  const errors: BundleError[] = [];
  const warnings: BundleError[] = [];
  const leftOut: BundleError[] = [];
  let kept: Map<string, KeptPage> | null = null;
  if (pagesText !== undefined) {
    const k = parseKeptPages(pagesText);
    kept = k.pages;
    if (k.problem) warnings.push({ path: PAGES_FILE, code: 'invalid_json', message: k.problem });
  }
  let space: BundleSpace = { slug: '', name: '', description: '' };
  let native = false;
  let version = 0;
  let manifest: PlacedAttachment[] = [];
  if (marker !== undefined) {
    try {
      const m = JSON.parse(marker) as { format?: unknown; version?: unknown; space?: Partial<BundleSpace>; attachments?: unknown };
      if (m.format === FOLDER_FORMAT) {
        native = true;
        version = typeof m.version === 'number' ? m.version : 1;
        space = { slug: String(m.space?.slug ?? ''), name: String(m.space?.name ?? ''), description: String(m.space?.description ?? '') };
        if (Array.isArray(m.attachments))
          manifest = m.attachments.filter((a): a is PlacedAttachment => a !== null && typeof a === 'object');
      }
    } catch {
      warnings.push({ path: FOLDER_MARKER, code: 'invalid_json', message: 'not JSON: the folder is read as a plain Markdown folder' });
    }
  }
  const pages: BundlePage[] = [];
  const noteOf = new Map<BundlePage, string>();
  const seen = new Set<string>();
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const note = readNote(f, true, kept ? (kept.get(normalizePagePath(f.path)) ?? {}) : undefined);
    if ('code' in note) {
      errors.push(note);
      continue;
    }
    const r = note.page;
    if (seen.has(r.path)) {
      errors.push({ path: f.path, code: 'duplicate_path', message: `another file is also page '${r.path}'; the first one was used` });
      continue;
    }
    seen.add(r.path);
    warnings.push(...note.warnings);
    pages.push(r);
    noteOf.set(r, f.path);
  }
  const attachments: FolderAttachment[] = [];
  if (native) {
    const listed: PlacedAttachment[] = [];
    for (const a of manifest) {
      const data = typeof a.file === 'string' ? binaries.get(a.file) : undefined;
      if (!data) {
        warnings.push({
          path: String(a.file),
          code: 'not_found',
          message: `the marker lists this file of '${a.path}', the folder does not have it`,
        });
        continue;
      }
      const source = typeof a.source === 'string' ? { source: a.source } : {};
      const file = { path: String(a.path), name: String(a.name), contentType: String(a.contentType ?? ''), file: a.file };
      attachments.push({ ...file, ...source, data, from: a.file });
      listed.push(file);
    }
    // Version 2 points the notes' links at the shared places (folder-files.ts): back to `files/<name>`.
    if (version >= 2) {
      const byPage = new Map<string, Map<string, string>>();
      for (const a of listed) {
        let m = byPage.get(a.path);
        if (!m) byPage.set(a.path, (m = new Map()));
        m.set(a.file, a.name);
      }
      for (const p of pages) {
        const places = byPage.get(p.path);
        if (places) p.content = linksFromPlaces(p.content, noteOf.get(p)!, places);
      }
    }
  } else {
    attachments.push(...attachReferencedFiles(pages, binaries));
    respellForeignLinks(pages);
  }
  const used = new Set(attachments.map((a) => a.from));
  for (const path of binaries.keys()) {
    if (!used.has(path)) leftOut.push({ path, code: 'not_referenced', message: 'no page links to this file: not imported' });
  }
  return { space, pages, attachments, errors, warnings, leftOut, native };
}

/**
 * One Markdown file as a page, or why it cannot be one (frontmatter that is not a YAML map is an
 * error here: `kspace sync` keeps such a file on the disk rather than push half of it). `kept`:
 * as readNote's.
 */
export function fileToPage(f: FolderFile, kept?: KeptPage): BundlePage | BundleError {
  const r = readNote(f, false, kept);
  return 'code' in r ? r : r.page;
}

/**
 * One Markdown file of an imported folder as a page and what was changed on the way (docs/export-import.md
 * "Reports"): `lenient`, frontmatter that is not a YAML map stays in the content as text, with an
 * `invalid_frontmatter` warning; a reserved name gets its escaped path and a `reserved_name` warning.
 * `kept`: what `.kspace/pages.json` keeps of the note (`{}` when it keeps nothing), for a folder
 * that has one (folder-kept.ts): the title is the kept one or the file's name, and every property
 * is metadata or frontmatter. Without it, the earlier rules: a `title` property is the title and a
 * `kspace` property holds frontmatter and colliding metadata keys.
 */
export function readNote(f: FolderFile, lenient = true, kept?: KeptPage): { page: BundlePage; warnings: BundleError[] } | BundleError {
  const bad = (code: string, message: string, issues?: Issue[]): BundleError => ({
    path: f.path,
    code,
    message,
    ...(issues ? { issues } : {}),
  });
  const warnings: BundleError[] = [];
  if (!/\.md$/i.test(f.path)) return bad('unsupported_file', 'only .md files become pages');
  const named = normalizePagePath(f.path.slice(0, -3));
  const path = escapeReservedPath(named);
  const pathIssue = checkPagePath(path);
  if (pathIssue) return bad('validation_failed', `path: ${pathIssue.message}`, [pathIssue]);
  if (path !== named) {
    warnings.push(bad('reserved_name', `'${named}' names a page sub-resource: imported as page '${path}', exported back as '${f.path}'`));
  }
  let props: Record<string, unknown> = {};
  let content = f.text.charCodeAt(0) === 0xfeff ? f.text.slice(1) : f.text;
  const m = FRONTMATTER.exec(content);
  if (m) {
    let data: unknown;
    let problem: string | null = null;
    try {
      data = m[1] === undefined ? null : (parseSimpleYaml(m[1]) ?? YAML.parse(m[1]));
      if (data !== null && (typeof data !== 'object' || Array.isArray(data))) problem = 'the YAML frontmatter is not a map of properties';
    } catch (e) {
      problem = `the YAML frontmatter does not parse: ${(e as Error).message.split('\n')[0].replace(/:$/, '')}`;
    }
    if (problem === null) {
      props = (data ?? {}) as Record<string, unknown>;
      content = content.slice(m[0].length);
    } else if (!lenient) return bad('invalid_frontmatter', problem);
    else warnings.push(bad('invalid_frontmatter', `${problem}; kept as text at the start of the page`));
  }
  const base = named.slice(named.lastIndexOf('/') + 1);
  if (kept) return { page: { path, title: kept.title ?? base, content, ...keptProps(props, kept, toJsonValue) }, warnings };
  const title = typeof props.title === 'string' && props.title.trim() !== '' ? props.title.slice(0, 1024) : base;
  const frontmatter: Record<string, unknown> = {};
  const metadata: Record<string, unknown> = {};
  const ks = props[KSPACE_KEY];
  const own = ks !== null && typeof ks === 'object' && !Array.isArray(ks) ? (ks as Record<string, unknown>) : null;
  for (const [k, v] of Object.entries(props)) {
    if (k === 'title' && typeof v === 'string' && v.trim() !== '') continue;
    if (k === KSPACE_KEY && own) continue;
    if (isMetadataValue(k, v)) metadata[k] = v;
    else frontmatter[k] = toJsonValue(v);
  }
  if (own) {
    const fm = own.frontmatter;
    if (fm !== null && typeof fm === 'object' && !Array.isArray(fm)) Object.assign(frontmatter, fm);
    const md = own.metadata;
    if (md !== null && typeof md === 'object' && !Array.isArray(md)) Object.assign(metadata, md);
  }
  return { page: { path, title, content, frontmatter, metadata }, warnings };
}

/** YAML values JSON cannot hold as they are (dates of the YAML 1.1 schema, if any) as strings. */
function toJsonValue(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(toJsonValue);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toJsonValue(x)]));
  return v;
}

/**
 * Respells the wikilinks of a foreign folder whose kspace reading (wikilinks.ts, over the
 * folder's own pages) differs from Obsidian's: a path from the root, else a note found by its
 * name (case-insensitive) anywhere, the one in the linking note's folder first, else the one
 * with the shortest path. A link Obsidian cannot resolve either is left as written.
 */
function respellForeignLinks(pages: BundlePage[]): void {
  const byPath = new Map<string, string>(); // lower-cased path → path
  const byName = new Map<string, string[]>(); // lower-cased last segment → paths
  for (const p of pages) {
    // by the file's own name: `[[links]]` finds `links.md`, imported as page `links_`
    const named = unescapeReservedPath(p.path);
    byPath.set(named.toLowerCase(), p.path);
    const name = named.slice(named.lastIndexOf('/') + 1).toLowerCase();
    byName.set(name, [...(byName.get(name) ?? []), p.path]);
  }
  const paths = new Set(pages.map((p) => p.path));
  const lookup = folderLookup(pages);
  const obsidian = (target: string, from: PageRef): string | null => {
    let t = target.replace(/\.md$/i, '');
    if (t.startsWith('/')) t = t.slice(1);
    const folder = from.path.includes('/') ? from.path.slice(0, from.path.lastIndexOf('/') + 1) : '';
    if (t.startsWith('./') || t.startsWith('../')) return null; // relative: kspace reads it the same way
    const exact = byPath.get(t.toLowerCase());
    if (exact) return exact;
    const lower = t.toLowerCase();
    const name = lower.slice(lower.lastIndexOf('/') + 1);
    const found = (byName.get(name) ?? []).filter(
      (p) => !lower.includes('/') || unescapeReservedPath(p).toLowerCase().endsWith(`/${lower}`),
    );
    if (found.length === 0) return null;
    const near = found.filter((p) => p.startsWith(folder) && !p.slice(folder.length).includes('/'));
    if (near.length) return near[0];
    return [...found].sort((a, b) => a.length - b.length || (a < b ? -1 : 1))[0];
  };
  const respell = (target: string, at: PageRef): string | null => {
    if (target === '') return null;
    const want = obsidian(target, at);
    if (want === null) return null;
    const got = resolveWikilink(target, at, lookup);
    if (got && got.path === want) return null;
    return wikiTargetFor({ space: '', path: want }, at, (r) => paths.has(r.path));
  };
  for (const p of pages) {
    if (p.content.includes('.md')) p.content = respellReservedMdLinks(p.content, p.path, paths);
    if (!p.content.includes('[[')) continue;
    const from = { space: '', path: p.path };
    // Most notes need nothing respelled: a scan tells, and only the others are rewritten.
    const plain = scanWikilinksOnly(p.content);
    if (plain && plain.every((w) => respell(w.target, from) === null)) continue;
    p.content = rewriteLinks(p.content, from, new Map(), [], respell, true);
  }
}

/** How kspace would resolve wikilinks among these pages alone (no other space). */
function folderLookup(pages: BundlePage[]): WikiLookup {
  const paths = new Set(pages.map((p) => p.path));
  const byTitle = new Map<string, Array<{ path: string; title: string; order: number }>>();
  pages.forEach((p, order) => {
    const t = foldCase(p.title);
    byTitle.set(t, [...(byTitle.get(t) ?? []), { path: p.path, title: p.title, order }]);
  });
  return {
    page: (r) => paths.has(r.path),
    // in the order the import writes them: an earlier page is the older one
    titled: (space, title) =>
      (byTitle.get(foldCase(title)) ?? []).map((p) => ({ space, path: p.path, exact: p.title === title, order: p.order })),
    space: () => false,
  };
}

/** The bundle object the import endpoint reads. */
export function toBundleJson(space: BundleSpace, pages: BundlePage[]): Record<string, unknown> {
  return { format: BUNDLE_FORMAT, formatVersion: BUNDLE_FORMAT_VERSION, space, pages };
}
