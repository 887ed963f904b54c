// Markdown → HTML for the web app's page view and live preview: one renderer for both, on the
// server, with the link index's parser settings (parsers.ts), so what shows as a page link is
// what the index counts. Pure: the caller says which link targets exist for the reader.
//
// Safety (docs/web.md): raw HTML is not parsed (it comes out escaped); links keep only http(s),
// mailto and relative addresses (anything else stays text); an image loads only from an attached
// file (`/files/…`, or `files/<name>` of the page itself) or a data:image/(gif|png|jpeg|webp), and
// any other image becomes a link to its address: a page never makes a reader's browser fetch from
// another origin, nor request any other address of this one (an export, an API GET) by itself.
import MarkdownIt from 'markdown-it';
import type { PageRef } from '../../model.ts';
import { resolveLinkTarget, type WikiResolver } from './extract.ts';
import { resolveFileHref } from './files.ts';
import { MARKDOWN_OPTIONS, normalizeLinkFast } from './parsers.ts';
import { NOTHING, isFileTarget, mediaKind, resolveWikilink, wikilinkPlugin, type Wikilink } from './wikilinks.ts';
import { blockAnchor, obsidianSyntax } from './obsidian-syntax.ts';
import { embedUnavailable, isStandalone, mediaHtml, splitSize } from './embeds.ts';
import { headingId } from './heading-id.ts';
import { footnoteDocId, footnotes } from './footnotes.ts';
import { escapeText } from './escape-text.ts';

type Token = ReturnType<MarkdownIt['parse']>[number];

const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;
const SAFE_SCHEME = /^(?:https?:|mailto:|data:image\/(?:gif|png|jpeg|webp);)/i;
const EXTERNAL = /^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|\/\/)/;
const EXTERNAL_REL = 'noopener noreferrer nofollow';
const DATA_IMAGE = /^data:image\/(?:gif|png|jpeg|webp);/i;

let md: MarkdownIt | null = null;
function renderer(): MarkdownIt {
  if (md) return md;
  md = new MarkdownIt('default', MARKDOWN_OPTIONS);
  md.use(wikilinkPlugin);
  md.use(obsidianSyntax);
  footnotes(md, { tail: true });
  md.validateLink = (url) => {
    const u = url.trim();
    return !SCHEME.test(u) || SAFE_SCHEME.test(u);
  };
  md.normalizeLink = normalizeLinkFast(md.normalizeLink.bind(md)); // as the link parsers (parsers.ts says why)
  return md;
}

/** `${space}/${path}`: `/` cannot occur in a slug, so the key is unambiguous. */
export const refKey = (r: PageRef): string => `${r.space}/${r.path}`;

/** The app address of a page. */
export function appPageHref(ref: PageRef): string {
  return `/app/p/${encodeURIComponent(ref.space)}/${ref.path.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * The fragment of a wikilink's `#heading`: `#^id` a block (blockAnchor), `#A#B` heading B (under
 * A: the last heading named), else the heading's id; '' for none.
 */
export function headingFragment(heading: string | null): string {
  if (!heading) return '';
  if (heading.startsWith('^')) return /^\^[A-Za-z0-9-]{1,64}$/.test(heading) ? `#${blockAnchor(heading.slice(1))}` : '';
  const parts = heading
    .split('#')
    .map((h) => h.trim())
    .filter(Boolean);
  return parts.length ? `#${headingId(parts[parts.length - 1])}` : '';
}

type RenderInput = {
  content: string;
  /** The page the content belongs to: relative links resolve against its folder. */
  from: PageRef;
  baseUrls?: string[];
  /** Which of these link targets exist for the reader (a page the reader may not read does not). */
  existing: (targets: PageRef[]) => Set<string>;
  /** Where a wikilink points for the reader (default: its address as if no page existed). */
  wiki?: WikiResolver;
};

export function renderMarkdown(input: RenderInput): string {
  const parts = renderParts(input.content, input.from, input.baseUrls ?? []);
  const targets = linkTargets(parts, input.from, input.wiki);
  const present = targets.filter((t): t is PageRef => t !== null);
  return finishRender(parts, targets, present.length ? input.existing(present) : new Set());
}

