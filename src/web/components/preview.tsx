// The Preview region beside an editor. With `cursor`, it follows the editor's cursor in long pages.
// LivePreview is the one beside the page editor: it renders on its own, from a PreviewFeed.
import { useLayoutEffect, useRef } from 'preact/hooks';
import type { CursorBlocks } from '../editor/codemirror.ts';
import { followCursor } from '../lib/scroll-sync.ts';
import { usePreview, type PreviewFeed } from '../lib/use-preview.ts';

export function LivePreview({ space, path, feed }: { space: string; path: string; feed: PreviewFeed }) {
  const { html, error, cursor } = usePreview(space, path, feed);
  return <Preview html={html} error={error} cursor={cursor} />;
}

function Preview({ html, error, cursor }: { html: string; error: string; cursor?: CursorBlocks | null }) {
  const box = useRef<HTMLElement>(null);
  const body = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    if (cursor && box.current && body.current) followCursor(box.current, body.current, cursor);
  }, [html, cursor]);
  return (
    // Focusable: a long preview scrolls, and so can be scrolled by keyboard.
    <section class="preview" aria-labelledby="preview-title" ref={box} tabIndex={0}>
      <h2 id="preview-title" class="preview-title">
        Preview
      </h2>
      {error && (
        <p class="field-error" role="status">
          {error}
        </p>
      )}
      {html.trim() === '' ? (
        <p class="muted">Nothing to preview yet.</p>
      ) : (
        // Rendered by the server with raw HTML off and safe link schemes only.
        <div class="markdown" ref={body} dangerouslySetInnerHTML={{ __html: html }} />
      )}
    </section>
  );
}
