// Embeds (docs/markdown.md "Embeds"): the part of a page that `![[Note]]`, `![[Note#Heading]]`,
// `![[Note#A#B]]` or `![[Note#^block]]` shows, the markup around an embedded page, and files
// shown by their extension (images with a size, audio and video players, PDF links). Pure; the
// reader's side (which page, whether the reader may read it, depth and cost) is rendering.ts's.
import type MarkdownIt from 'markdown-it';
import { getLinkParsers } from './parsers.ts';
import { BLOCK_ID, openOfBlockBefore } from './obsidian-syntax.ts';
import { headingId } from './heading-id.ts';

type Token = ReturnType<MarkdownIt['parse']>[number];

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ESC[c]);

type Size = { w: number; h: number | null };

/** `alt|100` or `alt|100x145` (Obsidian's image size) → the alt text and the size. */
export function splitSize(alt: string): { text: string; size: Size | null } {
  const m = /^([^]*?)\|\s*(\d{1,5})(?:\s*x\s*(\d{1,5}))?\s*$/.exec(alt);
  return m ? { text: m[1].trim(), size: { w: Number(m[2]), h: m[3] ? Number(m[3]) : null } } : { text: alt, size: null };
}

/**
 * An attached file's markup by its kind: `<img>` (with its size as width/height attributes, no
 * style), `<audio controls>`, `<video controls>`, or for a PDF a link. `hint` (`![[x.svg#icon]]`,
 * letters, digits and `-` only) becomes a class `hint-<hint>`.
 */
export function mediaHtml(
  kind: 'image' | 'audio' | 'video' | 'pdf',
  url: string,
  text: string,
  size: Size | null,
  hint: string | null,
  title?: string | null,
): string {
  const dims = size ? ` width="${size.w}"${size.h ? ` height="${size.h}"` : ''}` : '';
  const cls = hint && /^[A-Za-z0-9-]{1,32}$/.test(hint) ? ` class="hint-${hint.toLowerCase()}"` : '';
  const src = esc(url);
  const name = esc(text);
  const t = title ? ` title="${esc(title)}"` : '';
  if (kind === 'audio') return `<audio controls preload="metadata" src="${src}" aria-label="${name}"${t}${cls}></audio>`;
  if (kind === 'video') return `<video controls preload="metadata" src="${src}" aria-label="${name}"${t}${dims}${cls}></video>`;
  if (kind === 'pdf') return `<a href="${src}" class="file-link file-pdf"${t}>${name || 'PDF'}</a>`;
  return `<img src="${src}" alt="${name}"${t}${dims}${cls}>`;
}

/** Whether an inline token's children are page embeds only (and spaces): the paragraph is dropped. */
export function isStandalone(children: Token[]): boolean {
  let embeds = 0;
  for (const c of children) {
    if (c.type === 'wikiembed') {
      const target = (c.meta as { target: string }).target;
      if (/\.[A-Za-z0-9]{1,5}$/.test(target) && !target.toLowerCase().endsWith('.md')) return false; // a file: inline
      embeds++;
    } else if (!(c.type === 'softbreak' || (c.type === 'text' && c.content.trim() === ''))) return false;
  }
  return embeds > 0;
}

/** An embedded page: a link to it (its label) above its HTML. */
export function embedFrame(label: string, href: string, body: string): string {
  return (
    `<div class="embed"><div class="embed-title"><a href="${esc(href)}" class="internal">${esc(label)}</a></div>\n` +
    `<div class="embed-content">\n${body}</div></div>\n`
  );
}

/** An embed the reader gets nothing of: the same for a page that does not exist and for one they may not read. */
export function embedUnavailable(label: string): string {
  return `<div class="embed embed-unavailable" role="note"><span class="embed-name">${esc(label)}</span> is not available.</div>\n`;
}

/** An embed of a readable page that is not shown (`why`: a cycle, too deep, too large, no such section). */
export function embedNotShown(label: string, href: string, why: string): string {
  return `<div class="embed embed-not-shown" role="note"><a href="${esc(href)}" class="internal">${esc(label)}</a> (${esc(why)})</div>\n`;
}

/**
 * The Markdown an embed shows of a page's `content`: all of it; under `#Heading` that heading and
 * its section (to the next heading of its level or above); `#A#B` heading B inside A's section;
 * `#^id` the block marked `^id` (its list item, paragraph, or the block before a lone marker).
 * Null when there is no such part.
 */
export function embeddedPart(content: string, heading: string | null): string | null {
  return embeddedParts(content)(heading);
}

/**
 * embeddedPart for several embeds of one page: its Markdown is parsed once, on the first embed
 * that names a section or block, however many of them there are.
 */
export function embeddedParts(content: string): (heading: string | null) => string | null {
  let parsed: { lines: string[]; tokens: Token[] } | null = null;
  return (heading) => {
    if (!heading) return content;
    if (!parsed) {
      const text = content.includes('\r') ? content.replace(/\r\n?/g, '\n') : content;
      parsed = { lines: text.split('\n'), tokens: getLinkParsers().plain.parse(text, {}) };
    }
    const { lines, tokens } = parsed;
    const range = heading.startsWith('^') ? blockRange(tokens, heading.slice(1).trim()) : sectionRange(tokens, heading, lines.length);
    return range ? lines.slice(range[0], range[1]).join('\n').replace(/\n+$/, '') : null;
  };
}

function sectionRange(tokens: Token[], heading: string, lineCount: number): [number, number] | null {
  const names = heading
    .split('#')
    .map((h) => h.trim())
    .filter(Boolean);
  if (names.length === 0) return null;
  const heads: Array<{ line: number; level: number; id: string }> = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.type === 'heading_open' && t.level === 0 && t.map) {
      heads.push({ line: t.map[0], level: Number(t.tag.slice(1)), id: headingId(tokens[i + 1]?.content ?? '') });
    }
  }
  let from = 0;
  let to = lineCount;
  let start = -1;
  for (const name of names) {
    const want = headingId(name);
    const at = heads.findIndex((h, k) => k > start && h.line >= from && h.line < to && h.id === want);
    if (at < 0) return null;
    start = at;
    from = heads[at].line;
    const next = heads.find((h, k) => k > at && h.level <= heads[at].level);
    to = Math.min(to, next ? next.line : lineCount);
  }
  return [from, to];
}

function blockRange(tokens: Token[], id: string): [number, number] | null {
  if (!/^[A-Za-z0-9-]{1,64}$/.test(id)) return null;
  const open: Token[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.nesting === 1) open.push(t);
    else if (t.nesting === -1) open.pop();
    if (t.type !== 'inline' || !t.content.includes(`^${id}`)) continue;
    const m = BLOCK_ID.exec(t.content);
    if (!m || m[1] !== id) continue;
    if (t.content.trim() === `^${id}`) {
      const before = openOfBlockBefore(tokens, i - 1);
      if (before?.map) return [before.map[0], before.map[1]];
    }
    const item = open.length >= 2 && open[open.length - 2].type === 'list_item_open' ? open[open.length - 2] : open[open.length - 1];
    return item?.map ? [item.map[0], item.map[1]] : null;
  }
  return null;
}
