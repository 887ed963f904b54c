// A Markdown text control: CodeMirror once its chunk has loaded, a plain textarea until then
// (and if it cannot load), so typing can start at once and nothing is lost in the swap.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { EditorHandle } from '../editor/codemirror.ts';

interface Props {
  id: string;
  label: string;
  value: string;
  onChange: (v: string) => void;
  onSave?: () => void;
  describedBy?: string;
  placeholder?: string;
}

export function MarkdownEditor({ id, label, value, onChange, onSave, describedBy, placeholder }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const handle = useRef<EditorHandle | null>(null);
  const latest = useRef({ value, onChange, onSave });
  latest.current = { value, onChange, onSave };
  const [ready, setReady] = useState(false);

  useEffect(() => {
    let cancelled = false;
    import('../editor/codemirror.ts').then(({ createEditor }) => {
      if (cancelled || !host.current) return;
      handle.current = createEditor(host.current, {
        doc: latest.current.value, label, describedBy, placeholder,
        onChange: (v) => latest.current.onChange(v),
        onSave: () => latest.current.onSave?.(),
      });
      setReady(true);
    }).catch(() => { /* the textarea stays: still a working editor */ });
    return () => { cancelled = true; handle.current?.destroy(); handle.current = null; };
  }, []);

  useEffect(() => { handle.current?.setDoc(value); }, [value, ready]);

  return (
    <div class="md-editor" id={id}>
      <div ref={host} class="cm-host" />
      {!ready && (
        <textarea class="md-fallback" aria-label={label} aria-describedby={describedBy} value={value} placeholder={placeholder}
          onInput={(e) => onChange(e.currentTarget.value)}
          onKeyDown={(e) => { if ((e.ctrlKey || e.metaKey) && e.key === 's') { e.preventDefault(); onSave?.(); } }} />
      )}
    </div>
  );
}
