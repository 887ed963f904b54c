// An independent model of how Obsidian resolves the links of a vault, for the vault bench
// (scripts/bench/vault.ts): written from Obsidian's own help text (the vault's "Internal links",
// "Embed files", "Aliases" and "Settings" pages), never from kspace's link code, so that a
// mistake in one is not repeated in the other. Each rule quotes the sentence it comes from; where
// the help is silent, the reading chosen is written down (docs/export-import.md repeats them).
//
// 1. "Wikilink: `[[Three laws of motion]]` or `[[Three laws of motion.md]]` … The examples above
//    are equivalent": `.md` is optional; "links to file formats other than Markdown needs to
//    include a file extension, such as `[[Figure 1.png]]`".
// 2. "Markdown: `[Three laws of motion](Three%20laws%20of%20motion.md)` … make sure to URL encode
//    the link destination": Markdown destinations are URL-decoded.
// 3. "Folder paths start at the vault root": `[[Projects/Three laws of motion]]` is a path from
//    the root, and a link that is a path from the root names that file before any other. A Markdown destination (and a wikilink starting with `./` or `../`) is tried
//    relative to the linking note first ("Relative path to file — Uses a path relative to the
//    current file", Settings › New link format), then from the root.
// 4. "Shortest path when possible — Uses the shortest unique path to the linked file" (Settings):
//    a bare name (or a partial path) finds a file whose path ends with it, anywhere. Reading for
//    several: the linking note's folder first, then the shortest path (characters), then
//    alphabetical order.
// 5. Case: the help does not say. Obsidian matches link paths case-insensitively; here both sides
//    are NFC-normalised and lower-cased (Unicode default case mapping).
// 6. "add a hash (#) at the end of the link destination, followed by the heading text"; "You can
//    add multiple hash symbols for each subheading": `#A#B` is heading B under heading A (the
//    first B after A, before the next heading at A's level or above). Heading text is compared
//    with punctuation (`!"#$%&()*+,.:;<=>?@^`{|}~/[]\`) read as spaces, case-insensitively: the
//    help is silent, but its own links are written so (`[[Functions#hasTag]]` for the heading
//    "`hasTag()`", `#How large can each remote vault be` for "How large can each remote vault be?").
// 7. "add `#^` at the end of your link destination, followed by a unique block identifier"; "place
//    a blank space followed by a caret ^ and the block identifier at the end of the line"; "Block
//    identifiers can only consist of Latin letters, numbers, and dashes".
// 8. A heading or block the target lacks leaves the link on the note (Obsidian opens the note).
// 9. Aliases: "Rather than just using the alias as the link destination (`[[AI]]`), Obsidian uses
//    the `[[Artificial Intelligence|AI]]` link format to ensure interoperability": an alias names
//    the note in suggestions; a link is written to the note's name, and `aliases:` resolves
//    nothing here.
// 10. Links inside code spans, fenced or indented code and raw HTML blocks are not links; in a
//    table cell the bar is written `\|` (`![[pic.jpg\|100]]`).
// 11. An embed's `#…` after a file name (`![[Engelbart.jpg#outline]]`, `#page=3`) is a display
//    hint of the file, not part of its name.
import { readNote, type Heading, type NoteFacts, type RawLink } from './obsidian-note.ts';

/** A vault: notes (`.md` paths, `/`-separated, from the vault root) with their text, and its other files. */
export type Vault = { notes: Map<string, string>; files: string[] };

/** Where a link goes: a note (a heading by its index in the note, or a block), a file, or nowhere. */
export type Target =
  | { kind: 'note'; path: string; heading?: number | 'missing'; block?: string | 'missing' }
  | { kind: 'file'; path: string }
  | { kind: 'unresolved' };

export type ModelLink = RawLink & { note: string; to: Target };
export type ModelVault = { links: ModelLink[]; facts: Map<string, NoteFacts> };

const fold = (s: string) => s.normalize('NFC').toLowerCase();
const folder = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');

