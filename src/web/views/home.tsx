// Home: the spaces the person may see (personal space first), favourites, and the pages edited
// most recently (by their newest revision: GET /search/metadata?sort=edited).
import { useState } from 'preact/hooks';
import { get, post, query } from '../api/client.ts';
import type { RecordRow, Space } from '../api/types.ts';
import { Icon } from '../components/icons.tsx';
import { AsyncView, Badge, DialogForm, Empty, ErrorBox, useTitle } from '../components/ui.tsx';
import { FieldError, fieldProps, issueFor } from '../components/field-error.tsx';
import { ApiError } from '../api/client.ts';
import { favourites } from '../lib/favourites.ts';
import { compareText, relativeTime } from '../lib/format.ts';
import { useAsync } from '../lib/use-async.ts';
import { href, navigate } from '../router.ts';
import { useSession } from '../session.ts';
import { rememberSpace } from './page-view.tsx';

export async function loadAllSpaces(): Promise<Space[]> {
  const out: Space[] = [];
  let cursor: string | null = null;
  do {
    const r: { spaces: Space[]; nextCursor: string | null } = await get(`/spaces${query({ limit: 200, cursor })}`);
    out.push(...r.spaces);
    r.spaces.forEach(rememberSpace);
    cursor = r.nextCursor;
  } while (cursor && out.length < 2000);
  return out;
}

/** Personal space first (one's own before others'), then by name. */
export function orderSpaces(spaces: Space[], me: string): Space[] {
  const rank = (s: Space): number => (s.slug === `~${me}` ? 0 : s.personal ? 2 : 1);
  return [...spaces].sort((a, b) => rank(a) - rank(b) || compareText(a.name, b.name));
}

export function Home() {
  useTitle('Home');
  const { principal } = useSession();
  const spaces = useAsync(loadAllSpaces, []);
  const recent = useAsync(() => get<{ pages: RecordRow[] }>('/search/metadata?sort=edited&limit=10'), []);
  const favs = useAsync(() => favourites(principal.id, true), [principal.id]);
  const [creating, setCreating] = useState(false);
  return (
    <div class="page-grid">
      <section aria-labelledby="spaces-title" class="content">
        <div class="view-head">
          <h1 id="spaces-title">Spaces</h1>
          <div class="actions">
            <button type="button" class="button" onClick={() => setCreating(true)}>
              <Icon name="plus" />
              New space
            </button>
            <a class="button" href={href.gallery()}>
              <Icon name="grid" />
              From a template
            </a>
          </div>
        </div>
        <AsyncView value={spaces} what="list">
          {(list) =>
            list.length === 0 ? (
              <Empty>
                No spaces yet — <a href={href.gallery()}>create one from a template</a>.
              </Empty>
            ) : (
              <ul class="cards">
                {orderSpaces(list, principal.name).map((s) => (
                  <li key={s.slug} class="card space-card">
                    <a href={href.space(s.slug)} class="card-link">
                      <span class="card-title">{s.name}</span>
                    </a>
                    <span class="muted mono">{s.slug}</span>
                    {s.personal && <Badge tone="accent">{s.slug === `~${principal.name}` ? 'Your personal space' : 'Personal'}</Badge>}
                    {s.description && <p class="muted clamp">{s.description}</p>}
                  </li>
                ))}
              </ul>
            )
          }
        </AsyncView>
      </section>
      <aside aria-label="Favourites and recent pages" class="side">
        <section aria-labelledby="favourites-title">
          <h2 id="favourites-title">Favourites</h2>
          <AsyncView value={favs} what="list">
            {(list) =>
              list.length === 0 ? (
                <Empty>
                  No favourites yet: mark a page with its <strong>Favourite</strong> button.
                </Empty>
              ) : (
                <ul class="plain-list">
                  {list.map((f) => (
                    <li key={`${f.space}/${f.path}`}>
                      <a href={href.page(f.space, f.path)}>{f.title}</a>
                      <span class="muted small"> {f.space}</span>
                    </li>
                  ))}
                </ul>
              )
            }
          </AsyncView>
        </section>
        <section aria-labelledby="recent-title">
          <h2 id="recent-title">Recently edited</h2>
          <AsyncView value={recent} what="list">
            {(r) =>
              r.pages.length === 0 ? (
                <Empty>
                  No pages yet — <a href={href.newPage()}>create one</a>.
                </Empty>
              ) : (
                <ul class="plain-list">
                  {r.pages.map((p) => (
                    <li key={`${p.space}/${p.path}`}>
                      <a href={href.page(p.space, p.path)}>{p.title}</a>
                      <span class="muted small">
                        {' '}
                        {p.space} · edited {relativeTime(p.updatedAt)}
                      </span>
                    </li>
                  ))}
                </ul>
              )
            }
          </AsyncView>
        </section>
      </aside>
      {creating && <NewSpaceDialog onClose={() => setCreating(false)} />}
    </div>
  );
}

function NewSpaceDialog({ onClose }: { onClose: () => void }) {
  const [slug, setSlug] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const issues = error instanceof ApiError ? error.issues : [];
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    try {
      const s = await post<Space>('/spaces', { slug: slug.trim(), name: name.trim() || slug.trim() });
      navigate(href.space(s.slug));
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <DialogForm title="New space" onClose={onClose} onSubmit={submit} busy={busy} submit="Create">
      {error !== null && issues.length === 0 && <ErrorBox error={error} />}
      <label class="field">
        <span class="label">Name</span>
        <input value={name} required onInput={(e) => setName(e.currentTarget.value)} {...fieldProps('ns-name', issueFor(issues, 'name'))} />
        <FieldError id="ns-name" issue={issueFor(issues, 'name')} />
      </label>
      <label class="field">
        <span class="label">Slug</span>
        <input
          value={slug}
          required
          pattern="[a-z0-9][a-z0-9\-]{0,62}"
          onInput={(e) => setSlug(e.currentTarget.value)}
          {...fieldProps('ns-slug', issueFor(issues, 'slug'))}
        />
        <span class="help">Lower-case letters, digits and dashes; used in addresses.</span>
        <FieldError id="ns-slug" issue={issueFor(issues, 'slug')} />
      </label>
    </DialogForm>
  );
}
