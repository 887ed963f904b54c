// A page's Markdown as the text a reader sees, for search snippets: no `**`, `#`, link targets,
// table pipes or fences, and where each heading starts. Pure, one pass over the lines and a few
// regular expressions per line (a snippet is cut from every hit's body, so no full Markdown
// parse). It follows what the renderer shows for the common syntax; rarer constructs (nested
// emphasis across lines, HTML blocks) may keep a character of syntax, never hide text.

type PlainText = {
  text: string;
  /** Each heading's name and where its text starts in `text`, in order. */
  headings: Array<{ at: number; name: string }>;
};

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]|$)/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const THEMATIC = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const TABLE_RULE = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const REF_DEF = /^ {0,3}\[[^\]]+\]:[ \t]*\S+.*$/;
// A line's leading blockquote markers, list marker and task box.
const LEAD = /^[ \t]*(?:>[ \t]?)*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?)?/;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

// A backslash-escaped character stands in for itself until the end, out of every rule's way.
const ESCAPED = /\\([!-/:-@[-`{-~])/g;
const HELD = /[\uE000-\uE07F]/g;
const HELD_ANY = /[\uE000-\uE07F]/;
const INLINE_SYNTAX = /[[<`*_~&\\]/;
// The first character of a line that may start a block rule (a break, a reference definition, a table's rule).
const BLOCK_START = /^[ \t]*[-*_[|:]/;
const LEAD_START = /^[ \t]*[>\-*+\d]/;

/** Wikilinks and embeds of a line as text (before its table cells are split: a label's `|` is not a cell's). */
function wikiText(s: string): string {
  return s
    .replace(/!\[\[[^[\]]*\]\]/g, '') // an embed shows the file, not text
    .replace(
      /\[\[([^[\]|#]*)(?:#([^[\]|]*))?(?:\\?\|([^[\]]*))?\]\]/g,
      (_, target: string, heading: string | undefined, label: string | undefined) => label ?? (target || heading || ''),
    );
}

/** Inline Markdown of one line (wikilinks done) as text. Raw HTML is text: the renderer does not pass it through. */
function inlineText(s: string): string {
  if (!INLINE_SYNTAX.test(s)) return s; // most lines of prose
  // A line that holds those private-use characters itself keeps them: its escapes are dropped last.
  const hold = !HELD_ANY.test(s);
  const out = (hold ? s.replace(ESCAPED, (_, c: string) => String.fromCharCode(0xe000 + c.charCodeAt(0) - 32)) : s)
    .replace(/!\[([^[\]]*)\]\([^()]*\)/g, '$1') // image: its alt text
    .replace(/\[([^[\]]*)\]\([^()]*(?:\([^()]*\)[^()]*)*\)/g, '$1') // link: its text
    .replace(/\[([^[\]]+)\]\[[^[\]]*\]/g, '$1') // reference link
    .replace(/<(https?:\/\/[^<>\s]+|[^<>@\s]+@[^<>\s]+)>/g, '$1') // autolink: the address is the text
    .replace(/`+([^`]*)`+/g, '$1')
    .replace(/\*\*(?=\S)((?:[^*]|\*(?!\*))*?\S)\*\*/g, '$1')
    .replace(/__(?=\S)((?:[^_]|_(?!_))*?\S)__/g, '$1')
    .replace(/~~(?=\S)((?:[^~]|~(?!~))*?\S)~~/g, '$1')
    .replace(/(^|[^\w*])\*(?=\S)([^*]*?\S)\*(?!\w)/g, '$1$2')
    .replace(/(^|[^\w])_(?=\S)([^_]*?\S)_(?!\w)/g, '$1$2')
    .replace(/&(amp|lt|gt|quot|apos|nbsp|#39);/g, (_, e: string) => ENTITIES[e]);
  return hold ? out.replace(HELD, (c) => String.fromCharCode(c.charCodeAt(0) - 0xe000 + 32)) : out.replace(ESCAPED, '$1');
}

/** An ATX heading's text: without its closing run of `#` (one after a space or tab, or all of it). */
function headingText(rest: string): string {
  const t = rest.trimEnd();
  let i = t.length;
  while (i > 0 && t[i - 1] === '#') i--;
  return i === t.length || (i > 0 && t[i - 1] !== ' ' && t[i - 1] !== '\t') ? t : t.slice(0, i);
}

/** The text of `markdown` a reader sees, one line per block line, and its headings. */
export function plainText(markdown: string): PlainText {
  const out: string[] = [];
  const headings: PlainText['headings'] = [];
  let length = 0; // of out.join('\n') so far
  let fence: string | null = null;
  let previousText = false; // the last line kept was paragraph text (a setext underline makes it a heading)
  const push = (line: string) => {
    out.push(line);
    length += line.length + 1;
  };
  for (const raw of markdown.split('\n')) {
    const line = raw.replace(/\r$/, '');
    const f = FENCE.exec(line);
    if (fence !== null) {
      if (f && f[1][0] === fence[0] && f[1].length >= fence.length && line.trim() === f[1]) fence = null;
      else push(line);
      previousText = false;
      continue;
    }
    if (f) {
      fence = f[1];
      previousText = false;
      continue;
    }
    const atx = line.includes('#') ? ATX.exec(line) : null;
    if (atx) {
      const name = inlineText(wikiText(headingText(line.slice(atx[0].length)))).trim();
      if (name) {
        headings.push({ at: length, name });
        push(name);
      }
      previousText = false;
      continue;
    }
    if (previousText && SETEXT.test(line)) {
      // The line before is a heading: it starts where that line was written.
      const name = out[out.length - 1].trim();
      headings.push({ at: length - out[out.length - 1].length - 1, name });
      previousText = false;
      continue;
    }
    if (BLOCK_START.test(line) && (THEMATIC.test(line) || REF_DEF.test(line) || (line.includes('-') && TABLE_RULE.test(line)))) {
      previousText = false;
      continue;
    }
    let body = LEAD_START.test(line) ? line.replace(LEAD, '') : line;
    if (body.includes('[[')) body = wikiText(body);
    // A table row: its cells, trimmed, one space apart.
    if (body.includes('|'))
      body = body
        .replace(/^\s*\|/, '')
        .replace(/(^|[^\\])\|\s*$/, '$1')
        .split(/(?<!\\)\|/)
        .map((c) => c.trim())
        .join(' ');
    const text = inlineText(body);
    push(text);
    previousText = text.trim() !== '';
  }
  return { text: out.join('\n'), headings };
}

/** The name of the last heading that starts at or before `pos`, if any. */
export function headingAt(headings: PlainText['headings'], pos: number): string | undefined {
  let name: string | undefined;
  for (const h of headings) {
    if (h.at > pos) break;
    name = h.name;
  }
  return name;
}
