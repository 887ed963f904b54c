// The Markdown editor (CodeMirror 6). This module is its own chunk, loaded by dynamic import only
// where text is edited. Styles CodeMirror injects carry the CSP nonce from <meta name="csp-nonce">.
import { EditorState } from '@codemirror/state';
import { EditorView, keymap, placeholder as placeholderExt, drawSelection, highlightActiveLine } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { Language, LanguageSupport, defineLanguageFacet, syntaxHighlighting, defaultHighlightStyle } from '@codemirror/language';
import { parser as markdownParser, GFM } from '@lezer/markdown';

// Markdown straight from @lezer/markdown: @codemirror/lang-markdown would bring the HTML, CSS and
// JavaScript languages along (measured: 174 KB gzipped instead of the budget's 150).
const markdownLanguage = new Language(defineLanguageFacet({ commentTokens: { block: { open: '<!--', close: '-->' } } }), markdownParser.configure(GFM), [], 'markdown');
const markdown = (): LanguageSupport => new LanguageSupport(markdownLanguage);

export interface EditorOptions {
  doc: string;
  label: string;
  describedBy?: string;
  placeholder?: string;
  onChange: (doc: string) => void;
  onSave?: () => void;
}

export interface EditorHandle { setDoc: (doc: string) => void; focus: () => void; destroy: () => void }

function cspNonce(): string {
  return document.querySelector('meta[name="csp-nonce"]')?.getAttribute('content') ?? '';
}

export function createEditor(parent: HTMLElement, opts: EditorOptions): EditorHandle {
  let silent = false;
  const attrs: Record<string, string> = { 'aria-label': opts.label, 'aria-multiline': 'true', spellcheck: 'true' };
  if (opts.describedBy) attrs['aria-describedby'] = opts.describedBy;
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: opts.doc,
      extensions: [
        EditorView.cspNonce.of(cspNonce()),
        history(),
        drawSelection(),
        highlightActiveLine(),
        markdown(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        EditorView.lineWrapping,
        placeholderExt(opts.placeholder ?? ''),
        keymap.of([
          { key: 'Mod-s', preventDefault: true, run: () => { opts.onSave?.(); return true; } },
          indentWithTab,
          ...defaultKeymap,
          ...historyKeymap,
        ]),
        EditorView.contentAttributes.of(attrs),
        EditorView.updateListener.of((u) => { if (u.docChanged && !silent) opts.onChange(u.state.doc.toString()); }),
      ],
    }),
  });
  return {
    setDoc: (doc) => {
      if (doc === view.state.doc.toString()) return;
      silent = true;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: doc } });
      silent = false;
    },
    focus: () => view.focus(),
    destroy: () => view.destroy(),
  };
}
