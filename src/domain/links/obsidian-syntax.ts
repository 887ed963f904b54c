// Obsidian's Markdown extensions for the renderer (docs/markdown.md): callouts, `==highlights==`,
// `%%comments%%` and `^block-id` markers. markdown-it plugins, pure; every rule reads each
// character a bounded number of times (docs/security.md "Rendering"), and whatever they print
// is kspace's own markup with the text escaped: raw HTML stays off.
import type MarkdownIt from 'markdown-it';
import { calloutIcon, calloutKind } from './callout-icons.ts';

type Token = ReturnType<MarkdownIt['parse']>[number];
type StateInline = Parameters<Parameters<MarkdownIt['inline']['ruler']['push']>[1]>[0];
type StateBlock = Parameters<Parameters<MarkdownIt['block']['ruler']['push']>[1]>[0];
type StateCore = Parameters<Parameters<MarkdownIt['core']['ruler']['push']>[1]>[0];
type TokenCtor = new (type: string, tag: string, nesting: number) => Token;

const EQ = 0x3d;
const PERCENT = 0x25;
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a;

export function obsidianSyntax(md: MarkdownIt): void {
  md.inline.ruler.before('emphasis', 'highlight', highlight);
  md.inline.ruler.before('emphasis', 'comment', inlineComment);
  md.block.ruler.before('paragraph', 'comment', blockComment, { alt: ['paragraph', 'blockquote', 'list'] });
  md.core.ruler.after('block', 'callout', callouts);
  md.core.ruler.push('block_id', blockIds);
  const esc = md.utils.escapeHtml;
  md.renderer.rules.callout_open = (tokens, idx) => {
    const c = tokens[idx].meta as Callout;
    const attrs = `class="callout callout-${c.kind}" data-callout="${esc(c.type)}"`;
    const head = `${calloutIcon(c.kind)}<span class="callout-title-inner">`;
    return c.fold
      ? `<details ${attrs}${c.fold === '+' ? ' open' : ''}><summary class="callout-title">${head}`
      : `<div ${attrs} role="note"><div class="callout-title">${head}`;
  };
  md.renderer.rules.callout_title_close = (tokens, idx) => {
    const c = tokens[idx].meta as Callout;
    return `</span>${c.fold ? '</summary>' : '</div>'}\n<div class="callout-content">\n`;
  };
  md.renderer.rules.callout_close = (tokens, idx) => `</div>${(tokens[idx].meta as Callout).fold ? '</details>' : '</div>'}\n`;
}

/**
 * `==text==` → `<mark>`: the closing `==` is the next one in the same inline range, and neither
 * side of the text may be a space (so `a == b and c == d` stays text). One scan from each opening.
 */
function highlight(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const pos = state.pos;
  if (src.charCodeAt(pos) !== EQ || src.charCodeAt(pos + 1) !== EQ || src.charCodeAt(pos + 2) === EQ) return false;
  const end = src.indexOf('==', pos + 2);
  if (end < 0 || end + 2 > state.posMax || end === pos + 2) return false;
  if (isSpace(src.charCodeAt(pos + 2)) || isSpace(src.charCodeAt(end - 1))) return false;
  if (!silent) {
    const max = state.posMax;
    state.push('mark_open', 'mark', 1);
    state.pos = pos + 2;
    state.posMax = end;
    state.md.inline.tokenize(state);
    state.posMax = max;
    state.push('mark_close', 'mark', -1);
  }
  state.pos = end + 2;
  return true;
}

/** `%%text%%` inside a paragraph: nothing is printed. */
function inlineComment(state: StateInline, _silent: boolean): boolean {
  const src = state.src;
  const pos = state.pos;
  if (src.charCodeAt(pos) !== PERCENT || src.charCodeAt(pos + 1) !== PERCENT) return false;
  const end = src.indexOf('%%', pos + 2);
  if (end < 0 || end + 2 > state.posMax) return false;
  state.pos = end + 2;
  return true;
}

/**
 * A comment block: a line that starts with `%%`, through the line holding the next `%%` when
 * nothing but spaces follows it there (blank lines inside included). Nothing is printed. The scan
 * from each such line stops at the next line holding `%%`, so the text is read about once.
 */
function blockComment(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (state.sCount[startLine] - state.blkIndent >= 4) return false;
  const start = state.bMarks[startLine] + state.tShift[startLine];
  if (state.src.charCodeAt(start) !== PERCENT || state.src.charCodeAt(start + 1) !== PERCENT) return false;
  let line = startLine;
  let from = start + 2;
  for (;;) {
    const text = state.src.slice(from, state.eMarks[line]);
    const at = text.indexOf('%%');
    if (at >= 0) {
      if (text.slice(at + 2).trim() !== '') return false; // `%%a%% more`: an inline comment
      break;
    }
    if (++line >= endLine) return false;
    from = state.bMarks[line] + state.tShift[line];
  }
  if (!silent) state.line = line + 1;
  return true;
}

