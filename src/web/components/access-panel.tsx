// A page's access list, editable by those who may write the page. Principals are named when the
// person may list them (org admins); otherwise they are shown by id.
import { useState } from 'preact/hooks';
import { del, get, pageApi, put } from '../api/client.ts';
import type { Acl, Principal } from '../api/types.ts';
import { useAsync } from '../lib/use-async.ts';
import { useSession } from '../session.ts';
import { ErrorBox } from './ui.tsx';

const lines = (s: string): string[] =>
  s
    .split(/[\s,]+/)
    .map((x) => x.trim())
    .filter(Boolean);

export function AccessPanel({ space, path, acl, onChange }: { space: string; path: string; acl: Acl; onChange: () => void }) {
  const { principal } = useSession();
  const people = useAsync(
    () => (principal.orgAdmin ? get<Principal[]>('/admin/principals') : Promise.resolve([] as Principal[])),
    [principal.orgAdmin],
  );
  const byName = new Map((people.data ?? []).map((p) => [p.name, p.id]));
  const nameOf = (id: string): string => (people.data ?? []).find((p) => p.id === id)?.name ?? (id === principal.id ? principal.name : id);
  const idOf = (s: string): string => byName.get(s) ?? (s === principal.name ? principal.id : s);
  const [editing, setEditing] = useState(false);
  const [read, setRead] = useState(acl.read.map(nameOf).join('\n'));
  const [write, setWrite] = useState(acl.write.map(nameOf).join('\n'));
  const [error, setError] = useState<unknown>(null);
  const save = async (e: Event): Promise<void> => {
    e.preventDefault();
    try {
      await put(`${pageApi(space, path)}/acl`, { read: lines(read).map(idOf), write: lines(write).map(idOf) });
      setEditing(false);
      setError(null);
      onChange();
    } catch (err) {
      setError(err);
    }
  };
  const clear = async (): Promise<void> => {
    try {
      await del(`${pageApi(space, path)}/acl`);
      setEditing(false);
      onChange();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="access-title" class="panel">
      <h2 id="access-title">Access</h2>
      {!acl.restricted ? (
        <p class="muted">Follows the space's default access.</p>
      ) : (
        <dl class="meta">
          <div class="meta-row">
            <dt>Read</dt>
            <dd>{[...new Set([...acl.read, ...acl.write])].map(nameOf).join(', ') || 'org admins only'}</dd>
          </div>
          <div class="meta-row">
            <dt>Write</dt>
            <dd>{acl.write.map(nameOf).join(', ') || 'org admins only'}</dd>
          </div>
        </dl>
      )}
      {error !== null && <ErrorBox error={error} />}
      {!editing ? (
        <div class="actions">
          <button type="button" class="button small" onClick={() => setEditing(true)}>
            {acl.restricted ? 'Change access' : 'Restrict access'}
          </button>
          {acl.restricted && (
            <button type="button" class="button small ghost" onClick={clear}>
              Remove restriction
            </button>
          )}
        </div>
      ) : (
        <form class="stack" onSubmit={save}>
          <label class="field">
            <span class="label">Readers</span>
            <textarea rows={3} value={read} onInput={(e) => setRead(e.currentTarget.value)} aria-describedby="acl-help" />
          </label>
          <label class="field">
            <span class="label">Writers</span>
            <textarea rows={3} value={write} onInput={(e) => setWrite(e.currentTarget.value)} aria-describedby="acl-help" />
          </label>
          <p class="help" id="acl-help">
            One {principal.orgAdmin ? 'name' : 'principal id'} per line. Writers may also read; org admins always may.
          </p>
          <div class="actions">
            <button type="submit" class="button primary small">
              Save access
            </button>
            <button type="button" class="button small ghost" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
