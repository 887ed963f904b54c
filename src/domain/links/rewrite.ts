// Rewriting a page's links after a move (domain/moves.ts): every link destination that resolves
// (resolveLinkTarget, the link index's own rules) to a moved address is replaced by the new
// address, in the form `/pages/<space>/<path>` (a full URL stays a full URL under the same base),
// keeping its `#fragment` and `?query`. Inline links, images, reference definitions and
// autolinks are rewritten; fenced code blocks are left as written (links in code are not links).
import type { PageRef } from '../../model.ts';
import { resolveLinkTarget } from './extract.ts';

// `](dest` of an inline link or image, `[label]: dest` of a definition, `<scheme://…>` autolinks.
const INLINE = /(\]\(\s*)(<[^<>\n]*>|[^\s()<>]+(?:\([^\s()]*\)[^\s()<>]*)*)/g;
const DEFINITION = /^( {0,3}\[[^\]\n]+\]:[ \t]*)(<[^<>\n]*>|\S+)/gm;
const AUTOLINK = /(<)([a-zA-Z][a-zA-Z0-9+.-]*:[^\s<>]*)(?=>)/g;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export function hrefOf(to: PageRef): string {
  return `/pages/${to.space}/${to.path.split('/').map(encodeURIComponent).join('/')}`;
}

/** `content` with its links to moved addresses (`moved`: 'space/path' → new address) rewritten. */
export function rewriteLinks(content: string, from: PageRef, moved: Map<string, PageRef>, baseUrls: string[]): string {
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
  const out: string[] = [];
  let fence: string | null = null;
  let chunk: string[] = [];
  const flush = () => {
    if (chunk.length === 0) return;
    out.push(chunk.join('\n')
      .replace(INLINE, (_m, pre: string, dest: string) => pre + rewriteDest(dest))
      .replace(DEFINITION, (_m, pre: string, dest: string) => pre + rewriteDest(dest))
      .replace(AUTOLINK, (_m, pre: string, dest: string) => pre + rewriteDest(dest)));
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
