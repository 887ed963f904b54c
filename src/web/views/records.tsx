// A record type as a table: columns from its schema, filters and sort kept in the address,
// cursor paging, and the records the current schema no longer accepts.
import { useState } from 'preact/hooks';
import { get, query, spaceApi } from '../api/client.ts';
import type { RecordRow, RecordType } from '../api/types.ts';
import { FilterBuilder } from '../components/filter-builder.tsx';
import { AsyncView, Breadcrumbs, Empty, ErrorBox, Loading, NotFound, useTitle } from '../components/ui.tsx';
import { formatValue, relativeTime } from '../lib/format.ts';
import { fieldType, fromFilterRows, parseFilters, toFilterRows, type FilterRow } from '../lib/filters.ts';
import { useAsync } from '../lib/use-async.ts';
import { href, navigate } from '../router.ts';

export function RecordsView({ space, type, params }: { space: string; type: string; params: URLSearchParams }) {
  useTitle(`${type} records`);
  const types = useAsync(() => get<RecordType[]>(`${spaceApi(space)}/record-types`), [space]);
  return (
    <AsyncView value={types} what="space">
      {(list) => {
        const t = list.find((x) => x.name === type);
        // A type of another space (`other:N`) is not in this list; show it with the fields its records have.
        if (!t && !type.includes(':')) return <NotFound what="record type" />;
        return <RecordTable space={space} type={type} recordType={t ?? null} params={params} />;
      }}
    </AsyncView>
  );
}

function RecordTable({
  space,
  type,
  recordType,
  params,
}: {
  space: string;
  type: string;
  recordType: RecordType | null;
  params: URLSearchParams;
}) {
  const fields = recordType?.fields ?? [];
  const filtersParam = params.get('filters') ?? '';
  const orderBy = params.get('orderBy') ?? '';
  const order = params.get('order') === 'desc' ? 'desc' : 'asc';
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1];
  const [rows, setRows] = useState<FilterRow[]>(() => toFilterRows(parseFilters(filtersParam)));
  const base = `${spaceApi(space)}/records/${encodeURIComponent(type)}`;
  const data = useAsync(
    () =>
      get<{ pages: RecordRow[]; nextCursor: string | null }>(
        `${base}${query({ filters: filtersParam || undefined, orderBy: orderBy || undefined, order: orderBy || order === 'desc' ? order : undefined, limit: 50, cursor })}`,
      ),
    [base, filtersParam, orderBy, order, cursor],
  );
  const bad = useAsync(() => get<{ path: string; issues: { key: string; message: string }[] }[]>(`${base}/nonconforming`), [base]);

  const go = (next: { filters?: string; orderBy?: string; order?: string }): void => {
    const q = new URLSearchParams();
    const f = next.filters ?? filtersParam;
    const ob = next.orderBy ?? orderBy;
    const o = next.order ?? order;
    if (f && f !== '[]') q.set('filters', f);
    if (ob) q.set('orderBy', ob);
    if (o === 'desc') q.set('order', 'desc');
    setCursors([null]);
    const s = q.toString();
    navigate(`${href.records(space, type)}${s ? `?${s}` : ''}`);
  };
  const sortBy = (key: string): void => go({ orderBy: key, order: orderBy === key && order === 'asc' ? 'desc' : 'asc' });
  const ariaSort = (key: string): 'ascending' | 'descending' | undefined =>
    orderBy === key ? (order === 'asc' ? 'ascending' : 'descending') : undefined;
  const keys = fields.map((f) => ({ key: f.key, label: f.label ?? f.key }));
  const columns = fields.length
    ? fields.map((f) => ({ key: f.key, label: f.label ?? f.key }))
    : Object.keys(data.data?.pages[0]?.metadata ?? {})
        .filter((k) => k !== 'template')
        .map((k) => ({ key: k, label: k }));

  return (
    <div class="content-wide">
      <Breadcrumbs
        items={[{ label: 'Home', href: href.home() }, { label: space, href: href.space(space) }, { label: `${type} records` }]}
      />
      <div class="view-head">
        <div>
          <h1>{type}</h1>
          {recordType?.description && <p class="muted">{recordType.description}</p>}
        </div>
        <div class="actions">
          <a class="button primary" href={href.newPage({ space, template: type.includes(':') ? type : `${space}:${type}` })}>
            New {type}
          </a>
        </div>
      </div>
      <details class="panel" open={rows.length > 0}>
        <summary>Filters{rows.length > 0 ? ` (${rows.length})` : ''}</summary>
        <FilterBuilder
          rows={rows}
          keys={keys}
          idPrefix="rt"
          onChange={setRows}
          onApply={() => go({ filters: JSON.stringify(fromFilterRows(rows, fieldType(fields))) })}
        />
      </details>
      {data.status === 'error' ? (
        <ErrorBox error={data.error} retry={data.reload} />
      ) : !data.data ? (
        <Loading />
      ) : data.data.pages.length === 0 ? (
        <Empty>
          {filtersParam ? (
            'No records match these filters.'
          ) : (
            <>
              No {type} records yet —{' '}
              <a href={href.newPage({ space, template: type.includes(':') ? type : `${space}:${type}` })}>create one</a>.
            </>
          )}
        </Empty>
      ) : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label={`${type} records`}>
          <table class="table">
            <thead>
              <tr>
                <th scope="col" aria-sort={orderBy === '' ? (order === 'asc' ? 'ascending' : 'descending') : undefined}>
                  Title
                </th>
                {columns.map((c) => (
                  <th scope="col" key={c.key} aria-sort={ariaSort(c.key)}>
                    <button type="button" class="sort" onClick={() => sortBy(c.key)}>
                      {c.label}
                      <span aria-hidden="true">{orderBy === c.key ? (order === 'asc' ? ' ▲' : ' ▼') : ''}</span>
                    </button>
                  </th>
                ))}
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {data.data.pages.map((r) => (
                <tr key={r.path}>
                  <td>
                    <a href={href.page(r.space, r.path)}>{r.title}</a>
                  </td>
                  {columns.map((c) => (
                    <td key={c.key}>{formatValue(r.metadata[c.key])}</td>
                  ))}
                  <td class="nowrap muted">{relativeTime(r.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="actions">
        {cursors.length > 1 && (
          <button type="button" class="button" onClick={() => setCursors(cursors.slice(0, -1))}>
            Previous page
          </button>
        )}
        {data.data?.nextCursor && (
          <button type="button" class="button" onClick={() => setCursors([...cursors, data.data!.nextCursor])}>
            Next page
          </button>
        )}
      </div>
      <section aria-labelledby="nc-title" class="panel">
        <h2 id="nc-title">Nonconforming records</h2>
        <AsyncView value={bad} what="record type">
          {(list) =>
            list.length === 0 ? (
              <p class="muted">Every record satisfies the current schema.</p>
            ) : (
              <ul class="plain-list">
                {list.map((n) => (
                  <li key={n.path}>
                    <a href={href.edit(space, n.path)}>{n.path}</a>: {n.issues.map((i) => `${i.key} ${i.message}`).join('; ')}
                  </li>
                ))}
              </ul>
            )
          }
        </AsyncView>
      </section>
    </div>
  );
}
