// Where a Markdown folder export writes attached files, and the page links that point at them
// (docs/export-import.md "The folder"): each file once, in one shared place (the path a vault
// import read it from, else `attachments/<name>`), and a page's relative `files/<name>` links
// made relative paths to that place, which Obsidian resolves; a kspace import of the folder turns
// them back. Pure.
import { outsideFences } from '../links/rewrite.ts';
import { exportedFileName } from './folder-names.ts';
import { outsideCodeSpans } from './folder-refs.ts';

/** The shared folder of attached files that came from no vault. */
export const ATTACHMENTS_FOLDER = 'attachments';

/** An attached file as the folder holds it: `file`, its place; `source`, its path in the vault it came from. */
export type PlacedAttachment = { path: string; name: string; contentType: string; file: string; source?: string };

type Row = { path: string; name: string; contentType: string; sha256: string; source?: string | null };

/**
 * Where an export writes each attached file (rows in page path order): each distinct file once.
 * A file imported from a vault goes where the vault had it (its `source`); the others to
 * `attachments/<name>`, the same bytes to one place, another file of that name to
 * `attachments/<stem>-2.<ext>`. Places are compared without case (a macOS or Windows disk would
 * make two of one), and a source another file took first falls back like a file without one.
 */
export function placeAttachments(rows: Row[]): PlacedAttachment[] {
  const claimed = new Map<string, string>(); // lower-cased place → sha256
  const placeOf = new Map<string, string>(); // sha256 → its first place
  const files: Array<string | undefined> = rows.map(() => undefined);
  const claim = (i: number, file: string): boolean => {
    const owner = claimed.get(file.toLowerCase());
    if (owner !== undefined && owner !== rows[i].sha256) return false;
    claimed.set(file.toLowerCase(), rows[i].sha256);
    if (!placeOf.has(rows[i].sha256)) placeOf.set(rows[i].sha256, file);
    files[i] = file;
    return true;
  };
  rows.forEach((r, i) => {
    if (r.source) claim(i, exportedFileName(r.source));
  });
  rows.forEach((r, i) => {
    if (files[i] !== undefined) return;
    const same = placeOf.get(r.sha256);
    if (same !== undefined) {
      files[i] = same;
      return;
    }
    const name = exportedFileName(r.name);
    const dot = name.lastIndexOf('.');
    for (let n = 1; ; n++) {
      const base = n === 1 ? name : dot > 0 ? `${name.slice(0, dot)}-${n}${name.slice(dot)}` : `${name}-${n}`;
      if (claim(i, `${ATTACHMENTS_FOLDER}/${base}`)) return;
    }
  });
  return rows.map((r, i) => ({
    path: r.path,
    name: r.name,
    contentType: r.contentType,
    file: files[i]!,
    ...(r.source ? { source: r.source } : {}),
  }));
}

// `](dest)` of a Markdown link or image: the destination as written, `<…>` or bare (with
// balanced parentheses, as CommonMark reads `pic(1).png`).
const DEST = /(\]\(\s*)(<[^<>\n]*>|(?:[^\s()<>]|\([^\s()<>]*\))+)/g;
// The relative file form of links/files.ts: `files/<name>` or `./files/<name>`, then `?…` or `#…`.
const RELATIVE_FILE = /^(\.\/)?files\/([^/?#\\]+)([?#].*)?$/;
// Characters a path segment of a bare destination cannot hold as they are.
const encodeSegment = (s: string): string => s.replace(/[%\s()<>#?]/g, (c) => encodeURIComponent(c));
const folderOf = (file: string): string[] => (file.includes('/') ? file.slice(0, file.lastIndexOf('/')).split('/') : []);

function decoded(s: string): string | null {
  try {
    return decodeURIComponent(s).normalize('NFC');
  } catch {
    return null;
  }
}

/** The link destinations outside code of `content`, each through `fn` (null: left as written). */
function mapDestinations(content: string, fn: (raw: string) => string | null): string {
  if (!content.includes('](')) return content;
  return outsideFences(content, (fenced) =>
    outsideCodeSpans(fenced, (text) =>
      text.replace(DEST, (m, pre: string, dest: string) => {
        const angle = dest.startsWith('<');
        const out = fn(angle ? dest.slice(1, -1) : dest);
        return out === null ? m : pre + (angle ? `<${out}>` : out);
      }),
    ),
  );
}

/**
 * A page's content as its exported note has it: each `files/<name>` link to a file of the page
 * (`places`: name → place) made the relative path from the note (`note`: its file) to the
 * file's place (`files/pic.png` → `../Attachments/pic.png`). The name is kept as written when the
 * place has that name; a `./` start, `?query` and `#fragment` (a display hint) are kept.
 */
export function linksToPlaces(content: string, note: string, places: Map<string, string>): string {
  if (places.size === 0 || !content.includes('files/')) return content;
  const from = folderOf(note);
  return mapDestinations(content, (raw) => {
    const m = RELATIVE_FILE.exec(raw);
    const name = m && decoded(m[2]);
    const place = name === null || name === undefined ? undefined : places.get(name);
    if (!m || name === null || place === undefined) return null;
    const to = folderOf(place);
    let common = 0;
    while (common < from.length && common < to.length && from[common] === to[common]) common++;
    const up = from.slice(common).map(() => '..');
    const base = place.slice(place.lastIndexOf('/') + 1);
    const last = base === name ? m[2] : encodeSegment(base);
    return (m[1] ?? '') + [...up, ...to.slice(common).map(encodeSegment), last].join('/') + (m[3] ?? '');
  });
}

/**
 * linksToPlaces undone, for a folder export read back: a relative destination that reaches one
 * of the page's files (`places`: place → name) becomes `files/<name>` again, the name as written
 * when it is the place's, else encoded as an import writes it.
 */
export function linksFromPlaces(content: string, note: string, places: Map<string, string>): string {
  if (places.size === 0) return content;
  const from = folderOf(note);
  return mapDestinations(content, (raw) => {
    if (/^[a-zA-Z][a-zA-Z0-9+.-]*:|^\/|^#/.test(raw)) return null;
    const cut = raw.search(/[?#]/);
    const path = cut < 0 ? raw : raw.slice(0, cut);
    const plain = decoded(path);
    if (plain === null) return null;
    const parts = [...from];
    for (const seg of plain.split('/')) {
      if (seg === '' || seg === '.') continue;
      if (seg === '..') {
        if (parts.pop() === undefined) return null;
      } else parts.push(seg);
    }
    const name = places.get(parts.join('/'));
    if (name === undefined) return null;
    const last = path.slice(path.lastIndexOf('/') + 1);
    const base = parts[parts.length - 1];
    const written = base === name && decoded(last) === name ? last : encodeURIComponent(name);
    return `${path.startsWith('./') ? './' : ''}files/${written}${cut < 0 ? '' : raw.slice(cut)}`;
  });
}
