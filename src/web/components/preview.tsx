// The Preview region beside an editor.
export function Preview({ html, error }: { html: string; error: string }) {
  return (
    <section class="preview" aria-labelledby="preview-title">
      <h2 id="preview-title" class="preview-title">Preview</h2>
      {error && <p class="field-error" role="status">{error}</p>}
      {html.trim() === ''
        ? <p class="muted">Nothing to preview yet.</p>
        // Rendered by the server with raw HTML off and safe link schemes only.
        : <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />}
    </section>
  );
}
