// A space: its page tree, its record types, and the ways to its broken links, new pages and the gallery.
import { get, query, spaceApi } from '../api/client.ts';
import type { PageSummary, RecordType } from '../api/types.ts';
import { Icon } from '../components/icons.tsx';
import { PageTree } from '../components/page-tree.tsx';
import { AsyncView, Badge, Breadcrumbs, Empty, useTitle } from '../components/ui.tsx';
import { plural } from '../lib/format.ts';
import { buildTree } from '../lib/tree.ts';
import { useAsync } from '../lib/use-async.ts';
import { href } from '../router.ts';
import { loadSpace } from './page-view.tsx';

const MAX_TREE_PAGES = 5000;

async function loadPages(space: string): Promise<{ pages: PageSummary[]; truncated: boolean }> {
  const pages: PageSummary[] = [];
  let cursor: string | null = null;
  do {
    const r: { pages: PageSummary[]; nextCursor: string | null } = await get(`${spaceApi(space)}/pages${query({ limit: 200, cursor })}`);
    pages.push(...r.pages);
    cursor = r.nextCursor;
  } while (cursor && pages.length < MAX_TREE_PAGES);
  return { pages, truncated: cursor !== null };
}

export function SpaceView({ space }: { space: string }) {
  const info = useAsync(() => loadSpace(space), [space]);
  const pages = useAsync(() => loadPages(space), [space]);
  const types = useAsync(() => get<RecordType[]>(`${spaceApi(space)}/record-types`), [space]);
  useTitle(info.data?.name ?? space);
  return (
    <AsyncView value={info} what="space">
      {(s) => (
        <div class="page-grid">
          <section class="content" aria-labelledby="space-title">
            <Breadcrumbs items={[{ label: 'Home', href: href.home() }, { label: s.name }]} />
            <div class="view-head">
              <div>
                <h1 id="space-title">{s.name}</h1>
                <p class="muted">
                  <span class="mono">{s.slug}</span>
                  {s.personal && (
                    <>
                      {' '}
                      · <Badge tone="accent">Personal</Badge>
                    </>
                  )}{' '}
                  · default access: {s.defaultAccess}
                </p>
                {s.description && <p>{s.description}</p>}
              </div>
              <div class="actions">
                <a class="button primary" href={href.newPage({ space })}>
                  <Icon name="plus" />
                  New page
                </a>
                {/* The API's Markdown zip of the pages the person may read (docs/export-import.md). */}
                <a class="button" href={`${spaceApi(space)}/export?format=zip`} download>
                  Export
                </a>
              </div>
            </div>
            <h2>Pages</h2>
            <AsyncView value={pages} what="space">
              {({ pages: list, truncated }) =>
                list.length === 0 ? (
                  <Empty>
                    No pages yet — <a href={href.newPage({ space })}>create one</a>.
                  </Empty>
                ) : (
                  <>
                    <PageTree space={space} nodes={buildTree(list)} />
                    <p class="muted small">
                      {plural(list.length, 'page')}
                      {truncated ? ` shown (the first ${MAX_TREE_PAGES}); search finds the rest` : ''}
                    </p>
                  </>
                )
              }
            </AsyncView>
          </section>
          <aside class="side" aria-label="About this space">
            <section aria-labelledby="types-title">
              <h2 id="types-title">Record types</h2>
              <AsyncView value={types} what="space">
                {(list) =>
                  list.length === 0 ? (
                    <p class="muted">
                      No record types. A page at <span class="mono">templates/&lt;name&gt;</span> with a{' '}
                      <span class="mono">metadataSchema</span> makes one.
                    </p>
                  ) : (
                    <ul class="plain-list">
                      {list.map((t) => (
                        <li key={t.name}>
                          <a href={href.records(space, t.name)}>
                            <Icon name="table" />
                            {t.name}
                          </a>
                          {t.description && <span class="muted small"> — {t.description}</span>}
                        </li>
                      ))}
                    </ul>
                  )
                }
              </AsyncView>
            </section>
            <section aria-labelledby="tools-title">
              <h2 id="tools-title">Tools</h2>
              <ul class="plain-list">
                <li>
                  <a href={href.broken(space)}>
                    <Icon name="broken" />
                    Broken links
                  </a>
                </li>
                <li>
                  <a href={href.trash(space)}>Trash</a>
                </li>
                <li>
                  <a href={href.gallery()}>
                    <Icon name="grid" />
                    Space template gallery
                  </a>
                </li>
                <li>
                  <a href={href.newPage({ space })}>
                    <Icon name="plus" />
                    New page in this space
                  </a>
                </li>
              </ul>
            </section>
          </aside>
        </div>
      )}
    </AsyncView>
  );
}