/**
 * A link whose address depends on the reader: a page link (target known), a wikilink (resolved
 * per reader) or an embed of a page (`embed`: its HTML is filled in per reader, finishRender).
 */
type PartLink = { target: PageRef; fragment: string } | { wiki: Wikilink; label: string; raw: string; embed?: true };

/**
 * The HTML of some Markdown with a marker for each internal link (`\0n\0` as its href and
 * `\0c="n"` for its class, or `\0wn\0` for a whole wikilink), and the links the markers stand
 * for. The same for every reader, so it is cached and can be made off the event loop;
 * finishRender fills in what depends on the reader. NUL never occurs in the HTML otherwise
 * (markdown-it turns every NUL of the text into U+FFFD).
 */
export type RenderParts = { html: string; links: PartLink[] };

export function renderParts(content: string, from: PageRef, baseUrls: string[]): RenderParts {
  const parser = renderer();
  const env = { docId: footnoteDocId(from) };
  const tokens = parser.parse(content, env);
  addHeadingIds(tokens);
  alignWithClasses(tokens);
  taskCheckboxes(tokens);
  const links: PartLink[] = [];
  const esc = parser.utils.escapeHtml;
  for (let b = 0; b < tokens.length; b++) {
    const block = tokens[b];
    if (block.type !== 'inline' || !block.children) continue;
    const children = block.children;
    // A paragraph of embeds only is no paragraph: an embed is a block of its own.
    if (isStandalone(children) && tokens[b - 1]?.type === 'paragraph_open' && tokens[b + 1]?.type === 'paragraph_close') {
      tokens[b - 1].hidden = tokens[b + 1].hidden = true;
    }
    for (let i = 0; i < children.length; i++) {
      const t = children[i];
      if (t.type === 'wikiembed') {
        const link = t.meta as Wikilink;
        t.type = 'html_inline';
        if (isFileTarget(link.target)) {
          t.content = fileEmbed(link, from, baseUrls) ?? esc(t.content);
          continue;
        }
        links.push({ wiki: link, label: wikiLabel(link), raw: t.content, embed: true });
        t.content = `\0w${links.length - 1}\0`;
        continue;
      }
      if (t.type === 'wikilink') {
        const link = t.meta as Wikilink;
        const label = wikiLabel(link);
        if (isFileTarget(link.target)) {
          // `[[shot.png|see screenshot]]`: a link to the page's attached file of that name
          const file = resolveFileHref(`files/${encodeURIComponent(baseName(link.target))}`, from, baseUrls);
          t.type = 'html_inline';
          t.content = file ? `<a href="${esc(file)}" class="file-link">${esc(label)}</a>` : esc(t.content);
          continue;
        }
        links.push({ wiki: link, label, raw: t.content });
        // Printed as is (html_inline): the marker, which finishRender replaces by escaped markup.
        t.type = 'html_inline';
        t.content = `\0w${links.length - 1}\0`;
        continue;
      }
      if (t.type === 'link_open') {
        const href = t.attrGet('href') ?? '';
        if (href.toLowerCase().startsWith('data:')) {
          unwrapLink(children, i); // data: is for images only
          continue;
        }
        const file = resolveFileHref(href, from, baseUrls);
        if (file) {
          t.attrSet('href', file);
          continue;
        }
        const target = resolveLinkTarget(href, from, baseUrls);
        if (target) {
          t.attrSet('href', `\0${links.length}\0`);
          t.attrs!.push(['\0c', String(links.length)]);
          links.push({ target, fragment: fragmentOf(href) });
        } else if (href.startsWith('#')) t.attrSet('href', `#${headingId(decodeSafe(href.slice(1)))}`);
        else if (EXTERNAL.test(href)) t.attrSet('rel', EXTERNAL_REL);
      } else if (t.type === 'image') {
        const src = t.attrGet('src') ?? '';
        const file = resolveFileHref(src, from, baseUrls);
        if (file) fileImage(parser, t, file, src);
        else if (!DATA_IMAGE.test(src)) imageAsLink(parser, t, src);
      }
    }
  }
  return { html: parser.renderer.render(tokens, parser.options, env), links };
}

const TASK = /^\[([ xX])\][ \t]/;