type Callout = { type: string; kind: string; fold: '' | '+' | '-' };

const CALLOUT = /^\[!([\p{L}\p{N}_-]{1,64})\]([+-]?)[ \t]*(.*)$/u;

/**
 * `> [!type]± Title` as a callout: the blockquote becomes callout_open (meta: Callout), an inline
 * token of the title (the type, capitalised, when none is written), callout_title_close, the rest
 * of the quote, callout_close. Runs before inline parsing, in one pass over the tokens.
 */
function callouts(state: StateCore): void {
  const tokens = state.tokens;
  if (!tokens.some((t) => t.type === 'blockquote_open')) return;
  const Tok = tokens[0].constructor as TokenCtor;
  const out: Token[] = [];
  const open: Array<Callout | null> = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.type === 'blockquote_close') {
      const c = open.pop();
      if (c) {
        t.type = 'callout_close';
        t.meta = c;
      }
      out.push(t);
      continue;
    }
    const m =
      t.type === 'blockquote_open' && tokens[i + 1]?.type === 'paragraph_open' && tokens[i + 2]?.type === 'inline'
        ? CALLOUT.exec(firstLine(tokens[i + 2].content))
        : null;
    if (t.type === 'blockquote_open') open.push(null);
    if (!m) {
      out.push(t);
      continue;
    }
    const type = m[1].toLowerCase();
    const c: Callout = { type, kind: calloutKind(type), fold: m[2] as Callout['fold'] };
    open[open.length - 1] = c;
    t.type = 'callout_open';
    t.meta = c;
    const title = new Tok('inline', '', 0);
    title.content = m[3].trim() || type.charAt(0).toUpperCase() + type.slice(1);
    title.children = [];
    title.map = t.map;
    const titleClose = new Tok('callout_title_close', '', 0);
    titleClose.meta = c;
    out.push(t, title, titleClose);
    const inline = tokens[i + 2];
    const nl = inline.content.indexOf('\n');
    if (nl >= 0) inline.content = inline.content.slice(nl + 1);
    else i += 3; // the title was the whole paragraph: drop it
  }
  state.tokens = out;
}

const firstLine = (s: string) => {
  const nl = s.indexOf('\n');
  return nl < 0 ? s : s.slice(0, nl);
};

/** A `^id` marker at the end of a block's text (after a space or a line break, right after `]]`, or the whole text). */
export const BLOCK_ID = /(?:^|\s|(?<=\]\]))\^([A-Za-z0-9-]{1,64})$/;

/** The id attribute of the block whose marker is `^id`: a fragment `#^id` finds it. */
export const blockAnchor = (id: string) => `^${id}`;

/**
 * `^block-id` markers: hidden, and the block they mark gets the id `^block-id` (blockAnchor). A
 * marker ending a paragraph marks that paragraph (its list item in a tight list); a paragraph of
 * only a marker marks the block before it (a list, a table, a quote).
 */
function blockIds(state: StateCore): void {
  const tokens = state.tokens;
  for (let i = 1; i < tokens.length; i++) {
    const inline = tokens[i];
    if (inline.type !== 'inline' || tokens[i - 1].type !== 'paragraph_open') continue;
    const children = inline.children ?? [];
    const last = children[children.length - 1];
    if (!last || last.type !== 'text' || !last.content.includes('^')) continue;
    const m = BLOCK_ID.exec(last.content);
    if (!m) continue;
    const para = tokens[i - 1];
    if (children.length === 1 && last.content.trim() === `^${m[1]}` && tokens[i + 1]?.type === 'paragraph_close') {
      const before = openOfBlockBefore(tokens, i - 1);
      if (before) {
        before.attrSet('id', blockAnchor(m[1]));
        para.hidden = true;
        tokens[i + 1].hidden = true;
        inline.children = [];
        continue;
      }
    }
    last.content = last.content.slice(0, last.content.length - m[0].length);
    const item = para.hidden && tokens[i - 2]?.type === 'list_item_open' ? tokens[i - 2] : para;
    item.attrSet('id', blockAnchor(m[1]));
  }
}

/** The opening token of the block that ends just before `tokens[at]` at the same level, if any. */
export function openOfBlockBefore(tokens: Token[], at: number): Token | null {
  const close = tokens[at - 1];
  if (!close || close.level !== tokens[at].level) return null;
  if (close.nesting === 0) return close.type === 'fence' || close.type === 'code_block' ? close : null;
  if (close.nesting !== -1) return null;
  const type = close.type.replace(/_close$/, '_open');
  for (let j = at - 2; j >= 0; j--) if (tokens[j].type === type && tokens[j].level === close.level) return tokens[j];
  return null;
}
