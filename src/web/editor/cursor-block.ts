// Which top-level Markdown block holds the cursor, for the preview to follow it (scroll sync).
// The blocks come from the editor's own parse (lezer), each as the HTML element markdown-it
// renders it to, so the preview can pair them with its top-level elements in order
// (src/web/lib/scroll-sync.ts). Reported a moment after the cursor stops moving: never on the
// keystroke's own path.
import { ensureSyntaxTree, syntaxTree } from '@codemirror/language';
import type { EditorState, Extension } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { whenQuiet } from '../lib/when-quiet.ts';

export interface CursorBlocks {
  /** Each top-level block's element name (`p`, `h2`, `ul`, `pre`…), in order. */
  tags: string[];
  /** The index in `tags` of the block the cursor is in (or the last one before it). */
  at: number;
  /** The cursor's line as a fraction of the text (for when blocks cannot be paired). */
  fraction: number;
}

const TAGS: Record<string, string> = {
  Paragraph: 'p',
  BulletList: 'ul',
  OrderedList: 'ol',
  FencedCode: 'pre',
  CodeBlock: 'pre',
  Blockquote: 'blockquote',
  HorizontalRule: 'hr',
  Table: 'table',
  // Raw HTML is off on the server: these render as paragraphs of text.
  HTMLBlock: 'p',
  CommentBlock: 'p',
  ProcessingInstructionBlock: 'p',
};

function tagOf(name: string): string | null {
  const atx = /^ATXHeading(\d)$/.exec(name);
  if (atx) return `h${atx[1]}`;
  const setext = /^SetextHeading(\d)$/.exec(name);
  if (setext) return `h${setext[1]}`;
  return TAGS[name] ?? null; // LinkReference and the like render nothing
}

export function cursorBlocks(state: EditorState): CursorBlocks {
  const tree = ensureSyntaxTree(state, state.doc.length, 50) ?? syntaxTree(state);
  const head = state.selection.main.head;
  const tags: string[] = [];
  let at = 0;
  const cur = tree.cursor();
  if (cur.firstChild()) {
    do {
      const tag = tagOf(cur.name);
      if (!tag) continue;
      if (cur.from <= head) at = tags.length;
      tags.push(tag);
    } while (cur.nextSibling());
  }
  const lines = state.doc.lines;
  return { tags, at, fraction: lines > 1 ? (state.doc.lineAt(head).number - 1) / (lines - 1) : 0 };
}

/** Calls `report` a short while after the cursor moved or the text changed (once things are still). */
export function cursorBlockReporter(report: (b: CursorBlocks) => void, delay = 150): Extension {
  let view: EditorView | null = null;
  const quiet = whenQuiet(delay, () => {
    if (view?.dom.isConnected) report(cursorBlocks(view.state));
  });
  return EditorView.updateListener.of((u) => {
    if (!u.selectionSet && !u.docChanged) return;
    view = u.view;
    quiet.poke();
  });
}
