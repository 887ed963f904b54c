// A page: the server-rendered Markdown (sanitised by the server), title, metadata, backlinks,
// outbound links, and its access list for those who may change it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, get, pageApi, spaceApi } from '../api/client.ts';
import type { Acl, Links, Page, Space, Template } from '../api/types.ts';
import { Icon } from '../components/icons.tsx';
import { FrontmatterPanel, MetadataPanel } from '../components/metadata-panel.tsx';
import { AccessPanel } from '../components/access-panel.tsx';
import { FilesPanel } from '../components/files-panel.tsx';
import { FavouriteToggle, PageActions } from '../components/page-actions.tsx';
import { AsyncView, Badge, Breadcrumbs, Loaded, Loading, NotFound, Time, useTitle, type Crumb } from '../components/ui.tsx';
import { useAsync } from '../lib/use-async.ts';
import { saveTick } from '../lib/task-tick.ts';
import { withoutTitleHeading } from '../lib/title-heading.ts';
import { rememberVisit } from '../lib/recent.ts';
import type { Change } from '../../model.ts';
import { useLiveChanges } from '../lib/live.ts';
import { href, navigate } from '../router.ts';
import { useSession } from '../session.ts';

// Space names seen so far, so breadcrumbs of views that do not load the space still name it.
const spaceNames = new Map<string, string>();
export const rememberSpace = (s: Space): void => {
  spaceNames.set(s.slug, s.name);
};

/** Loads a space and remembers its name. */
export const loadSpace = (space: string): Promise<Space> =>
  get<Space>(spaceApi(space)).then((s) => {
    rememberSpace(s);
    return s;
  });

export function pageCrumbs(space: string, spaceName: string, path: string, last?: string): Crumb[] {
  const segs = path.split('/');
  return [
    { label: 'Home', href: href.home() },
    { label: spaceName !== space ? spaceName : (spaceNames.get(space) ?? space), href: href.space(space) },
    ...segs.slice(0, -1).map((s) => ({ label: s })),
    { label: last ?? segs[segs.length - 1] },
  ];
}

async function loadTemplateFields(space: string, template: string | null) {
  if (!template) return undefined;
  const i = template.indexOf(':');
  const [s, name] = i >= 0 ? [template.slice(0, i), template.slice(i + 1)] : [space, template];
  const list = await get<Template[]>(`/templates?space=${encodeURIComponent(s)}`).catch(() => [] as Template[]);
  return list.find((t) => t.name === name)?.fields;
}

/** Clicks on a broken link go to the New Page form for its target. */
function useBrokenLinkClicks(ref: { current: HTMLElement | null }): void {
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const onClick = (e: MouseEvent): void => {
      const a = (e.target as Element).closest('a.broken');
      const create = a?.getAttribute('data-create');
      if (create && create.startsWith('/app/new')) {
        e.preventDefault();
        navigate(create);
      }
    };
    el.querySelectorAll('a.broken').forEach((a) => a.setAttribute('title', 'This page does not exist yet — click to create it'));
    // A code block wider than the screen scrolls sideways: keyboard users reach it by Tab.
    el.querySelectorAll('pre').forEach((pre) => {
      pre.tabIndex = 0;
    });
    el.addEventListener('click', onClick);
    return () => el.removeEventListener('click', onClick);
  });
}

