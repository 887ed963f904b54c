// A Markdown text control: CodeMirror once its chunk has loaded, a plain textarea until then
// (and if it cannot load), so typing can start at once and nothing is lost in the swap.
//
// The control owns its text. `initial` is read once; every change goes out through `onChange`, as
// a reader of the text (the parent reads it when it needs it, not on every keystroke); nothing the
// parent renders is written back, so a keystroke can never be overwritten by an older
// copy of the text. Replacing the whole text (a restored draft, a merge, a template) is an explicit
// request: `replace` with a new `seq` (see useReplace), applied once as one undoable step.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { AttachFile, CursorBlocks, EditorHandle, WikilinkSource } from '../editor/codemirror.ts';
import type { AttachEvents } from '../lib/attachments.ts';

interface ReplaceRequest {
  text: string;
  seq: number;
}

interface Props {
  id: string;
  label: string;
  initial: string;
  replace?: ReplaceRequest | null;
  onChange: (text: () => string) => void;
  onSave?: () => void;
  describedBy?: string;
  placeholder?: string;
  /** `[[` completion over page titles. */
  wikilinks?: WikilinkSource;
  /** Pasted and dropped files: made once, with the events that tell the person what happened. */
  files?: (on: AttachEvents) => AttachFile;
  /** Where the cursor is among the text's blocks (for the preview to follow). */
  onCursor?: (b: CursorBlocks) => void;
}

/** A replace request and the function that makes one: each call is applied exactly once. */
export function useReplace(): [ReplaceRequest | null, (text: string) => void] {
  const [req, setReq] = useState<ReplaceRequest | null>(null);
  return [req, (text) => setReq((r) => ({ text, seq: (r?.seq ?? 0) + 1 }))];
}

export function MarkdownEditor({
  id,
  label,
  initial,
  replace,
  onChange,
  onSave,
  describedBy,
  placeholder,
  wikilinks,
  files,
  onCursor,
}: Props) {
  const host = useRef<HTMLDivElement>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  const handle = useRef<EditorHandle | null>(null);
  const latest = useRef({ onChange, onSave, onCursor });
  latest.current = { onChange, onSave, onCursor };
  // What happened to the last pasted or dropped file: a status, or an alert when it was refused.
  const [notice, setNotice] = useState<{ text: string; error: boolean } | null>(null);
  const [first] = useState(initial);
  const [ready, setReady] = useState(false);

  useEffect(() => {
    let cancelled = false;
    import('../editor/codemirror.ts')
      .then(({ createEditor }) => {
        if (cancelled || !host.current) return;
        // The textarea's text (typed while the chunk loaded) and its cursor carry over.
        const ta = area.current;
        handle.current = createEditor(host.current, {
          doc: ta ? ta.value : first,
          label,
          describedBy,
          placeholder,
          onChange: (text) => latest.current.onChange(text),
          onSave: () => latest.current.onSave?.(),
          wikilinks,
          attach: files?.({
            done: (name, queued) =>
              setNotice({ text: queued ? `${name} will be attached when the page is created.` : `Attached ${name}.`, error: false }),
            failed: (text) => setNotice({ text, error: true }),
          }),
          onCursor: (b) => latest.current.onCursor?.(b),
        });
        if (ta && document.activeElement === ta) handle.current.focus({ anchor: ta.selectionStart, head: ta.selectionEnd });
        setReady(true);
      })
      .catch(() => {
        /* the textarea stays: still a working editor */
      });
    return () => {
      cancelled = true;
      handle.current?.destroy();
      handle.current = null;
    };
  }, []);

  const applied = useRef(0);
  useEffect(() => {
    if (!replace || replace.seq === applied.current) return;
    applied.current = replace.seq;
    if (handle.current) handle.current.replace(replace.text);
    else if (area.current && area.current.value !== replace.text) {
      area.current.value = replace.text;
      const text = replace.text;
      latest.current.onChange(() => text);
    }
  }, [replace?.seq]);

  return (
    <>
      <div class="md-editor" id={id}>
        <div ref={host} class="cm-host" />
        {!ready && (
          // Uncontrolled: the DOM keeps what is typed; the parent only hears about it.
          <textarea
            ref={area}
            class="md-fallback"
            aria-label={label}
            aria-describedby={describedBy}
            defaultValue={first}
            placeholder={placeholder}
            onInput={(e) => {
              const value = e.currentTarget.value;
              latest.current.onChange(() => value);
            }}
            onKeyDown={(e) => {
              if ((e.ctrlKey || e.metaKey) && e.key === 's') {
                e.preventDefault();
                latest.current.onSave?.();
              }
            }}
          />
        )}
      </div>
      {notice && (
        <p class={notice.error ? 'field-error' : 'muted small'} role={notice.error ? 'alert' : 'status'}>
          {notice.text}
        </p>
      )}
    </>
  );
}

/** A page's Content field (the editor's and the new-page form's): its visible label, the editor, then `children` (its issue). */
export function ContentField({ children, ...props }: Omit<Props, 'label'> & { children?: ComponentChildren }) {
  return (
    <div class="field">
      <span class="label" id={`${props.id}-label`}>
        Content
      </span>
      <MarkdownEditor label="Content" {...props} />
      {children}
    </div>
  );
}