/** Every link of every note, with where Obsidian sends it. */
export function resolveVault(vault: Vault): ModelVault {
  const facts = new Map<string, NoteFacts>();
  for (const [path, text] of vault.notes) facts.set(path, readNote(text));
  const all = [...vault.notes.keys(), ...vault.files];
  const byPath = new Map<string, string>();
  for (const p of all) if (!byPath.has(fold(p))) byPath.set(fold(p), p);
  const links: ModelLink[] = [];
  for (const [note, f] of facts) {
    for (const l of f.links) links.push({ ...l, note, to: resolveLink(l, note, all, byPath, facts) });
  }
  return { links, facts };
}

function resolveLink(l: RawLink, note: string, all: string[], byPath: Map<string, string>, facts: Map<string, NoteFacts>): Target {
  const path = l.target === '' ? note : findFile(l.target, note, l.form, all, byPath);
  if (!path) return { kind: 'unresolved' };
  if (!path.endsWith('.md')) return { kind: 'file', path };
  const target = facts.get(path)!;
  if (!l.sub) return { kind: 'note', path };
  if (l.sub.startsWith('^')) {
    const id = l.sub.slice(1).toLowerCase();
    return { kind: 'note', path, block: target.blocks.find((b) => b.toLowerCase() === id) ?? 'missing' };
  }
  const index = findHeading(target.headings, l.sub.split('#'));
  return { kind: 'note', path, heading: index < 0 ? 'missing' : index };
}

/** The file a link's path names (rules 1–5), or null. */
export function findFile(target: string, from: string, form: RawLink['form'], all: string[], byPath: Map<string, string>): string | null {
  const names = [`${target}.md`, target];
  const relative = form === 'markdown' || /^\.\.?\//.test(target);
  if (relative) {
    for (const n of names) {
      const p = joinPath(folder(from), n);
      const hit = p === null ? undefined : byPath.get(fold(p));
      if (hit) return hit;
    }
  }
  for (const n of names) {
    const hit = byPath.get(fold(n.replace(/^\/+/, '')));
    if (hit) return hit;
  }
  for (const n of names) {
    const tail = `/${fold(n.replace(/^(?:\.\.?\/)+/, ''))}`;
    const found = all.filter((p) => `/${fold(p)}`.endsWith(tail));
    if (found.length) return pickClosest(found, from);
  }
  return null;
}

/** Of several files of one name (rule 4): the linking note's folder first, then the shortest path, then alphabetical. */
export function pickClosest(found: string[], from: string): string {
  const here = found.filter((p) => folder(p) === folder(from));
  const pool = here.length ? here : found;
  return [...pool].sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0))[0];
}

/** `a/b` + `../c` → `c`; null when it climbs out of the vault. */
function joinPath(base: string, rel: string): string | null {
  const parts = base ? base.split('/') : [];
  for (const seg of rel.split('/')) {
    if (seg === '.' || seg === '') continue;
    if (seg === '..') {
      if (!parts.length) return null;
      parts.pop();
    } else parts.push(seg);
  }
  return parts.join('/');
}

/** Heading text as a link names it (rule 6). */
export const headingKey = (h: string) =>
  fold(h)
    .replace(/[!"#$%&()*+,.:;<=>?@^`{|}~/[\]\\]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** The index of the heading `path` names (`['A', 'B']`: B under A), or -1. */
export function findHeading(headings: Heading[], path: string[]): number {
  const wanted = path.map(headingKey).filter(Boolean);
  if (!wanted.length) return -1;
  let from = 0;
  let to = headings.length;
  let found = -1;
  for (const w of wanted) {
    found = -1;
    for (let i = from; i < to; i++) {
      if (headingKey(headings[i].text) === w) {
        found = i;
        break;
      }
    }
    if (found < 0) return -1;
    from = found + 1;
    to = headings.length;
    for (let i = from; i < headings.length; i++) {
      if (headings[i].level <= headings[found].level) {
        to = i;
        break;
      }
    }
  }
  return found;
}