export function PageView({ space, path }: { space: string; path: string }) {
  const { principal } = useSession();
  const page = useAsync(() => get<Page>(`${pageApi(space, path)}?render=html`), [space, path]);
  const links = useAsync(() => get<Links>(`${pageApi(space, path)}/links?limit=1000`), [space, path]);
  const info = useAsync(() => loadSpace(space), [space]);
  const acl = useAsync(() => get<Acl>(`${pageApi(space, path)}/acl`), [space, path]);
  const fields = useAsync(() => loadTemplateFields(space, page.data?.template ?? null), [space, page.data?.template]);
  const body = useRef<HTMLDivElement>(null);
  useBrokenLinkClicks(body);
  const [taskNote, setTaskNote] = useState<string | null>(null);
  // A ticked task saves a new version (lib/task-tick.ts); the view then shows it.
  useEffect(() => {
    const el = body.current;
    const shown = page.data;
    if (!el || !shown) return;
    const onChange = (e: Event): void => {
      const box = e.target as HTMLInputElement;
      if (!box.matches('input.task')) return;
      setTaskNote(null);
      box.disabled = true;
      saveTick(shown, Number(box.dataset.line), box.checked)
        .then((note) => {
          if (note) setTaskNote(note);
          page.reload();
        })
        .catch((err: unknown) => {
          setTaskNote(err instanceof Error ? err.message : String(err));
          page.reload();
        });
    };
    el.addEventListener('change', onChange);
    return () => el.removeEventListener('change', onChange);
  });
  // Live (lib/live.ts): another save shows within a moment (the text is replaced in place, so the
  // scroll position stays); a move follows the page to its new address; a delete says so.
  const [deleted, setDeleted] = useState(false);
  const shownVersion = page.data?.version ?? 0;
  useLiveChanges(
    (batch: Change[]) => {
      let now: 'changed' | 'deleted' | null = null;
      for (const c of batch) {
        if (c.event === 'page.moved' && c.from?.space === space && c.from.path === path) {
          navigate(href.page(c.space, c.path), { replace: true });
          return;
        }
        if (c.space !== space || c.path !== path) continue;
        if (c.event === 'page.deleted') now = 'deleted';
        else if (c.event !== 'page.updated' || c.version === undefined || c.version > shownVersion)
          now = c.event.startsWith('page.') ? 'changed' : now;
      }
      if (now === 'deleted') setDeleted(true);
      if (now === 'changed') {
        setDeleted(false);
        page.reload();
        links.reload();
      }
    },
    () => {
      page.reload();
      links.reload();
      acl.reload();
    },
  );
  useTitle(page.data?.title ?? path);
  useEffect(() => {
    if (page.data) rememberVisit(page.data);
  }, [page.data]);
  // A moved page's old address answers with the page where it is now: show that address.
  const at = page.data;
  useEffect(() => {
    if (at && (at.space !== space || at.path !== path)) navigate(href.page(at.space, at.path), { replace: true });
  }, [at, space, path]);

  const deletedNote = deleted && (
    <p role="status" class="notice">
      This page has just been deleted: it is in the space's <a href={href.trash(space)}>trash</a>.
    </p>
  );
  if (page.status === 'error' && page.error instanceof ApiError && page.error.status === 404) {
    return (
      <NotFound what="page">
        {deletedNote}
        <p>
          <a class="button primary" href={href.newPage({ space, path })}>
            Create this page
          </a>
        </p>
      </NotFound>
    );
  }
  const mayChangeAcl = (a: Acl, s: Space): boolean =>
    principal.orgAdmin || (a.restricted ? a.write.includes(principal.id) : s.defaultAccess === 'write' || s.slug === `~${principal.name}`);

  return (
    <AsyncView value={page} what="page">
      {(p) => (
        <div class="page-grid">
          <article class="content" aria-labelledby="page-title">
            <Breadcrumbs items={pageCrumbs(space, info.data?.name ?? space, path, p.title)} />
            <div class="view-head">
              <div>
                <h1 id="page-title">{p.title}</h1>
                <p class="muted small">
                  <span class="mono">
                    {space}/{path}
                  </span>{' '}
                  · version {p.version} · updated <Time iso={p.updatedAt} />
                  {p.template && (
                    <>
                      {' '}
                      · <Badge tone="accent">{p.template}</Badge>
                    </>
                  )}
                  {acl.data?.restricted && (
                    <>
                      {' '}
                      ·{' '}
                      <Badge tone="warn">
                        <Icon name="lock" />
                        Restricted
                      </Badge>
                    </>
                  )}
                </p>
              </div>
              <div class="actions">
                <a class="button primary" href={href.edit(space, path)} aria-keyshortcuts="e">
                  <Icon name="edit" />
                  Edit
                </a>
                <a class="button" href={href.history(space, path)}>
                  <Icon name="history" />
                  History
                </a>
                <FavouriteToggle page={p} />
                <PageActions page={p} onRenamed={page.reload} />
              </div>
            </div>
            {deletedNote}
            {taskNote !== null && (
              <p role="status" class="notice">
                {taskNote}
              </p>
            )}
            {p.html === undefined ? (
              <pre class="markdown-source">{p.content}</pre>
            ) : p.html.trim() === '' ? (
              <p class="empty">
                This page is empty — <a href={href.edit(space, path)}>write something</a>.
              </p>
            ) : (
              // The server renders with raw HTML off and safe link schemes only (spec/web.md).
              <div ref={body} class="markdown" dangerouslySetInnerHTML={{ __html: withoutTitleHeading(p.html, p.title) }} />
            )}
          </article>
          <aside class="side" aria-label="About this page">
            <MetadataPanel metadata={p.metadata} fields={fields.data} />
            <FrontmatterPanel frontmatter={p.frontmatter} />
            <section aria-labelledby="backlinks-title" class="panel">
              <h2 id="backlinks-title">Backlinks</h2>
              <Loaded value={links}>
                {(l) =>
                  l.backlinks.length === 0 ? (
                    <p class="muted">No page links here yet.</p>
                  ) : (
                    <ul class="plain-list">
                      {l.backlinks.map((b) => (
                        <li key={`${b.space}/${b.path}`}>
                          <a href={href.page(b.space, b.path)}>{b.title}</a>
                          {b.space !== space && <span class="muted small"> in {b.space}</span>}
                        </li>
                      ))}
                    </ul>
                  )
                }
              </Loaded>
            </section>
            <section aria-labelledby="outbound-title" class="panel">
              <h2 id="outbound-title">Links from this page</h2>
              {!links.data ? (
                links.status === 'error' ? null : (
                  <Loading />
                )
              ) : links.data.outbound.length === 0 ? (
                <p class="muted">None.</p>
              ) : (
                <ul class="plain-list">
                  {links.data.outbound.map((o) => (
                    <li key={`${o.space}/${o.path}`}>
                      {o.exists ? (
                        <a href={href.page(o.space, o.path)}>{o.space === space ? o.path : `${o.space}/${o.path}`}</a>
                      ) : (
                        <>
                          <span class="broken-target">{o.space === space ? o.path : `${o.space}/${o.path}`}</span>{' '}
                          <a class="small" href={href.newPage({ space: o.space, path: o.path })}>
                            create this page
                          </a>
                        </>
                      )}
                    </li>
                  ))}
                </ul>
              )}
            </section>
            <FilesPanel space={space} path={path} mayWrite={Boolean(acl.data && info.data && mayChangeAcl(acl.data, info.data))} />
            {acl.data && info.data && mayChangeAcl(acl.data, info.data) && (
              <AccessPanel space={space} path={path} acl={acl.data} onChange={acl.reload} />
            )}
          </aside>
        </div>
      )}
    </AsyncView>
  );
}
