// The live preview: POST /render (the same renderer as the page view) once the text has been still
// for a moment. The editor's changes reach it through a PreviewFeed, not through the editor view's
// state, so a keystroke renders nothing: the text is read when the preview is due, and the answer
// is shown when the browser is idle (replacing a long preview and laying it out is a long task).
import { useEffect, useState } from 'preact/hooks';
import { post } from '../api/client.ts';
import type { CursorBlocks } from '../editor/codemirror.ts';
import { whenQuiet } from './when-quiet.ts';

/** What the editor tells the preview: that its text changed (with a reader of it), and where the cursor is. */
export class PreviewFeed {
  private read: () => string;
  private listener: { text: () => void; cursor: (b: CursorBlocks) => void } | null = null;

  constructor(initial: string) {
    this.read = () => initial;
  }

  /** The text changed: `read` gives it when it is needed. */
  text(read: () => string): void {
    this.read = read;
    this.listener?.text();
  }

  cursor(b: CursorBlocks): void {
    this.listener?.cursor(b);
  }

  current(): string {
    return this.read();
  }

  listen(text: () => void, cursor: (b: CursorBlocks) => void): () => void {
    const l = { text, cursor };
    this.listener = l;
    return () => {
      if (this.listener === l) this.listener = null;
    };
  }
}

const idle = (fn: () => void): (() => void) => {
  if (typeof requestIdleCallback !== 'function') {
    const t = setTimeout(fn, 0);
    return () => clearTimeout(t);
  }
  const id = requestIdleCallback(fn, { timeout: 300 });
  return () => cancelIdleCallback(id);
};

const sameCursor = (a: CursorBlocks | null, b: CursorBlocks): boolean =>
  a !== null && a.at === b.at && a.fraction === b.fraction && a.tags.length === b.tags.length;

export function usePreview(
  space: string,
  path: string,
  feed: PreviewFeed,
  delay = 350,
): { html: string; error: string; cursor: CursorBlocks | null } {
  const [state, setState] = useState({ html: '', error: '' });
  // Where the cursor is, for the preview to follow (set only when its block or line changes).
  const [cursor, setCursor] = useState<CursorBlocks | null>(null);
  useEffect(() => {
    let seq = 0; // one more for each change: an answer for older text is dropped
    let cancelShow = (): void => {};
    const show = (
      next: { html: string; error: string } | ((s: { html: string; error: string }) => { html: string; error: string }),
    ): void => {
      cancelShow();
      cancelShow = idle(() => setState(next));
    };
    const run = (): void => {
      const mine = seq;
      post<{ html: string }>('/render', { space, path: path || 'untitled', content: feed.current() }).then(
        (r) => {
          if (seq === mine) show({ html: r.html, error: '' });
        },
        (err: unknown) => {
          if (seq === mine) show((s) => ({ html: s.html, error: err instanceof Error ? err.message : 'Preview failed' }));
        },
      );
    };
    const quiet = whenQuiet(delay, run);
    const schedule = (): void => {
      seq++;
      cancelShow();
      quiet.poke();
    };
    const off = feed.listen(schedule, (b) => setCursor((c) => (sameCursor(c, b) ? c : b)));
    schedule();
    return () => {
      off();
      seq = -1;
      quiet.cancel();
      cancelShow();
    };
  }, [space, path, feed]);
  return { ...state, cursor };
}
