// Pasting or dropping files into the editor: each file is handed to `attach` (which uploads it,
// or queues it until the page exists) while a placeholder widget ("Uploading name…") marks where
// its Markdown goes; the placeholder is not text, so a save meanwhile holds none of it. When the
// upload is done the placeholder becomes `![name](files/name)` for an image, `[name](files/name)`
// for anything else; when it fails the placeholder goes and `attach` has said why.
import { StateEffect, StateField, type Extension } from '@codemirror/state';
import { Decoration, EditorView, WidgetType, type DecorationSet } from '@codemirror/view';

/** Takes a pasted or dropped file; resolves to the address to link (`files/<name>`), rejects when it is refused. */
export type AttachFile = (file: File) => Promise<string>;

class UploadingWidget extends WidgetType {
  readonly id: number;
  readonly name: string;
  constructor(id: number, name: string) {
    super();
    this.id = id;
    this.name = name;
  }
  override eq(other: UploadingWidget): boolean {
    return other.id === this.id;
  }
  override toDOM(): HTMLElement {
    const span = document.createElement('span');
    span.className = 'cm-uploading';
    span.textContent = `Uploading ${this.name}…`;
    return span;
  }
  override ignoreEvent(): boolean {
    return true;
  }
}

const addUpload = StateEffect.define<{ id: number; pos: number; name: string }>({
  map: (v, m) => ({ ...v, pos: m.mapPos(v.pos) }),
});
const removeUpload = StateEffect.define<number>();

const uploads = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(set, tr) {
    let next = set.map(tr.changes);
    for (const e of tr.effects) {
      if (e.is(addUpload)) {
        next = next.update({
          add: [Decoration.widget({ widget: new UploadingWidget(e.value.id, e.value.name), side: 1 }).range(e.value.pos)],
        });
      } else if (e.is(removeUpload)) {
        next = next.update({ filter: (_f, _t, d) => (d.spec.widget as UploadingWidget).id !== e.value });
      }
    }
    return next;
  },
  provide: (f) => EditorView.decorations.from(f),
});

function placeholderAt(view: EditorView, id: number): number | null {
  let at: number | null = null;
  view.state.field(uploads).between(0, view.state.doc.length, (from, _to, d) => {
    if ((d.spec.widget as UploadingWidget).id === id) {
      at = from;
      return false;
    }
  });
  return at;
}

/** The Markdown for an attached file: an image embeds, anything else links. `[`/`]` in the name are escaped. */
export function fileMarkdown(file: { name: string; type: string }, href: string): string {
  const label = file.name.replace(/([[\]\\])/g, '\\$1');
  return file.type.startsWith('image/') ? `![${label}](${href})` : `[${label}](${href})`;
}

let nextId = 1;

function insertFiles(view: EditorView, files: File[], pos: number, attach: AttachFile): void {
  for (const file of files) {
    const id = nextId++;
    view.dispatch({ effects: addUpload.of({ id, pos, name: file.name }) });
    attach(file).then(
      (href) => {
        const at = placeholderAt(view, id);
        if (at === null) return; // the editor was closed or its text replaced meanwhile
        // On a line of its own when there is text before it on the line.
        const line = view.state.doc.lineAt(at);
        const prefix = at > line.from && view.state.sliceDoc(at - 1, at).trim() !== '' ? '\n' : '';
        const insert = prefix + fileMarkdown(file, href);
        // A cursor still where the file went moves past its Markdown, as after pasting text.
        const sel = view.state.selection.main;
        view.dispatch({
          changes: { from: at, insert },
          effects: removeUpload.of(id),
          ...(sel.empty && sel.head === at ? { selection: { anchor: at + insert.length } } : {}),
          userEvent: 'input.paste',
        });
      },
      () => {
        view.dispatch({ effects: removeUpload.of(id) });
      },
    );
  }
}

function filesOf(data: DataTransfer | null): File[] {
  return data ? [...data.files] : [];
}

export function fileDrop(attach: AttachFile): Extension {
  return [
    uploads,
    EditorView.domEventHandlers({
      paste(e, view) {
        const files = filesOf(e.clipboardData);
        if (files.length === 0) return false;
        e.preventDefault();
        const sel = view.state.selection.main;
        // A selection is replaced, as pasted text would replace it.
        if (!sel.empty) view.dispatch({ changes: { from: sel.from, to: sel.to }, userEvent: 'delete' });
        insertFiles(view, files, view.state.selection.main.head, attach);
        return true;
      },
      dragover(e) {
        if (!e.dataTransfer || ![...e.dataTransfer.types].includes('Files')) return false;
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
        return true;
      },
      drop(e, view) {
        const files = filesOf(e.dataTransfer);
        if (files.length === 0) return false;
        e.preventDefault();
        const pos = view.posAtCoords({ x: e.clientX, y: e.clientY }) ?? view.state.selection.main.head;
        view.focus();
        insertFiles(view, files, pos, attach);
        return true;
      },
    }),
  ];
}
