// Rewriting a page's links after a move (domain/moves.ts): every link destination that resolves
// (resolveLinkTarget, the link index's own rules) to a moved address is replaced by the new
// address, in the form `/pages/<space>/<path>` (a full URL stays a full URL under the same base),
// keeping its `#fragment` and `?query`. Inline links, images, reference definitions and
// autolinks are rewritten; fenced code blocks are left as written (links in code are not links).
import type { PageRef } from '../../model.ts';
import { resolveLinkTarget } from './extract.ts';
import { isFileTarget, parseWikilink } from './wikilinks.ts';

// `](dest` of an inline link or image, `[label]: dest` of a definition, `<scheme://…>` autolinks.
const INLINE = /(\]\(\s*)(<[^<>\n]*>|[^\s()<>]+(?:\([^\s()]*\)[^\s()<>]*)*)/g;
const DEFINITION = /^( {0,3}\[[^\]\n]+\]:[ \t]*)(<[^<>\n]*>|\S+)/gm;
const AUTOLINK = /(<)([a-zA-Z][a-zA-Z0-9+.-]*:[^\s<>]*)(?=>)/g;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
// `[[…]]`, not an embed `![[…]]`.
export const WIKILINK = /(?<!!)\[\[([^[\]\n]+)\]\]/g;
// `[[…]]` or an embed `![[…]]` (group 1: the `!`): a move rewrites both.
const WIKILINK_OR_EMBED = /(!?)\[\[([^[\]\n]+)\]\]/g;

/**
 * For a move's rewrite of wikilinks: the new target text of a wikilink from `from` whose target
 * is `target`, or null to leave it.
 */
export type WikiRewrite = (target: string, from: PageRef) => string | null;

export function hrefOf(to: PageRef): string {
  return `/pages/${to.space}/${to.path.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * `content` with its links to moved addresses (`moved`: 'space/path' → new address) rewritten;
 * wikilinks through `wiki`, keeping their `#heading` and `|label` (`keepText`: a wikilink with
 * no label gets its old target as the label, so it reads as before).
 */
export function rewriteLinks(
  content: string,
  from: PageRef,
  moved: Map<string, PageRef>,
  baseUrls: string[],
  wiki?: WikiRewrite,
  keepText = false,
): string {
  const rewriteWiki = (m: string, bang: string, inner: string): string => {
    const link = wiki && parseWikilink(inner);
    if (!link || link.target === '' || (bang && isFileTarget(link.target))) return m;
    const to = wiki(link.target, from);
    if (to === null) return m;
    const bar = inner.includes('\\|') ? '\\|' : '|';
    const label = link.label ?? (keepText && !bang ? link.target : null); // an embed's `|…` is its size, not a label
    return `${bang}[[${to}${link.heading ? `#${link.heading}` : ''}${label ? `${bar}${label}` : ''}]]`;
  };
  const rewriteDest = (dest: string): string => {
    const angle = dest.startsWith('<') && dest.endsWith('>');
    const raw = angle ? dest.slice(1, -1) : dest;
    const target = resolveLinkTarget(raw, from, baseUrls);
    if (!target) return dest;
    const to = moved.get(`${target.space}/${target.path}`);
    if (!to) return dest;
    const cut = raw.search(/[?#]/);
    const suffix = cut < 0 ? '' : raw.slice(cut);
    const base = /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(raw) ? baseUrls.find((b) => raw.startsWith(b.replace(/\/+$/, ''))) : undefined;
    const href = (base ? base.replace(/\/+$/, '') : '') + hrefOf(to) + suffix;
    return angle ? `<${href}>` : href;
  };
  return outsideFences(content, (text) => {
    // Nothing moved (an import respelling wikilinks only): the other link forms stay as they are.
    const links =
      moved.size === 0
        ? text
        : text
            .replace(INLINE, (_m, pre: string, dest: string) => pre + rewriteDest(dest))
            .replace(DEFINITION, (_m, pre: string, dest: string) => pre + rewriteDest(dest))
            .replace(AUTOLINK, (_m, pre: string, dest: string) => pre + rewriteDest(dest));
    return wiki ? links.replace(WIKILINK_OR_EMBED, rewriteWiki) : links;
  });
}

/** `content` with `fn` applied to the text outside fenced code blocks (links in code are not links). */
export function outsideFences(content: string, fn: (text: string) => string): string {
  const out: string[] = [];
  let fence: string | null = null;
  let chunk: string[] = [];
  const flush = () => {
    if (chunk.length === 0) return;
    out.push(fn(chunk.join('\n')));
    chunk = [];
  };
  for (const line of content.split('\n')) {
    const m = FENCE.exec(line);
    if (fence === null) {
      if (m) {
        flush();
        fence = m[1][0].repeat(m[1].length);
        out.push(line);
      } else chunk.push(line);
    } else {
      out.push(line);
      if (m && m[1].startsWith(fence)) fence = null;
    }
  }
  flush();
  return out.join('\n');
}
