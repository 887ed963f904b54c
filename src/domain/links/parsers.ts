// The markdown-it parsers, in one place: the link index's (extract.ts) and the renderer's
// (render.ts) share their settings, so a page view shows as links exactly what the index counts.
import MarkdownIt from 'markdown-it';
import { footnotes } from './footnotes.ts';
import { wikilinkPlugin } from './wikilinks.ts';

/** CommonMark + GFM tables/strikethrough, raw HTML not parsed, bare URLs linked. */
export const MARKDOWN_OPTIONS = { html: false, linkify: true } as const;

// The two parsers are built on first use, not at import: building them (linkify's patterns, the
// rule chains) took ~5 ms of a cold start whose first request parses no Markdown.
let parsers: { plain: MarkdownIt; linkify: MarkdownIt } | null = null;
export function getLinkParsers(): { plain: MarkdownIt; linkify: MarkdownIt } {
  if (parsers) return parsers;
  const plain = new MarkdownIt('default', { html: false, linkify: false }).disable([
    'normalize',
    'inline',
    'replacements',
    'smartquotes',
    'text_join', // core: inline runs below
    'emphasis',
    'strikethrough',
    'entity',
    'newline',
    'balance_pairs',
    'fragments_join',
  ]);
  const linkify = new MarkdownIt('default', MARKDOWN_OPTIONS);
  plain.use(wikilinkPlugin);
  linkify.use(wikilinkPlugin);
  // Footnote definitions are no reference definitions, and `[^1]` no link (as the renderer reads them).
  footnotes(plain, { tail: false });
  footnotes(linkify, { tail: false });
  plain.normalizeLink = linkify.normalizeLink = normalizeLinkFast(plain.normalizeLink.bind(plain));
  return (parsers = { plain, linkify });
}

// markdown-it puts every link destination through mdurl's parse, format and percent-encoding,
// which build the result a character at a time: ~1.3 KB of garbage a link, a tenth of what a
// benchmark page write allocates. A destination with no scheme (no `:`), no host (no leading
// `//`) and only characters the encoding keeps (no `%`, no space, nothing outside ASCII)
// comes out of that unchanged, so it is returned as it is; anything else takes the full path.
const UNCHANGED_BY_NORMALIZE = /^(?!\/\/)[A-Za-z0-9\-._~!$&'()*+,;=@/?#]*$/;

/** markdown-it's normalizeLink, skipped where it is the identity (see above). */
export function normalizeLinkFast(full: (url: string) => string): (url: string) => string {
  return (url) => (UNCHANGED_BY_NORMALIZE.test(url) ? url : full(url));
}
