// The space-template gallery: built-in, remote and org entries marked by source, a Create space
// dialog per entry (?template=<source>/<id> opens it), and "save a space as an org template".
import { useState } from 'preact/hooks';
import { ApiError, get, post } from '../api/client.ts';
import type { GalleryEntry, Space } from '../api/types.ts';
import { Field, fieldProps, issueFor } from '../components/field-error.tsx';
import { AsyncView, Badge, Breadcrumbs, Dialog, Empty, ErrorBox, NotFound, useTitle } from '../components/ui.tsx';
import { plural } from '../lib/format.ts';
import { useAsync } from '../lib/use-async.ts';
import { href, navigate } from '../router.ts';
import { useSession } from '../session.ts';
import { loadAllSpaces } from './home.tsx';

const entryId = (e: GalleryEntry): string => `${e.source}/${e.id}`;
const SOURCE_LABEL: Record<string, string> = { 'built-in': 'Built-in', remote: 'Remote', org: 'Your organisation' };

function suggestSlug(name: string): string {
  return (
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 63) || 'space'
  );
}

export function Gallery({ template }: { template: string }) {
  useTitle('Space templates');
  const { principal } = useSession();
  const entries = useAsync(() => get<GalleryEntry[]>('/space-templates'), []);
  const open = (e: GalleryEntry | null): void => navigate(href.gallery(e ? entryId(e) : undefined), { replace: true });
  return (
    <div class="content-wide">
      <Breadcrumbs items={[{ label: 'Home', href: href.home() }, { label: 'Gallery' }]} />
      <h1>Space templates</h1>
      <p class="muted">Start a new space with pages, page templates and record types already in place.</p>
      <AsyncView value={entries} what="gallery">
        {(list) => {
          const chosen = template ? list.find((e) => entryId(e) === template) : undefined;
          if (template && !chosen)
            return (
              <NotFound what="space template">
                <p>
                  <a href={href.gallery()}>See all space templates</a>
                </p>
              </NotFound>
            );
          return (
            <>
              {list.length === 0 ? (
                <Empty>No space templates are available.</Empty>
              ) : (
                <ul class="cards gallery">
                  {list.map((e) => (
                    <li key={entryId(e)} class="card gallery-entry" aria-labelledby={`g-${e.source}-${e.id}`}>
                      <div class="card-top">
                        <h2 id={`g-${e.source}-${e.id}`} class="card-title">
                          {e.name}
                        </h2>
                        <Badge tone={e.source === 'org' ? 'accent' : e.source === 'remote' ? 'warn' : 'plain'}>
                          {SOURCE_LABEL[e.source] ?? e.source}
                        </Badge>
                      </div>
                      {e.description && <p class="muted clamp">{e.description}</p>}
                      <p class="muted small">{plural(e.pages, 'page')}</p>
                      <button type="button" class="button primary" aria-describedby={`g-${e.source}-${e.id}`} onClick={() => open(e)}>
                        Create space
                      </button>
                    </li>
                  ))}
                </ul>
              )}
              {chosen && <CreateSpaceDialog entry={chosen} onClose={() => open(null)} />}
            </>
          );
        }}
      </AsyncView>
      {principal.orgAdmin && <SaveOrgTemplate onSaved={entries.reload} />}
    </div>
  );
}

function CreateSpaceDialog({ entry, onClose }: { entry: GalleryEntry; onClose: () => void }) {
  const [name, setName] = useState(entry.name);
  const [slug, setSlug] = useState(suggestSlug(entry.name));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const issues = error instanceof ApiError ? error.issues : [];
  const slugIssue =
    issueFor(issues, 'slug') ??
    (error instanceof ApiError && error.status === 409
      ? { key: 'slug', code: 'conflict', message: 'a space with this slug exists already' }
      : undefined);
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const r = await post<{ space: Space }>(
        `/space-templates/${encodeURIComponent(entry.source)}/${encodeURIComponent(entry.id)}/spaces`,
        { slug: slug.trim(), name: name.trim() || undefined },
      );
      navigate(href.space(r.space.slug));
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <Dialog title={`Create a space from “${entry.name}”`} onClose={onClose}>
      <form class="stack" noValidate onSubmit={submit}>
        {error !== null && !slugIssue && <ErrorBox error={error} />}
        <Field id="cs-slug" label="Slug" issue={slugIssue} help="Lower-case letters, digits and dashes, used in addresses.">
          <input
            {...fieldProps('cs-slug', slugIssue, 'cs-slug-help')}
            value={slug}
            required
            onInput={(e) => setSlug(e.currentTarget.value)}
          />
        </Field>
        <Field id="cs-name" label="Name" issue={issueFor(issues, 'name')}>
          <input {...fieldProps('cs-name', issueFor(issues, 'name'))} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <div class="actions">
          <button type="submit" class="button primary" disabled={busy}>
            {busy ? 'Creating…' : 'Create'}
          </button>
          <button type="button" class="button ghost" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function SaveOrgTemplate({ onSaved }: { onSaved: () => void }) {
  const spaces = useAsync(loadAllSpaces, []);
  const [space, setSpace] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState('');
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError(null);
    try {
      const r = await post<GalleryEntry>('/space-templates/org', {
        space,
        name: name.trim(),
        description: description.trim() || undefined,
      });
      setDone(`Saved “${r.name}” as an org template.`);
      onSaved();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section class="panel" aria-labelledby="org-t-title">
      <h2 id="org-t-title">Save a space as an org template</h2>
      <p class="muted small">A snapshot of the space as it is now; pages with their own access list are left out.</p>
      <form class="grid-3" onSubmit={submit}>
        <label class="field">
          <span class="label">Space to save</span>
          <select
            value={space}
            required
            onChange={(e) => {
              setSpace(e.currentTarget.value);
              if (!name) setName(spaces.data?.find((s) => s.slug === e.currentTarget.value)?.name ?? '');
            }}
          >
            <option value="">Choose…</option>
            {(spaces.data ?? [])
              .filter((s) => !s.personal)
              .map((s) => (
                <option key={s.slug} value={s.slug}>
                  {s.name}
                </option>
              ))}
          </select>
        </label>
        <label class="field">
          <span class="label">Template name</span>
          <input value={name} required onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span class="label">Description</span>
          <input value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        </label>
        <div class="actions">
          <button type="submit" class="button">
            Save as org template
          </button>
        </div>
      </form>
      {error !== null && <ErrorBox error={error} />}
      {done && (
        <p role="status" class="ok">
          {done}
        </p>
      )}
    </section>
  );
}
