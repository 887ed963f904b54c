// Markdown → HTML for the web app's page view and live preview: one renderer for both, on the
// server, with the link index's parser settings (parsers.ts), so what shows as a page link is
// what the index counts. Pure: the caller says which link targets exist for the reader.
//
// Safety (docs/web.md): raw HTML is not parsed (it comes out escaped); links keep only http(s),
// mailto and relative addresses (anything else stays text); images load only from this origin
// or data:image/*, and an image from elsewhere becomes a link to it, so a page never makes the
// browser fetch from another origin.
import MarkdownIt from 'markdown-it';
import type { PageRef } from '../../model.ts';
import { resolveLinkTarget, type WikiResolver } from './extract.ts';
import { resolveFileHref } from './files.ts';
import { MARKDOWN_OPTIONS } from './parsers.ts';
import { NOTHING, resolveWikilink, wikilinkPlugin, type Wikilink } from './wikilinks.ts';

type Token = ReturnType<MarkdownIt['parse']>[number];

const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;
const SAFE_SCHEME = /^(?:https?:|mailto:|data:image\/(?:gif|png|jpeg|webp);)/i;
const EXTERNAL = /^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|\/\/)/;
const EXTERNAL_REL = 'noopener noreferrer nofollow';

let md: MarkdownIt | null = null;
function renderer(): MarkdownIt {
  if (md) return md;
  md = new MarkdownIt('default', MARKDOWN_OPTIONS);
  md.use(wikilinkPlugin);
  md.validateLink = (url) => {
    const u = url.trim();
    return !SCHEME.test(u) || SAFE_SCHEME.test(u);
  };
  return md;
}

/** `${space}/${path}`: `/` cannot occur in a slug, so the key is unambiguous. */
export const refKey = (r: PageRef): string => `${r.space}/${r.path}`;

/** The app address of a page. */
export function appPageHref(ref: PageRef): string {
  return `/app/p/${encodeURIComponent(ref.space)}/${ref.path.split('/').map(encodeURIComponent).join('/')}`;
}

/** A heading's id: `h-` + its text, lowercased, spaces to `-`, punctuation dropped. */
export function headingId(text: string): string {
  const slug = text.toLowerCase().normalize('NFC').replace(/[^\p{L}\p{N}\s_-]/gu, '').trim().replace(/\s+/g, '-');
  return `h-${slug || 'section'}`;
}

export type RenderInput = {
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
  const parser = renderer();
  const env = {};
  const tokens = parser.parse(input.content, env);
  addHeadingIds(tokens);
  alignWithClasses(tokens);
  taskCheckboxes(tokens);
  const internal: Array<{ token: Token; target: PageRef; fragment: string }> = [];
  for (const block of tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const children = block.children;
    for (let i = 0; i < children.length; i++) {
      const t = children[i];
      if (t.type === 'wikilink') {
        const link = t.meta as Wikilink;
        const wiki = input.wiki ?? ((x: string, f: PageRef) => resolveWikilink(x, f, NOTHING));
        const target = wiki(link.target, input.from);
        if (!target) {
          t.type = 'text'; // no page address: the text as written
          continue;
        }
        const [open, text, close] = wikilinkTokens(t, link);
        children.splice(i, 1, open, text, close);
        internal.push({ token: open, target, fragment: link.heading ? `#${headingId(link.heading)}` : '' });
        i += 2;
        continue;
      }
      if (t.type === 'link_open') {
        const href = t.attrGet('href') ?? '';
        if (href.toLowerCase().startsWith('data:')) {
          unwrapLink(children, i); // data: is for images only
          continue;
        }
        const file = resolveFileHref(href, input.from, input.baseUrls ?? []);
        if (file) {
          t.attrSet('href', file);
          continue;
        }
        const target = resolveLinkTarget(href, input.from, input.baseUrls ?? []);
        if (target) internal.push({ token: t, target, fragment: fragmentOf(href) });
        else if (href.startsWith('#')) t.attrSet('href', `#${headingId(decodeSafe(href.slice(1)))}`);
        else if (EXTERNAL.test(href)) t.attrSet('rel', EXTERNAL_REL);
      } else if (t.type === 'image') {
        const src = t.attrGet('src') ?? '';
        const file = resolveFileHref(src, input.from, input.baseUrls ?? []);
        if (file) t.attrSet('src', file);
        else if (EXTERNAL.test(src) && !src.toLowerCase().startsWith('data:')) imageAsLink(parser, t, src);
      }
    }
  }
  const exists = internal.length ? input.existing(internal.map((l) => l.target)) : new Set<string>();
  for (const { token, target, fragment } of internal) {
    token.attrSet('href', appPageHref(target) + fragment);
    if (exists.has(refKey(target))) {
      token.attrSet('class', 'internal');
    } else {
      token.attrSet('class', 'internal broken');
      token.attrSet('data-create', `/app/new?space=${encodeURIComponent(target.space)}&path=${encodeURIComponent(target.path)}`);
    }
  }
  return parser.renderer.render(tokens, parser.options, env);
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

/** A wikilink as link tokens: its label, or the target (and heading) as written. */
function wikilinkTokens(t: Token, link: Wikilink): [Token, Token, Token] {
  const Tok = t.constructor as new (type: string, tag: string, nesting: number) => Token;
  const open = new Tok('link_open', 'a', 1);
  open.attrs = [['href', '']];
  open.markup = 'wikilink';
  const text = new Tok('text', '', 0);
  text.content = link.label ?? (link.target === '' ? link.heading! : link.heading ? `${link.target} › ${link.heading}` : link.target);
  const close = new Tok('link_close', 'a', -1);
  close.markup = 'wikilink';
  return [open, text, close];
}

function addHeadingIds(tokens: Token[]): void {
  const used = new Map<string, number>();
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i].type !== 'heading_open') continue;
    const inline = tokens[i + 1];
    const text = (inline?.children ?? []).filter((c) => c.type === 'text' || c.type === 'code_inline').map((c) => c.content).join('');
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

/** An image from another origin, shown as a link to it (its alt text as the label). */
function imageAsLink(parser: MarkdownIt, image: Token, src: string): void {
  const esc = parser.utils.escapeHtml;
  const alt = image.children?.map((c) => c.content).join('') || src;
  // Our own markup (every part escaped) through the renderer's html_inline rule, which prints content as is.
  image.type = 'html_inline';
  image.content = `<a href="${esc(src)}" rel="${EXTERNAL_REL}" class="external-image">${esc(alt)}</a>`;
  image.children = null;
  image.attrs = null;
}
