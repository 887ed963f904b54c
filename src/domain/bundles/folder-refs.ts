// The files a foreign folder's notes refer to, attached to those notes, and links to notes
// imported under an escaped name (folder-names.ts) respelled: the reference rewriting of
// `kspace import-dir` (docs/export-import.md "Markdown folders").
import { outsideFences } from '../links/rewrite.ts';
import { escapeReservedPath } from './folder-names.ts';
import { checkFileSource, type BundlePage } from './bundle.ts';

/** A file of a page to attach, with its bytes; `from`: the folder file it came from. */
export type FolderAttachment = { path: string; name: string; contentType: string; data: Uint8Array; from: string; source?: string };

// `![[name]]`, `![[name|300]]` (an Obsidian embed) and `](dest)` of a Markdown image or link.
// group 1: the name (a table cell's `\|` leaves a `\` on it); group 2: `|size` or `#hint|size`.
const EMBED = /!\[\[([^[\]\n|#]+)((?:[|#][^[\]\n]*)?)\]\]/g;
// `[[shot.png|see screenshot]]`: a wikilink (not an embed) to a file; groups as EMBED's.
const FILE_LINK = /(?<!!)\[\[([^[\]\n|#]+\.[A-Za-z0-9]{1,10}\\?)((?:[|#][^[\]\n]*)?)\]\]/g;
// An inline code span (backtick runs of one length): references in it are text, not rewritten.
const CODE_SPAN = /(`+)(?:(?!\1)[^])*?\1(?!`)/g;

/** `fn` applied to the parts of `text` outside inline code spans. */
export function outsideCodeSpans(text: string, fn: (t: string) => string): string {
  if (!text.includes('`')) return fn(text);
  let out = '';
  let at = 0;
  for (const m of text.matchAll(CODE_SPAN)) {
    out += fn(text.slice(at, m.index)) + m[0];
    at = m.index + m[0].length;
  }
  return out + fn(text.slice(at));
}
// A destination: `<…>`, or text with balanced parentheses one level deep (`pic%20(1).png`), as CommonMark reads it.
const DEST = /(\]\(\s*)(<[^<>\n]*>|(?:[^\s()<>]|\([^\s()<>]*\))+)/g;

/**
 * The folder's files (not `.md`) that the pages of a foreign folder embed or link to, as
 * attachments of those pages, with the references respelled to the relative form `files/<name>`
 * (links/files.ts): a destination relative to the note (or from the root with a leading `/`),
 * an `![[name]]` embed found by its name anywhere, the note's folder first, as Obsidian does.
 * A page given two files of one name gets the second as `name-2.ext`.
 */
export function attachReferencedFiles(pages: BundlePage[], binaries: Map<string, Uint8Array>): FolderAttachment[] {
  if (binaries.size === 0) return [];
  const byName = new Map<string, string[]>();
  for (const path of binaries.keys()) {
    const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
    byName.set(name, [...(byName.get(name) ?? []), path]);
  }
  const out: FolderAttachment[] = [];
  for (const page of pages) {
    if (!page.content.includes('](') && !page.content.includes('[[')) continue;
    const folder = page.path.includes('/') ? page.path.slice(0, page.path.lastIndexOf('/') + 1) : '';
    const names = new Map<string, string>(); // folder file → its name on the page
    const attach = (file: string): string => {
      let name = names.get(file);
      if (name !== undefined) return name;
      const base = file.slice(file.lastIndexOf('/') + 1);
      const dot = base.lastIndexOf('.');
      name = base;
      for (let n = 2; [...names.values()].includes(name); n++)
        name = dot > 0 ? `${base.slice(0, dot)}-${n}${base.slice(dot)}` : `${base}-${n}`;
      names.set(file, name);
      // Its path in the vault, kept so that an export writes it there again (when a path can be one).
      const source = checkFileSource(file) === null ? { source: file } : {};
      out.push({ path: page.path, name, contentType: '', data: binaries.get(file)!, from: file, ...source });
      return name;
    };
    // Parentheses encoded too (encodeURIComponent keeps them): a destination any reader and rewriter takes whole.
    const href = (name: string) => `files/${encodeURIComponent(name).replace(/\(/g, '%28').replace(/\)/g, '%29')}`;
    const findByName = (target: string): string | undefined => {
      const t = target.replace(/\\$/, '').trim().replace(/^\//, '');
      return binaries.has(t) ? t : nearest(byName.get(t.slice(t.lastIndexOf('/') + 1).toLowerCase()) ?? [], folder);
    };
    page.content = outsideFences(page.content, (fenced) =>
      outsideCodeSpans(fenced, (text) =>
        text
          .replace(EMBED, (m, target: string, rest: string) => {
            const cell = target.endsWith('\\'); // `![[pic.jpg\|100]]` in a table cell
            const found = findByName(target);
            if (!found) return m;
            const name = attach(found);
            // Obsidian's size (`|100`, `|100x145`) stays in the alt text, and a display hint
            // (`#icon`) as the address's fragment, both of which the renderer reads (docs/markdown.md).
            const size = /\|\s*(\d{1,5}(?:x\d{1,5})?)\s*$/.exec(rest)?.[1];
            const hint = /^#([A-Za-z0-9-]{1,32})/.exec(rest)?.[1];
            return `![${name.replace(/[[\]|]/g, '')}${size ? `${cell ? '\\|' : '|'}${size}` : ''}](${href(name)}${hint ? `#${hint}` : ''})`;
          })
          .replace(FILE_LINK, (m, target: string, rest: string) => {
            // A link to the file, labelled as Obsidian shows it: its alias, else the name as written.
            if (/\.md\\?$/i.test(target)) return m;
            const found = findByName(target);
            if (!found) return m;
            const label = /\|([^]*)$/.exec(rest)?.[1].trim() || target.replace(/\\$/, '').trim();
            return `[${label}](${href(attach(found))})`;
          })
          .replace(DEST, (m, pre: string, dest: string) => {
            const raw = dest.startsWith('<') ? dest.slice(1, -1) : dest;
            if (/^[a-zA-Z][a-zA-Z0-9+.-]*:|^\/\/|^#/.test(raw)) return m;
            let decoded: string;
            try {
              decoded = decodeURIComponent(raw.replace(/[?#].*$/, ''));
            } catch {
              return m;
            }
            let file = joinPath(decoded.startsWith('/') ? '' : folder, decoded.replace(/^\//, ''));
            // Not beside the note: from the folder's root, as Obsidian reads a destination next
            // (a `kspace sync` folder keeps a file several notes use at the root's `files/<name>`).
            if ((file === null || !binaries.has(file)) && !/^\.\.?\//.test(decoded)) file = joinPath('', decoded.replace(/^\//, ''));
            // A bare file name found nowhere there: by its name anywhere, as Obsidian does.
            if ((file === null || !binaries.has(file)) && !decoded.includes('/'))
              file = nearest(byName.get(decoded.toLowerCase()) ?? [], folder) ?? null;
            if (file === null || !binaries.has(file)) return m;
            return pre + href(attach(file));
          }),
      ),
    );
  }
  return out;
}

/** Of files of one name, the one in `folder`, else the one with the shortest path. */
function nearest(paths: string[], folder: string): string | undefined {
  const here = paths.find((p) => p.startsWith(folder) && !p.slice(folder.length).includes('/'));
  return here ?? [...paths].sort((a, b) => a.length - b.length || (a < b ? -1 : 1))[0];
}

/** `folder` + `rel` with `.` and `..` applied; null above the root. */
function joinPath(folder: string, rel: string): string | null {
  const out = folder ? folder.replace(/\/$/, '').split('/') : [];
  for (const seg of rel.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.pop() === undefined) return null;
    } else out.push(seg);
  }
  return out.join('/');
}

/**
 * A relative Markdown link to a note imported under an escaped name (`[x](links.md)`, page
 * `links_`) respelled to that page (`[x](links_.md)`); links in code are left as written.
 */
export function respellReservedMdLinks(content: string, at: string, paths: Set<string>): string {
  const folder = at.includes('/') ? at.slice(0, at.lastIndexOf('/') + 1) : '';
  return outsideFences(content, (fenced) =>
    outsideCodeSpans(fenced, (text) =>
      text.replace(DEST, (m, pre: string, dest: string) => {
        const angle = dest.startsWith('<');
        const raw = angle ? dest.slice(1, -1) : dest;
        const md = /\.md(?=[#?]|$)/i.exec(raw);
        if (!md || /^[a-zA-Z][a-zA-Z0-9+.-]*:|^\/\//.test(raw)) return m;
        let decoded: string;
        try {
          decoded = decodeURIComponent(raw.slice(0, md.index));
        } catch {
          return m;
        }
        const file = joinPath(decoded.startsWith('/') ? '' : folder, decoded.replace(/^\//, ''));
        if (file === null || escapeReservedPath(file) === file || !paths.has(escapeReservedPath(file))) return m;
        const respelled = `${raw.slice(0, md.index)}_${raw.slice(md.index)}`;
        return pre + (angle ? `<${respelled}>` : respelled);
      }),
    ),
  );
}
