// Footnotes (`text[^1]` with `[^1]: the note`, and inline `^[the note]`) through
// markdown-it-footnote, in linear time on any text, with ids that cannot clobber the app
// (docs/markdown.md "Footnotes", docs/security.md "Rendering").
import type MarkdownIt from 'markdown-it';
import footnote from 'markdown-it-footnote';
import type { PageRef } from '../../model.ts';

type InlineRule = Parameters<MarkdownIt['inline']['ruler']['at']>[1];
type BlockRule = Parameters<MarkdownIt['block']['ruler']['at']>[1];

/** The longest footnote label read (`[^label]`): the plugin scans a label to its `]` from every `[^`. */
const LABEL_MAX = 64;
/** Inline footnotes nest at most this deep (each level parses its text again). */
const INLINE_DEPTH = 3;
const DEPTH = Symbol('footnote depth');

/** Whether `src` from `at` (just after `[^`) holds a `]`, space or line end within LABEL_MAX characters. */
function labelEnds(src: string, at: number, max: number): boolean {
  const end = Math.min(max, at + LABEL_MAX + 1);
  for (let i = at; i < end; i++) {
    const c = src.charCodeAt(i);
    if (c === 0x5d || c === 0x20 || c === 0x0a) return true;
  }
  return end === max;
}

/**
 * markdown-it-footnote with its scans bounded. From each `[^` the plugin reads on to the next
 * `]`, space or line end: `[^a` ×20,000 after one definition took it 10 s at 64 KiB. Here a label
 * is at most LABEL_MAX characters, so a `[^` costs at most that; inline footnotes nest at most
 * INLINE_DEPTH deep. `tail: false` (the link index's parsers) leaves the definitions where they
 * are instead of gathering them at the end, so the inline pass run later still finds their links.
 */
export function footnotes(md: MarkdownIt, opts: { tail: boolean }): void {
  // The plugin's types are written for markdown-it's CommonJS types; it is the same function.
  md.use(footnote as unknown as (md: MarkdownIt) => void);
  const inline = md.inline.ruler.getRules('');
  const ref = inline.find((f) => f.name === 'footnote_ref');
  const note = inline.find((f) => f.name === 'footnote_inline');
  const def = md.block.ruler.getRules('').find((f) => f.name === 'footnote_def');
  if (!ref || !note || !def) throw new Error('markdown-it-footnote: rules not found');
  md.inline.ruler.at('footnote_ref', ((state, silent) => {
    if (state.src.charCodeAt(state.pos + 1) !== 0x5e || !labelEnds(state.src, state.pos + 2, state.posMax)) return false;
    return ref(state, silent);
  }) satisfies InlineRule);
  md.inline.ruler.at('footnote_inline', ((state, silent) => {
    const env = state.env as { [DEPTH]?: number };
    const depth = env[DEPTH] ?? 0;
    if (depth >= INLINE_DEPTH) return false;
    env[DEPTH] = depth + 1;
    try {
      return note(state, silent);
    } finally {
      env[DEPTH] = depth;
    }
  }) satisfies InlineRule);
  md.block.ruler.at(
    'footnote_def',
    ((state, startLine, endLine, silent) => {
      const start = state.bMarks[startLine] + state.tShift[startLine];
      if (state.src.charCodeAt(start) !== 0x5b || !labelEnds(state.src, start + 2, state.eMarks[startLine])) return false;
      return def(state, startLine, endLine, silent);
    }) satisfies BlockRule,
    { alt: ['paragraph', 'reference'] },
  );
  if (!opts.tail) md.core.ruler.disable('footnote_tail');
}

/**
 * The `docId` of a page's footnotes: the plugin writes ids `fn-<docId>-<n>` and `fnref-<docId>-<n>`,
 * so a page's notes and those of a page embedded in it never share an id. 32 bits of FNV-1a
 * of the page's address, in base 36.
 */
export function footnoteDocId(ref: PageRef): string {
  let h = 0x811c9dc5;
  const s = `${ref.space}/${ref.path}`;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}