/**
 * `- [ ] text` and `- [x] text` list items as checkboxes labelled by their text: the item's first
 * paragraph becomes `<label><input type="checkbox" data-line="N"> text</label>` (N: the item's
 * first source line, 0-based, which the page view's tick rewrites). One pass; each item looks
 * only at its own first text token.
 */
function taskCheckboxes(tokens: Token[]): void {
  for (let i = 0; i + 2 < tokens.length; i++) {
    const item = tokens[i];
    if (item.type !== 'list_item_open' || tokens[i + 1].type !== 'paragraph_open') continue;
    const inline = tokens[i + 2];
    const first = inline.children?.[0];
    if (inline.type !== 'inline' || !first || first.type !== 'text') continue;
    const m = TASK.exec(first.content);
    if (!m || !item.map) continue;
    first.content = first.content.slice(m[0].length);
    const Tok = first.constructor as new (type: string, tag: string, nesting: number) => Token;
    const open = new Tok('html_inline', '', 0);
    open.content = `<label class="task"><input type="checkbox" class="task"${m[1] === ' ' ? '' : ' checked'} data-line="${item.map[0]}"> `;
    const close = new Tok('html_inline', '', 0);
    close.content = '</label>';
    inline.children!.unshift(open);
    inline.children!.push(close);
    item.attrJoin('class', 'task-item');
  }
}

const MARKER = /\0(w?)(\d+)\0|\0c="(\d+)"/g;

/**
 * Where each link of `parts` points for a reader (null: a wikilink that names no page address),
 * wikilinks through `wiki` (by default as if no page existed), each distinct target once.
 */
export function linkTargets(parts: RenderParts, from: PageRef, wiki?: WikiResolver): Array<PageRef | null> {
  const resolve = wiki ?? ((x: string, f: PageRef) => resolveWikilink(x, f, NOTHING));
  const resolved = new Map<string, PageRef | null>();
  return parts.links.map((l) => {
    if ('target' in l) return l.target;
    let r = resolved.get(l.wiki.target);
    if (r === undefined) resolved.set(l.wiki.target, (r = resolve(l.wiki.target, from)));
    return r;
  });
}

/**
 * The HTML for one reader: each marker of `parts` replaced by its link, pointing at `targets`
 * (linkTargets), marked broken unless its target's key (refKey) is in `exists`. Pure.
 */
export function finishRender(
  parts: RenderParts,
  targets: Array<PageRef | null>,
  exists: Set<string>,
  embeds: Record<number, string> = {},
): string {
  if (parts.links.length === 0) return parts.html;
  const esc = renderer().utils.escapeHtml;
  const classOf = (target: PageRef): string =>
    exists.has(refKey(target))
      ? 'class="internal"'
      : `class="internal broken" data-create="${esc(`/app/new?space=${encodeURIComponent(target.space)}&path=${encodeURIComponent(target.path)}`)}"`;
  return parts.html.replace(MARKER, (_m, _w: string, n: string | undefined, c: string | undefined) => {
    if (c !== undefined) return classOf(targets[Number(c)]!);
    const i = Number(n);
    const link = parts.links[i];
    if ('target' in link) return esc(appPageHref(link.target) + link.fragment);
    if (link.embed) return embeds[i] ?? embedUnavailable(link.label);
    const target = targets[i];
    if (!target) return esc(link.raw); // no page address: the text as written
    const fragment = headingFragment(link.wiki.heading);
    return `<a href="${esc(appPageHref(target) + fragment)}" ${classOf(target)}>${esc(link.label)}</a>`;
  });
}

/** How much of the content the fallback shows: escaping and sending all of 2 MiB took seconds of the event loop. */
const UNRENDERED_SHOWN_CHARS = 64 * 1024;

/** The start of the content as it is written, escaped, for when rendering it took too long. */
export function unrenderedParts(content: string): RenderParts {
  const cut = content.length > UNRENDERED_SHOWN_CHARS;
  const text = escapeText(cut ? content.slice(0, UNRENDERED_SHOWN_CHARS) : content);
  const note = cut ? `its first ${UNRENDERED_SHOWN_CHARS / 1024} KiB follow as written` : 'its text follows as written';
  return {
    html: `<p class="unrendered">This page took too long to render; ${note}.</p>\n<pre class="unrendered">${text}</pre>\n`,
    links: [],
  };
}

