// Webhooks in the admin view: list, create (the secret is shown once), enable/disable, test,
// rotate the secret, delete, and each subscription's delivery log.
import { useState } from 'preact/hooks';
import { ApiError, del, get, patch, post, query } from '../api/client.ts';
import { WEBHOOK_EVENTS, type Delivery, type TestResult, type Webhook } from '../api/types.ts';
import { Field, fieldProps, issueFor } from '../components/field-error.tsx';
import { ShownOnce } from '../components/shown-once.tsx';
import { AsyncView, Badge, ErrorBox, FormSubmit, TableHead } from '../components/ui.tsx';
import { fullTime } from '../lib/format.ts';
import { useAsync } from '../lib/use-async.ts';

export function WebhooksAdmin() {
  const hooks = useAsync(() => get<Webhook[]>('/admin/webhooks'), []);
  const [secret, setSecret] = useState<{ id: string; secret: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <section class="panel" aria-labelledby="wh-title">
      <h2 id="wh-title">Webhooks</h2>
      {secret && <ShownOnce what="Signing secret" value={secret.secret} onDone={() => setSecret(null)} />}
      <AsyncView value={hooks} what="list">
        {(list) =>
          list.length === 0 ? (
            <p class="muted">No webhooks yet.</p>
          ) : (
            <ul class="plain-list webhooks">
              {list.map((w) => (
                <li key={w.id} class="webhook">
                  <WebhookRow
                    hook={w}
                    onChanged={hooks.reload}
                    onSecret={(s) => setSecret({ id: w.id, secret: s })}
                    open={open === w.id}
                    onToggleLog={() => setOpen(open === w.id ? null : w.id)}
                  />
                </li>
              ))}
            </ul>
          )
        }
      </AsyncView>
      <CreateWebhook
        onCreated={(w) => {
          if (w.secret) setSecret({ id: w.id, secret: w.secret });
          hooks.reload();
        }}
      />
    </section>
  );
}

