// `[[` completion: typing `[[` (and then letters) opens a listbox of page titles; choosing one
// (arrows and Enter, or a click) inserts the wikilink. Part of the editor chunk.
import { autocompletion, type Completion, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import type { EditorView } from '@codemirror/view';
import type { Extension } from '@codemirror/state';

export interface TitleHit {
  space: string;
  path: string;
  title: string;
}

export interface WikilinkSource {
  /** Pages whose title words start with `q` (GET /search/titles); with `q` empty, some pages of the space. */
  titles: (q: string) => Promise<TitleHit[]>;
  /** The space of the page being edited: a page of another space is linked as `space/path`. */
  space: () => string;
}

// `[[` then the text typed since, on one line, without brackets or a `|`.
const OPEN = /\[\[[^[\]|\n]*$/;
// Characters a wikilink's target cannot hold as written (a `#` would start a heading).
const UNSAFE_TITLE = /[[\]|#\n]/;

/** Case- and accent-folded, as the server compares titles. */
function fold(s: string): string {
  return s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().trim();
}

/**
 * The wikilink for `hit`: `[[Title]]` when the title alone names it; `[[/path|Title]]` (from the
 * space's root) when another page of the space has that title or that path; `[[space/path|Title]]`
 * for a page of another space. (A wikilink's first segment names another space only when it is
 * not the linking page's own: docs/search.md "Wikilinks".)
 */
export function wikilinkFor(hit: TitleHit, hits: readonly TitleHit[], space: string): string {
  const label = hit.title.replace(/[[\]|\n]/g, ' ').trim();
  const withLabel = (target: string): string => (label ? `[[${target}|${label}]]` : `[[${target}]]`);
  if (hit.space !== space) return withLabel(`${hit.space}/${hit.path}`);
  const title = fold(hit.title);
  const clash = hits.some((h) => h !== hit && h.space === space && (fold(h.title) === title || fold(h.path) === title));
  if (clash || UNSAFE_TITLE.test(hit.title) || hit.title.trim() !== hit.title || hit.title === '') return withLabel(`/${hit.path}`);
  return `[[${hit.title}]]`;
}

function apply(text: string) {
  return (view: EditorView, _c: Completion, from: number, to: number): void => {
    // A `]]` already after the cursor (typed or left from before) is part of the link being replaced.
    const end = view.state.sliceDoc(to, to + 2) === ']]' ? to + 2 : to;
    view.dispatch({
      changes: { from, to: end, insert: text },
      selection: { anchor: from + text.length },
      scrollIntoView: true,
      userEvent: 'input.complete',
    });
  };
}

export function wikilinkCompletion(source: WikilinkSource): Extension {
  const complete = async (ctx: CompletionContext): Promise<CompletionResult | null> => {
    const m = ctx.matchBefore(OPEN);
    if (!m) return null;
    const q = m.text.slice(2);
    let hits: TitleHit[];
    try {
      hits = await source.titles(q.trim());
    } catch {
      return null;
    }
    if (ctx.aborted) return null;
    const space = source.space();
    // The page's own space first, the server's order kept within each part.
    hits = [...hits.filter((h) => h.space === space), ...hits.filter((h) => h.space !== space)];
    const options = hits.map(
      (h): Completion => ({
        label: h.title || h.path,
        detail: h.space === space ? h.path : `${h.space}/${h.path}`,
        type: 'text',
        apply: apply(wikilinkFor(h, hits, space)),
      }),
    );
    if (options.length === 0) return null;
    // `filter: false`: the server matched (word prefixes, folded, aliases and paths too).
    return { from: m.from, to: ctx.pos, options, filter: false };
  };
  return autocompletion({ override: [complete], icons: false, activateOnTyping: true, closeOnBlur: true });
}
