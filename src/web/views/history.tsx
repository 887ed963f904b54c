// History: the revisions of a page (author, time), one old revision, a diff of two, and
// "restore this version" (which writes a new revision).
import { useState } from 'preact/hooks';
import { get, pageApi, put, query } from '../api/client.ts';
import type { Page, Revision, RevisionSummary } from '../api/types.ts';
import { AsyncView, Breadcrumbs, Badge, ErrorBox, TableHead, Time, useTitle } from '../components/ui.tsx';
import { diffLines } from '../../text/line-merge.ts';
import { fullTime } from '../lib/format.ts';
import { useAsync } from '../lib/use-async.ts';
import { href, navigate } from '../router.ts';
import { pageCrumbs } from './page-view.tsx';

export function HistoryView({ space, path }: { space: string; path: string }) {
  const [cursor, setCursor] = useState<string | null>(null);
  const page = useAsync(() => get<Page>(pageApi(space, path)), [space, path]);
  const revs = useAsync(
    () =>
      get<{ revisions: RevisionSummary[]; nextCursor: string | null }>(`${pageApi(space, path)}/revisions${query({ limit: 50, cursor })}`),
    [space, path, cursor],
  );
  const [a, setA] = useState<number | null>(null);
  const [b, setB] = useState<number | null>(null);
  useTitle(`History of ${page.data?.title ?? path}`);
  return (
    <div class="content-wide">
      <Breadcrumbs items={[...pageCrumbs(space, space, path, page.data?.title), { label: 'History' }]} />
      <div class="view-head">
        <h1>History of {page.data?.title ?? path}</h1>
        <div class="actions">
          <a class="button" href={href.page(space, path)}>
            Back to the page
          </a>
        </div>
      </div>
      <AsyncView value={revs} what="page">
        {(r) => (
          <form
            class="stack"
            onSubmit={(e) => {
              e.preventDefault();
              if (a !== null && b !== null) navigate(href.diff(space, path, Math.min(a, b), Math.max(a, b)));
            }}
          >
            <table class="table">
              <caption class="sr-only">Revisions, newest first</caption>
              <TableHead cols={['Version', 'Title', 'Author', 'When', 'Compare']} />
              <tbody>
                {r.revisions.map((v) => (
                  <tr key={v.version}>
                    <td>
                      <a href={href.rev(space, path, v.version)}>Version {v.version}</a>
                      {page.data?.version === v.version && (
                        <>
                          {' '}
                          <Badge tone="accent">current</Badge>
                        </>
                      )}
                    </td>
                    <td>{v.title}</td>
                    <td>
                      {v.author.name} <span class="muted small">({v.author.kind})</span>
                    </td>
                    <td>
                      <Time iso={v.createdAt} />
                    </td>
                    <td class="nowrap">
                      <label class="check">
                        <input type="radio" name="from" checked={a === v.version} onChange={() => setA(v.version)} />{' '}
                        <span class="sr-only">Compare from version {v.version}</span>from
                      </label>{' '}
                      <label class="check">
                        <input type="radio" name="to" checked={b === v.version} onChange={() => setB(v.version)} />{' '}
                        <span class="sr-only">Compare to version {v.version}</span>to
                      </label>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <div class="actions">
              <button type="submit" class="button primary" disabled={a === null || b === null || a === b}>
                Compare versions
              </button>
              {r.nextCursor && (
                <button type="button" class="button" onClick={() => setCursor(r.nextCursor)}>
                  Older revisions
                </button>
              )}
              {cursor && (
                <button type="button" class="button ghost" onClick={() => setCursor(null)}>
                  Newest revisions
                </button>
              )}
            </div>
          </form>
        )}
      </AsyncView>
    </div>
  );
}

/** Restores by writing the old revision's fields as a new revision (the server has no restore route). */
async function restore(space: string, path: string, rev: Revision): Promise<void> {
  const current = await get<Page>(pageApi(space, path));
  await put(pageApi(space, path), {
    title: rev.title,
    content: rev.content,
    frontmatter: rev.frontmatter,
    metadata: rev.metadata,
    baseVersion: current.version,
  });
}

export function RevisionView({ space, path, rev }: { space: string; path: string; rev: number }) {
  const r = useAsync(() => get<Revision>(`${pageApi(space, path)}/revisions/${rev}?render=html`), [space, path, rev]);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  useTitle(`${r.data?.title ?? path} (version ${rev})`);
  const doRestore = async (v: Revision): Promise<void> => {
    setBusy(true);
    try {
      await restore(space, path, v);
      navigate(href.page(space, path));
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <AsyncView value={r} what="revision">
      {(v) => (
        <article class="content-wide" aria-labelledby="rev-title">
          <Breadcrumbs
            items={[
              ...pageCrumbs(space, space, path, v.title),
              { label: 'History', href: href.history(space, path) },
              { label: `Version ${rev}` },
            ]}
          />
          <div class="notice">
            Version {v.version}, by {v.author.name}, {fullTime(v.createdAt)}. This is an old revision.
          </div>
          <div class="view-head">
            <h1 id="rev-title">{v.title}</h1>
            <div class="actions">
              <button type="button" class="button primary" disabled={busy} onClick={() => doRestore(v)}>
                Restore this version
              </button>
              {v.version > 1 && (
                <a class="button" href={href.diff(space, path, v.version - 1, v.version)}>
                  Changes in this version
                </a>
              )}
              <a class="button ghost" href={href.history(space, path)}>
                History
              </a>
            </div>
          </div>
          {error !== null && <ErrorBox error={error} />}
          {v.html !== undefined ? (
            <div class="markdown" dangerouslySetInnerHTML={{ __html: v.html }} />
          ) : (
            <pre class="code">{v.content}</pre>
          )}
        </article>
      )}
    </AsyncView>
  );
}

export function DiffView({ space, path, from, to }: { space: string; path: string; from: number; to: number }) {
  const d = useAsync(async () => {
    const [a, b] = await Promise.all([
      get<Revision>(`${pageApi(space, path)}/revisions/${from}`),
      get<Revision>(`${pageApi(space, path)}/revisions/${to}`),
    ]);
    return { a, b };
  }, [space, path, from, to]);
  useTitle(`Changes ${from}..${to}`);
  return (
    <AsyncView value={d} what="revision">
      {({ a, b }) => {
        const ops = diffLines(a.content.split('\n'), b.content.split('\n'));
        const added = ops.filter((o) => o.type === 'add').length;
        const removed = ops.filter((o) => o.type === 'del').length;
        return (
          <div class="content-wide">
            <Breadcrumbs
              items={[
                ...pageCrumbs(space, space, path, b.title),
                { label: 'History', href: href.history(space, path) },
                { label: `Versions ${from} → ${to}` },
              ]}
            />
            <h1>
              Changes from version {from} to {to}
            </h1>
            <p class="muted">
              {added} line{added === 1 ? '' : 's'} added, {removed} removed
              {a.title !== b.title ? (
                <>
                  {' '}
                  · title: “{a.title}” → “{b.title}”
                </>
              ) : null}
            </p>
            <div class="diff" role="table" aria-label={`Changes from version ${from} to ${to}`}>
              {ops.map((o, i) => (
                <div key={i} role="row" class={`diff-line ${o.type}`}>
                  <span role="cell" class="diff-sign">
                    {o.type === 'add' ? '+' : o.type === 'del' ? '−' : ' '}
                    <span class="sr-only">{o.type === 'add' ? 'added' : o.type === 'del' ? 'removed' : ''}</span>
                  </span>
                  <span role="cell" class="diff-text">
                    {o.line || ' '}
                  </span>
                </div>
              ))}
            </div>
            <p class="actions">
              <a class="button" href={href.rev(space, path, from)}>
                Version {from}
              </a>
              <a class="button" href={href.rev(space, path, to)}>
                Version {to}
              </a>
            </p>
          </div>
        );
      }}
    </AsyncView>
  );
}
