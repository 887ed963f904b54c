// Admin (org admins): principals and users, API keys (a new key is shown once), webhooks.
import { useState } from 'preact/hooks';
import { ApiError, del, get, post } from '../api/client.ts';
import type { ApiKeyInfo, NewApiKey, Principal } from '../api/types.ts';
import { Field, fieldProps, issueFor } from '../components/field-error.tsx';
import { ShownOnce } from '../components/shown-once.tsx';
import { AsyncView, Badge, Breadcrumbs, ErrorBox, FormSubmit, TableHead, useTitle } from '../components/ui.tsx';
import { fullTime } from '../lib/format.ts';
import { useAsync } from '../lib/use-async.ts';
import { href } from '../router.ts';
import { useSession } from '../session.ts';
import { WebhooksAdmin } from './admin-webhooks.tsx';

export function Admin() {
  useTitle('Admin');
  const { principal } = useSession();
  const people = useAsync(() => get<Principal[]>('/admin/principals'), []);
  const [selected, setSelected] = useState<string | null>(null);
  if (!principal.orgAdmin) {
    return (
      <section class="state-view">
        <h1>Admin</h1>
        <p>Only org admins may see this.</p>
        <p>
          <a href={href.home()}>Back to home</a>
        </p>
      </section>
    );
  }
  return (
    <div class="content-wide">
      <Breadcrumbs items={[{ label: 'Home', href: href.home() }, { label: 'Admin' }]} />
      <h1>Admin</h1>
      <section class="panel" aria-labelledby="people-title">
        <h2 id="people-title">Principals</h2>
        <AsyncView value={people} what="list">
          {(list) => (
            <table class="table">
              <TableHead cols={['Name', 'Kind', 'Role']} actions="Actions" />
              <tbody>
                {list.map((p) => (
                  <tr key={p.id} class={selected === p.id ? 'selected' : ''}>
                    <td>
                      {p.name} <span class="muted small mono">{p.id}</span>
                    </td>
                    <td>{p.kind}</td>
                    <td>{p.orgAdmin ? <Badge tone="accent">org admin</Badge> : 'member'}</td>
                    <td>
                      <div class="actions">
                        <button
                          type="button"
                          class="button small"
                          aria-pressed={selected === p.id}
                          onClick={() => setSelected(selected === p.id ? null : p.id)}
                        >
                          Keys of {p.name}
                        </button>
                        {p.kind === 'user' && p.id !== principal.id && <EndSessions principal={p} />}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </AsyncView>
        <CreatePrincipal onCreated={people.reload} />
      </section>
      {selected && people.data && <KeysPanel key={selected} principal={people.data.find((p) => p.id === selected)!} />}
      <WebhooksAdmin />
    </div>
  );
}

function EndSessions({ principal }: { principal: Principal }) {
  const [state, setState] = useState('');
  return (
    <>
      <button
        type="button"
        class="button small ghost"
        onClick={() =>
          del(`/admin/principals/${encodeURIComponent(principal.id)}/sessions`).then(
            () => setState('Signed out'),
            (e: unknown) => setState(e instanceof Error ? e.message : 'Failed'),
          )
        }
      >
        Sign {principal.name} out everywhere
      </button>
      {state && (
        <span role="status" class="small muted">
          {state}
        </span>
      )}
    </>
  );
}

function CreatePrincipal({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [kind, setKind] = useState<'user' | 'agent'>('user');
  const [password, setPassword] = useState('');
  const [orgAdmin, setOrgAdmin] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState('');
  const issues = error instanceof ApiError ? error.issues : [];
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError(null);
    try {
      const p = await post<Principal>('/admin/principals', { name: name.trim(), kind, orgAdmin, ...(kind === 'user' ? { password } : {}) });
      setDone(`Created ${p.kind} ${p.name}.`);
      setName('');
      setPassword('');
      setOrgAdmin(false);
      onCreated();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="stack create-principal" noValidate onSubmit={submit} aria-labelledby="cp-title">
      <h3 id="cp-title">Add a user or agent</h3>
      {error !== null && issues.length === 0 && <ErrorBox error={error} />}
      <div class="grid-3">
        <Field id="cp-name" label="Principal name" issue={issueFor(issues, 'name')}>
          <input
            {...fieldProps('cp-name', issueFor(issues, 'name'))}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
            autoComplete="off"
          />
        </Field>
        <Field id="cp-kind" label="Kind">
          <select id="cp-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as 'user' | 'agent')}>
            <option value="user">user (signs in with a password)</option>
            <option value="agent">agent (uses API keys)</option>
          </select>
        </Field>
        {kind === 'user' && (
          <Field id="cp-password" label="Initial password" issue={issueFor(issues, 'password')} help="At least 8 characters.">
            <input
              {...fieldProps('cp-password', issueFor(issues, 'password'), 'cp-password-help')}
              type="password"
              autoComplete="new-password"
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          </Field>
        )}
      </div>
      <label class="check">
        <input type="checkbox" checked={orgAdmin} onChange={(e) => setOrgAdmin(e.currentTarget.checked)} /> Org admin
      </label>
      <FormSubmit>Add principal</FormSubmit>
      {done && (
        <p role="status" class="ok">
          {done}
        </p>
      )}
    </form>
  );
}

function KeysPanel({ principal }: { principal: Principal }) {
  const keys = useAsync(() => get<ApiKeyInfo[]>(`/admin/principals/${encodeURIComponent(principal.id)}/keys`), [principal.id]);
  const [created, setCreated] = useState<NewApiKey | null>(null);
  const [error, setError] = useState<unknown>(null);
  const create = async (): Promise<void> => {
    setError(null);
    try {
      setCreated(await post<NewApiKey>(`/admin/principals/${encodeURIComponent(principal.id)}/keys`));
      keys.reload();
    } catch (err) {
      setError(err);
    }
  };
  const revoke = async (k: ApiKeyInfo): Promise<void> => {
    if (!confirm(`Revoke key ${k.prefix}…? Requests with it are refused at once.`)) return;
    try {
      await del(`/admin/keys/${encodeURIComponent(k.id)}`);
      keys.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section class="panel" aria-labelledby="keys-title">
      <h2 id="keys-title">API keys of {principal.name}</h2>
      {created && (
        <ShownOnce what="New key" value={created.key} label="New API key" copy class="key-once" onDone={() => setCreated(null)} />
      )}
      {error !== null && <ErrorBox error={error} />}
      <AsyncView value={keys} what="principal">
        {(list) =>
          list.length === 0 ? (
            <p class="muted">No keys.</p>
          ) : (
            <table class="table">
              <TableHead cols={['Key', 'Created', 'State']} actions="Actions" />
              <tbody>
                {list.map((k) => (
                  <tr key={k.id}>
                    <td class="mono">{k.prefix}…</td>
                    <td>{fullTime(k.createdAt)}</td>
                    <td>{k.revokedAt ? <Badge tone="warn">revoked {fullTime(k.revokedAt)}</Badge> : <Badge tone="ok">active</Badge>}</td>
                    <td>
                      {!k.revokedAt && (
                        <button type="button" class="button small danger" onClick={() => revoke(k)}>
                          Revoke {k.prefix}
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </AsyncView>
      {principal.kind === 'agent' ? (
        <button type="button" class="button primary" onClick={create}>
          Create API key
        </button>
      ) : (
        <p class="muted small">Users sign in with a password; API keys are for agents.</p>
      )}
    </section>
  );
}
