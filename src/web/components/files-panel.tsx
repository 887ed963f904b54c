// A page's attached files: name (a link to the file), size, and for writers a file input with an
// "Attach file" button. Markdown in the page shows them as `![alt](files/<name>)`.
import { useState } from 'preact/hooks';
import { get, pageApi, putBytes } from '../api/client.ts';
import type { FileList } from '../api/types.ts';
import { formatBytes } from '../../text/bytes.ts';
import { useAsync } from '../lib/use-async.ts';
import { ErrorBox, Loaded } from './ui.tsx';

export function FilesPanel({ space, path, mayWrite }: { space: string; path: string; mayWrite: boolean }) {
  const files = useAsync(() => get<FileList>(`${pageApi(space, path)}/files?limit=200`), [space, path]);
  const [chosen, setChosen] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const attach = async (e: Event): Promise<void> => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    if (!chosen) return;
    setBusy(true);
    try {
      const at = `/files/${encodeURIComponent(space)}/${[...path.split('/'), chosen.name].map(encodeURIComponent).join('/')}`;
      await putBytes(at, chosen);
      setError(null);
      setChosen(null);
      form.reset();
      files.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="files-title" class="panel">
      <h2 id="files-title">Files</h2>
      <Loaded value={files}>
        {(d) =>
          d.files.length === 0 ? (
            <p class="muted">No files attached.</p>
          ) : (
            <ul class="plain-list">
              {d.files.map((f) => (
                <li key={f.name}>
                  <a href={f.url} title={f.contentType}>
                    {f.name}
                  </a>{' '}
                  <span class="muted small">{formatBytes(f.size)}</span>
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
      {error !== null && <ErrorBox error={error} />}
      {mayWrite && (
        <form class="stack" onSubmit={attach}>
          <input type="file" aria-label="File to attach" onChange={(e) => setChosen(e.currentTarget.files?.[0] ?? null)} />
          <div class="actions">
            <button type="submit" class="button small" disabled={!chosen || busy}>
              Attach file
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
