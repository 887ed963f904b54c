// Ctrl-B / Ctrl-I / Ctrl-K (⌘ on a Mac) in the editor: bold, italic, link. They are bound with
// preventDefault and stopPropagation, so inside the editor they win over the app's own shortcuts
// (Ctrl-K elsewhere opens Go to page).
import { EditorSelection, type ChangeSpec, type EditorState, type SelectionRange } from '@codemirror/state';
import type { Command, KeyBinding } from '@codemirror/view';

/** Whether `mark` wraps [from, to) exactly: `**x**` for bold; for italic a `*` that is not half of a `**`. */
function wrappedBy(state: EditorState, from: number, to: number, mark: string): boolean {
  const n = mark.length;
  if (from < n || to + n > state.doc.length) return false;
  if (state.sliceDoc(from - n, from) !== mark || state.sliceDoc(to, to + n) !== mark) return false;
  if (mark !== '*') return true;
  // `*` inside `**…**` is bold's, not italic's; `***x***` is both, so one `*` may come off.
  const before = state.sliceDoc(from - 2, from - 1);
  const after = state.sliceDoc(to + 1, to + 2);
  return !(before === '*' && after === '*') || (state.sliceDoc(from - 3, from) === '***' && state.sliceDoc(to, to + 3) === '***');
}

/** Toggles `mark` around every selection: unwraps text it already wraps (inside or just outside the selection), wraps it otherwise. */
export function toggleMark(mark: string): Command {
  return (view) => {
    const { state } = view;
    const n = mark.length;
    const tr = state.changeByRange((r: SelectionRange) => {
      const text = state.sliceDoc(r.from, r.to);
      let changes: ChangeSpec[];
      let range: SelectionRange;
      if (
        !r.empty &&
        text.length >= 2 * n &&
        text.startsWith(mark) &&
        text.endsWith(mark) &&
        (mark !== '*' || !text.startsWith('**') || text.startsWith('***'))
      ) {
        changes = [
          { from: r.from, to: r.from + n },
          { from: r.to - n, to: r.to },
        ];
        range = EditorSelection.range(r.from, r.to - 2 * n);
      } else if (wrappedBy(state, r.from, r.to, mark)) {
        changes = [
          { from: r.from - n, to: r.from },
          { from: r.to, to: r.to + n },
        ];
        range = EditorSelection.range(r.from - n, r.to - n);
      } else {
        changes = [
          { from: r.from, insert: mark },
          { from: r.to, insert: mark },
        ];
        range = EditorSelection.range(r.from + n, r.to + n);
      }
      return { changes, range };
    });
    view.dispatch(state.update(tr, { scrollIntoView: true, userEvent: 'input.format' }));
    return true;
  };
}

const URL_LIKE = /^(?:https?:\/\/|mailto:)\S+$/i;

/**
 * Makes a link of every selection: `[text](url)` with `url` selected, ready to be typed over;
 * a selected address becomes `[](address)` with the cursor in the brackets.
 */
export const makeLink: Command = (view) => {
  const { state } = view;
  const tr = state.changeByRange((r) => {
    const text = state.sliceDoc(r.from, r.to);
    if (URL_LIKE.test(text.trim())) {
      return { changes: { from: r.from, to: r.to, insert: `[](${text.trim()})` }, range: EditorSelection.cursor(r.from + 1) };
    }
    const label = text === '' ? 'text' : text;
    const insert = `[${label}](url)`;
    const urlFrom = r.from + label.length + 3;
    return { changes: { from: r.from, to: r.to, insert }, range: EditorSelection.range(urlFrom, urlFrom + 3) };
  });
  view.dispatch(state.update(tr, { scrollIntoView: true, userEvent: 'input.format' }));
  return true;
};

export const formatKeymap: KeyBinding[] = [
  { key: 'Mod-b', run: toggleMark('**'), preventDefault: true, stopPropagation: true },
  { key: 'Mod-i', run: toggleMark('*'), preventDefault: true, stopPropagation: true },
  { key: 'Mod-k', run: makeLink, preventDefault: true, stopPropagation: true },
];
