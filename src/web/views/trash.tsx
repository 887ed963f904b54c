// A space's trash (spec/web.md, /app/s/:space/trash): the deleted pages the person could read,
// each with Restore (POST /spaces/:slug/trash/restore).
import { useState } from 'preact/hooks';
import { get, post, spaceApi } from '../api/client.ts';
import { AsyncView, Breadcrumbs, Empty, ErrorBox, Time, useTitle } from '../components/ui.tsx';
import { useAsync } from '../lib/use-async.ts';
import { href, navigate } from '../router.ts';

type TrashList = {
  pages: Array<{ path: string; title: string; version: number; deletedAt: string; deletedBy: { id: string; name: string } | null }>;
  nextCursor: string | null;
};

export function TrashView({ space }: { space: string }) {
  const list = useAsync(() => get<TrashList>(`${spaceApi(space)}/trash?limit=100`), [space]);
  const [error, setError] = useState<unknown>(null);
  useTitle(`Trash of ${space}`);
  const restore = async (path: string): Promise<void> => {
    setError(null);
    try {
      await post(`${spaceApi(space)}/trash/restore`, { path });
      navigate(href.page(space, path));
    } catch (err) {
      setError(err);
    }
  };
  return (
    <div class="content-wide">
      <Breadcrumbs items={[{ label: 'Home', href: href.home() }, { label: space, href: href.space(space) }, { label: 'Trash' }]} />
      <h1>Trash</h1>
      {error !== null && <ErrorBox error={error} />}
      <AsyncView value={list} what="trash">
        {(t) =>
          t.pages.length === 0 ? (
            <Empty>The trash is empty.</Empty>
          ) : (
            <ul class="plain-list" aria-label="Deleted pages">
              {t.pages.map((p) => (
                <li key={p.path} class="row">
                  <span>
                    <strong>{p.title}</strong> <span class="mono muted small">{p.path}</span>{' '}
                    <span class="muted small">
                      deleted <Time iso={p.deletedAt} />
                      {p.deletedBy ? ` by ${p.deletedBy.name}` : ''}
                    </span>
                  </span>{' '}
                  <button type="button" class="button" aria-label={`Restore ${p.title}`} onClick={() => void restore(p.path)}>
                    Restore
                  </button>
                </li>
              ))}
            </ul>
          )
        }
      </AsyncView>
    </div>
  );
}
