// What one Obsidian note holds for link resolution, read the way Obsidian's help describes it:
// its links and embeds (outside code), its headings and its block ids. Part of the vault bench's
// own model of Obsidian (obsidian-model.ts says why it is kept apart from kspace's link code): it
// uses markdown-it only for the block structure (code blocks, headings, table cells); links are
// found by its own scanner.
import MarkdownIt from 'markdown-it';

/** A link or embed as written: `[[target#sub|alias]]`, `![[…]]`, `[text](dest)` or `![alt](dest)`. */
export type RawLink = {
  /** The link as it is written in the note. */
  raw: string;
  form: 'wiki' | 'markdown';
  embed: boolean;
  /** The path part: `Note`, `folder/Note.md`, `pic.png`; '' for a link to the note itself (`[[#H]]`). */
  target: string;
  /** What follows the first `#`: `Heading`, `A#B`, `^block`, `outline`; null for none. */
  sub: string | null;
  line: number;
};

export type Heading = { level: number; text: string };
export type NoteFacts = { links: RawLink[]; headings: Heading[]; blocks: string[] };

let md: MarkdownIt | null = null;
/** CommonMark with GFM tables; raw HTML is a block of its own, where Obsidian reads no links. */
const parser = () => (md ??= new MarkdownIt('default', { html: true, linkify: false }));

const FRONTMATTER = /^---\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/;
const EXTERNAL = /^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|\/\/)/;
/** A block id: "a blank space followed by a caret ^ and the block identifier at the end of the line". */
const BLOCK_ID = /(?:^|[ \t])\^([A-Za-z0-9-]+)[ \t]*$/;

/** The links, headings and block ids of a note's text. */
export function readNote(text: string): NoteFacts {
  const fm = FRONTMATTER.exec(text);
  const skipped = fm ? fm[0].split('\n').length - 1 : 0;
  const body = fm ? text.slice(fm[0].length) : text;
  const tokens = parser().parse(body, {});
  const links: RawLink[] = [];
  const headings: Heading[] = [];
  const codeLines = new Set<number>();
  let line = 0; // the last line a token gave (a table cell's inline token has none of its own)
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.map) line = t.map[0];
    if ((t.type === 'fence' || t.type === 'code_block' || t.type === 'html_block') && t.map) {
      for (let l = t.map[0]; l < t.map[1]; l++) codeLines.add(l);
      continue;
    }
    if (t.type === 'heading_open') headings.push({ level: Number(t.tag.slice(1)), text: tokens[i + 1].content.trim() });
    if (t.type === 'inline') scanInline(t.content, line + skipped + 1, links);
  }
  const blocks: string[] = [];
  body.split('\n').forEach((line, n) => {
    if (codeLines.has(n)) return;
    const m = BLOCK_ID.exec(line.replace(/\r$/, ''));
    if (m) blocks.push(m[1]);
  });
  return { links, headings, blocks };
}

/** The links of a run of inline text (a paragraph, a heading, a table cell), code spans skipped. */
export function scanInline(s: string, line: number, out: RawLink[]): void {
  let i = 0;
  const lineAt = (p: number) => line + (s.slice(0, p).match(/\n/g)?.length ?? 0);
  while (i < s.length) {
    const c = s[i];
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === '`') {
      const run = /^`+/.exec(s.slice(i))![0];
      const close = findRun(s, i + run.length, run.length);
      i = close < 0 ? i + run.length : close + run.length;
      continue;
    }
    const embed = c === '!' && s[i + 1] === '[';
    const at = embed ? i + 1 : i;
    if (s[at] === '[' && s[at + 1] === '[') {
      const end = s.indexOf(']]', at + 2);
      const inner = end < 0 ? '' : s.slice(at + 2, end);
      if (end >= 0 && inner && !inner.includes('\n') && !inner.includes('[[')) {
        out.push({ ...wikiParts(inner), raw: s.slice(i, end + 2), form: 'wiki', embed, line: lineAt(i) });
        i = end + 2;
        continue;
      }
    }
    if (s[at] === '[') {
      const md = markdownLink(s, at);
      if (md) {
        scanInline(md.text, lineAt(at), out); // `[![img](a.png)](b.md)`: the image is a link too
        if (md.dest !== null && !EXTERNAL.test(md.dest)) {
          const { target, sub } = splitDest(md.dest);
          out.push({ raw: s.slice(i, md.end), form: 'markdown', embed, target, sub, line: lineAt(i) });
        }
        i = md.end;
        continue;
      }
    }
    i++;
  }
}

/** `target#sub|alias` (in a table cell the bar is written `\|`): the target and what follows its first `#`. */
function wikiParts(inner: string): { target: string; sub: string | null } {
  const bar = inner.search(/\\?\|/);
  const dest = bar < 0 ? inner : inner.slice(0, bar);
  const hash = dest.indexOf('#');
  return hash < 0 ? { target: dest.trim(), sub: null } : { target: dest.slice(0, hash).trim(), sub: dest.slice(hash + 1).trim() };
}

/** The index of the next run of exactly n backticks from `from`, or -1. */
function findRun(s: string, from: number, n: number): number {
  const re = /`+/g;
  re.lastIndex = from;
  for (let m = re.exec(s); m; m = re.exec(s)) if (m[0].length === n) return m.index;
  return -1;
}

/** `[text](dest "title")` at `at`: its text, its destination (null: not a link address) and where it ends. */
function markdownLink(s: string, at: number): { text: string; dest: string | null; end: number } | null {
  let depth = 0;
  let close = -1;
  for (let j = at; j < s.length; j++) {
    if (s[j] === '\\') j++;
    else if (s[j] === '`') {
      const run = /^`+/.exec(s.slice(j))![0];
      const end = findRun(s, j + run.length, run.length);
      if (end >= 0) j = end + run.length - 1;
    } else if (s[j] === '[') depth++;
    else if (s[j] === ']' && --depth === 0) {
      close = j;
      break;
    }
  }
  if (close < 0 || s[close + 1] !== '(') return null;
  let j = close + 2;
  while (s[j] === ' ') j++;
  let dest: string;
  if (s[j] === '<') {
    const gt = s.indexOf('>', j);
    if (gt < 0) return null;
    dest = s.slice(j + 1, gt);
    j = gt + 1;
  } else {
    let parens = 0;
    const start = j;
    for (; j < s.length; j++) {
      const ch = s[j];
      if (ch === '\\') j++;
      else if (ch === '(') parens++;
      else if (ch === ')') {
        if (parens === 0) break;
        parens--;
      } else if (/\s/.test(ch)) break;
    }
    dest = s.slice(start, j);
  }
  const rest = /^\s*(?:"[^"]*"|'[^']*'|\([^)]*\))?\s*\)/.exec(s.slice(j));
  if (!rest) return null;
  return { text: s.slice(at + 1, close), dest: dest || null, end: j + rest[0].length };
}

/** A Markdown link's destination, URL-decoded: the path and what follows its `#`. */
function splitDest(dest: string): { target: string; sub: string | null } {
  const hash = dest.indexOf('#');
  const path = hash < 0 ? dest : dest.slice(0, hash);
  return { target: decode(path.replace(/\?.*$/, '')), sub: hash < 0 ? null : decode(dest.slice(hash + 1)) };
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