function WebhookRow({
  hook,
  onChanged,
  onSecret,
  open,
  onToggleLog,
}: {
  hook: Webhook;
  onChanged: () => void;
  onSecret: (s: string) => void;
  open: boolean;
  onToggleLog: () => void;
}) {
  const [result, setResult] = useState('');
  const [error, setError] = useState<unknown>(null);
  const run = (p: Promise<unknown>): void => {
    setError(null);
    p.catch(setError);
  };
  return (
    <div>
      <div class="webhook-head">
        <span class="mono">{hook.url}</span>
        {hook.enabled ? <Badge tone="ok">enabled</Badge> : <Badge tone="warn">disabled</Badge>}
        <span class="muted small">
          {hook.events.join(', ')}
          {hook.spaceSlug ? ` · space ${hook.spaceSlug}` : ''}
        </span>
      </div>
      <div class="actions">
        <button
          type="button"
          class="button small"
          onClick={() =>
            run(
              post<TestResult>(`/admin/webhooks/${hook.id}/test`).then((r) =>
                setResult(
                  `Test: ${r.outcome}${r.status ? ` (HTTP ${r.status})` : ''}${r.error ? ` — ${r.error}` : ''}, ${r.durationMs} ms`,
                ),
              ),
            )
          }
        >
          Send test
        </button>
        <button
          type="button"
          class="button small"
          onClick={() =>
            run(
              post<Webhook>(`/admin/webhooks/${hook.id}/rotate-secret`).then((w) => {
                if (w.secret) onSecret(w.secret);
              }),
            )
          }
        >
          Rotate secret
        </button>
        <button
          type="button"
          class="button small"
          onClick={() => run(patch(`/admin/webhooks/${hook.id}`, { enabled: !hook.enabled }).then(onChanged))}
        >
          {hook.enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" class="button small" aria-expanded={open} onClick={onToggleLog}>
          Delivery log
        </button>
        <button
          type="button"
          class="button small danger"
          onClick={() => {
            if (confirm(`Delete the webhook to ${hook.url}?`)) run(del(`/admin/webhooks/${hook.id}`).then(onChanged));
          }}
        >
          Delete
        </button>
      </div>
      {result && (
        <p role="status" class="small">
          {result}
        </p>
      )}
      {error !== null && <ErrorBox error={error} />}
      {open && <DeliveryLog id={hook.id} />}
    </div>
  );
}

function DeliveryLog({ id }: { id: string }) {
  const [cursor, setCursor] = useState<string | null>(null);
  const log = useAsync(
    () => get<{ deliveries: Delivery[]; nextCursor: string | null }>(`/admin/webhooks/${id}/deliveries${query({ limit: 20, cursor })}`),
    [id, cursor],
  );
  return (
    <AsyncView value={log} what="webhook">
      {(r) =>
        r.deliveries.length === 0 ? (
          <p class="muted small">No deliveries yet.</p>
        ) : (
          <>
            <table class="table compact">
              <TableHead cols={['When', 'Event', 'Attempt', 'Outcome', 'Detail']} />
              <tbody>
                {r.deliveries.map((d) => (
                  <tr key={`${d.id}-${d.attempt}`}>
                    <td class="nowrap">{fullTime(d.at)}</td>
                    <td>{d.event}</td>
                    <td>{d.attempt}</td>
                    <td>
                      <Badge tone={d.outcome === 'delivered' ? 'ok' : 'warn'}>{d.outcome}</Badge>
                    </td>
                    <td class="small">
                      {d.status ? `HTTP ${d.status}` : ''} {d.error ?? ''} · {d.durationMs} ms
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {r.nextCursor && (
              <button type="button" class="button small" onClick={() => setCursor(r.nextCursor)}>
                Older deliveries
              </button>
            )}
          </>
        )
      }
    </AsyncView>
  );
}

function CreateWebhook({ onCreated }: { onCreated: (w: Webhook) => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>([...WEBHOOK_EVENTS]);
  const [spaceSlug, setSpaceSlug] = useState('');
  const [error, setError] = useState<unknown>(null);
  const issues = error instanceof ApiError ? error.issues : [];
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError(null);
    try {
      onCreated(
        await post<Webhook>('/admin/webhooks', { url: url.trim(), events, ...(spaceSlug.trim() ? { spaceSlug: spaceSlug.trim() } : {}) }),
      );
      setUrl('');
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="stack" noValidate onSubmit={submit} aria-labelledby="wh-new-title">
      <h3 id="wh-new-title">Add a webhook</h3>
      {error !== null && issues.length === 0 && <ErrorBox error={error} />}
      <div class="grid-2">
        <Field id="wh-url" label="URL" issue={issueFor(issues, 'url')}>
          <input
            {...fieldProps('wh-url', issueFor(issues, 'url'))}
            type="url"
            placeholder="https://"
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
        </Field>
        <Field id="wh-space" label="Only this space (optional)" issue={issueFor(issues, 'spaceSlug')}>
          <input
            {...fieldProps('wh-space', issueFor(issues, 'spaceSlug'))}
            value={spaceSlug}
            onInput={(e) => setSpaceSlug(e.currentTarget.value)}
          />
        </Field>
      </div>
      <fieldset class="checks">
        <legend>Events</legend>
        {WEBHOOK_EVENTS.map((ev) => (
          <label key={ev} class="check">
            <input
              type="checkbox"
              checked={events.includes(ev)}
              onChange={(e) => setEvents(e.currentTarget.checked ? [...events, ev] : events.filter((x) => x !== ev))}
            />{' '}
            {ev}
          </label>
        ))}
        {issueFor(issues, 'events') && <span class="field-error">{issueFor(issues, 'events')!.message}</span>}
      </fieldset>
      <FormSubmit>Add webhook</FormSubmit>
    </form>
  );
}