function addHeadingIds(tokens: Token[]): void {
  const used = new Map<string, number>();
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i].type !== 'heading_open') continue;
    const inline = tokens[i + 1];
    const text = (inline?.children ?? [])
      .filter((c) => c.type === 'text' || c.type === 'code_inline')
      .map((c) => c.content)
      .join('');
    const base = headingId(text);
    const n = used.get(base) ?? 0;
    used.set(base, n + 1);
    tokens[i].attrSet('id', n === 0 ? base : `${base}-${n + 1}`);
  }
}

/**
 * Table cell alignment as a class (`align-left|center|right`): markdown-it writes a style
 * attribute, which the app's Content-Security-Policy (no 'unsafe-inline' styles) would block.
 */
function alignWithClasses(tokens: Token[]): void {
  for (const t of tokens) {
    if (t.type !== 'th_open' && t.type !== 'td_open') continue;
    const m = /^text-align:(left|center|right)$/.exec(t.attrGet('style') ?? '');
    t.attrs = m ? [['class', `align-${m[1]}`]] : null;
  }
}

/** `#x` of an href, as a heading id of the target page (empty when there is none). */
function fragmentOf(href: string): string {
  const h = href.indexOf('#');
  return h < 0 || h === href.length - 1 ? '' : `#${headingId(decodeSafe(href.slice(h + 1)))}`;
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Drops a link's open and close tokens, keeping its text. */
function unwrapLink(children: Token[], openIndex: number): void {
  children[openIndex].type = 'text';
  children[openIndex].tag = '';
  children[openIndex].content = '';
  children[openIndex].attrs = null;
  for (let j = openIndex + 1; j < children.length; j++) {
    if (children[j].type === 'link_close') {
      children[j].type = 'text';
      children[j].tag = '';
      children[j].content = '';
      return;
    }
  }
}

/** How a wikilink reads when it has no label: its target, and its heading after `›`. */
function wikiLabel(link: Wikilink): string {
  if (link.label) return link.label;
  const heading = link.heading?.replace(/#/g, ' › ') ?? null;
  return link.target === '' ? heading! : heading ? `${link.target} › ${heading}` : link.target;
}

const baseName = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/**
 * `![[name.png|100x145]]`, `![[clip.mp4]]`, `![[doc.pdf]]`: the page's attached file of that
 * name as an image, a player or a link (mediaHtml); null when it can be no file address.
 */
function fileEmbed(link: Wikilink, from: PageRef, baseUrls: string[]): string | null {
  const name = baseName(link.target);
  const url = resolveFileHref(`files/${encodeURIComponent(name)}`, from, baseUrls);
  if (!url) return null;
  const { size } = splitSize(link.label ? `|${link.label}` : '');
  return mediaHtml(mediaKind(name) ?? 'image', url, name, size, link.heading);
}

/**
 * An image of an attached file: by its extension an image (`![alt|100](…)` and `|100x145` give
 * its size, as in Obsidian), an audio or a video player, or a PDF link (mediaHtml).
 */
function fileImage(parser: MarkdownIt, image: Token, url: string, src: string): void {
  const alt = parser.renderer.renderInlineAsText(image.children ?? [], parser.options, {});
  const { text, size } = splitSize(alt);
  const path = url.replace(/[?#].*$/, '');
  image.type = 'html_inline';
  const hint = /#([A-Za-z0-9-]{1,32})$/.exec(src)?.[1] ?? null; // `files/x.svg#icon`: a display hint
  image.content = mediaHtml(mediaKind(decodeSafe(path)) ?? 'image', url, text, size, hint, image.attrGet('title'));
  image.children = null;
  image.attrs = null;
}

/** An image that is neither an attached file nor data:, shown as a link to it (its alt text as the label). */
function imageAsLink(parser: MarkdownIt, image: Token, src: string): void {
  const esc = parser.utils.escapeHtml;
  const alt = image.children?.map((c) => c.content).join('') || src;
  // Our own markup (every part escaped) through the renderer's html_inline rule, which prints content as is.
  image.type = 'html_inline';
  image.content = `<a href="${esc(src)}" rel="${EXTERNAL_REL}" class="external-image">${esc(alt)}</a>`;
  image.children = null;
  image.attrs = null;
}
