// The Markdown editor (CodeMirror 6). This module is its own chunk, loaded by dynamic import only
// where text is edited. Styles CodeMirror injects carry the CSP nonce from <meta name="csp-nonce">.
import { EditorState, Transaction } from '@codemirror/state';
import { EditorView, keymap, placeholder as placeholderExt, highlightActiveLine } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab, isolateHistory } from '@codemirror/commands';
import { Language, LanguageSupport, defineLanguageFacet, syntaxHighlighting, defaultHighlightStyle } from '@codemirror/language';
import { parser as markdownParser, GFM } from '@lezer/markdown';
import { cursorBlockReporter, type CursorBlocks } from './cursor-block.ts';
import { fileDrop, type AttachFile } from './file-drop.ts';
import { formatKeymap } from './format-keys.ts';
import { wikilinkCompletion, type WikilinkSource } from './wikilink-completion.ts';

export type { AttachFile, CursorBlocks, WikilinkSource };

// Markdown straight from @lezer/markdown: @codemirror/lang-markdown would bring the HTML, CSS and
// JavaScript languages along, past the editor chunk's budget (docs/performance.md).
const markdownLanguage = new Language(
  defineLanguageFacet({ commentTokens: { block: { open: '<!--', close: '-->' } } }),
  markdownParser.configure(GFM),
  [],
  'markdown',
);
export const markdown = (): LanguageSupport => new LanguageSupport(markdownLanguage);

export interface EditorOptions {
  doc: string;
  label: string;
  describedBy?: string;
  placeholder?: string;
  /** Called on each change with a reader of the text: reading it (a 20 KB string) waits for who needs it. */
  onChange: (text: () => string) => void;
  onSave?: () => void;
  /** `[[` completion over page titles. */
  wikilinks?: WikilinkSource;
  /** Pasted and dropped files: uploads each, resolves to the address to link. */
  attach?: AttachFile;
  /** Where the cursor is among the text's blocks, for the preview to follow. */
  onCursor?: (b: CursorBlocks) => void;
}

/**
 * The editor owns its text: typing changes it, `onChange` reports each change out, and nothing the
 * app renders writes it back. `replace` is the one way in (a restored draft, a merge, a template).
 */
export interface EditorHandle {
  replace: (doc: string) => void;
  text: () => string;
  focus: (at?: { anchor: number; head: number }) => void;
  destroy: () => void;
}

/** The smallest change turning `a` into `b`: what differs between their common start and end. */
export function diffRange(a: string, b: string): { from: number; to: number; insert: string } {
  let start = 0;
  const max = Math.min(a.length, b.length);
  while (start < max && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  let end = 0;
  while (end < max - start && a.charCodeAt(a.length - 1 - end) === b.charCodeAt(b.length - 1 - end)) end++;
  return { from: start, to: a.length - end, insert: b.slice(start, b.length - end) };
}

function cspNonce(): string {
  return document.querySelector('meta[name="csp-nonce"]')?.getAttribute('content') ?? '';
}

export function createEditor(parent: HTMLElement, opts: EditorOptions): EditorHandle {
  // tabindex 0 (where contenteditable already is in the tab order): axe then sees the scroller as
  // holding focusable content (scrollable-region-focusable) in a long page.
  const attrs: Record<string, string> = { 'aria-label': opts.label, 'aria-multiline': 'true', spellcheck: 'true', tabindex: '0' };
  if (opts.describedBy) attrs['aria-describedby'] = opts.describedBy;
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: opts.doc,
      extensions: [
        EditorView.cspNonce.of(cspNonce()),
        history(),
        // No drawSelection(): the browser's own caret and selection (one range is all the editor
        // allows) cost no layer to measure and redraw on every keystroke.
        highlightActiveLine(),
        markdown(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        EditorView.lineWrapping,
        placeholderExt(opts.placeholder ?? ''),
        opts.wikilinks ? wikilinkCompletion(opts.wikilinks) : [],
        opts.attach ? fileDrop(opts.attach) : [],
        opts.onCursor ? cursorBlockReporter(opts.onCursor) : [],
        keymap.of([
          {
            key: 'Mod-s',
            preventDefault: true,
            run: () => {
              opts.onSave?.();
              return true;
            },
          },
          ...formatKeymap,
          indentWithTab,
          ...defaultKeymap,
          ...historyKeymap,
        ]),
        EditorView.contentAttributes.of(attrs),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) {
            const doc = u.state.doc;
            opts.onChange(() => doc.toString());
          }
        }),
      ],
    }),
  });
  return {
    // Only the part that differs is replaced, so the selection maps through it: a cursor before or
    // after the change stays on its text. It is one undoable step of its own (never joined with the
    // typing around it), so undo returns to the text before the replace.
    replace: (doc) => {
      const current = view.state.doc.toString();
      if (doc === current) return;
      view.dispatch({
        changes: diffRange(current, doc),
        annotations: [isolateHistory.of('full'), Transaction.userEvent.of('input.replace')],
      });
    },
    text: () => view.state.doc.toString(),
    focus: (at) => {
      if (at) {
        const len = view.state.doc.length;
        view.dispatch({ selection: { anchor: Math.min(at.anchor, len), head: Math.min(at.head, len) } });
      }
      view.focus();
    },
    destroy: () => view.destroy(),
  };
}
