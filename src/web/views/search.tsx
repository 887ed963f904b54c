// Search: full-text hits with highlighted snippets, and a metadata query builder whose keys come
// from key discovery. Both are kept in the address (?q=, ?filters=).
import { useEffect, useState } from 'preact/hooks';
import { get, query } from '../api/client.ts';
import type { MetaKey, RecordRow, SearchHit } from '../api/types.ts';
import { FilterBuilder } from '../components/filter-builder.tsx';
import { Empty, ErrorBox, Loading, useTitle } from '../components/ui.tsx';
import { fromFilterRows, parseFilters, toFilterRows, type FilterRow } from '../lib/filters.ts';
import { formatValue } from '../lib/format.ts';
import { parseSnippet } from '../lib/snippet.ts';
import { useAsync } from '../lib/use-async.ts';
import { href, navigate } from '../router.ts';

function Snippet({ html }: { html: string }) {
  return (
    <p class="snippet">{parseSnippet(html).map((p, i) => (p.mark ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}</p>
  );
}

function FullText({ q }: { q: string }) {
  const [hits, setHits] = useState<SearchHit[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [state, setState] = useState<'loading' | 'ok' | 'error'>('loading');
  const [error, setError] = useState<unknown>(null);
  const load = (after: string | null): void => {
    setState('loading');
    get<{ hits: SearchHit[]; nextCursor: string | null }>(`/search${query({ q, limit: 20, cursor: after })}`).then(
      (r) => {
        setHits((h) => (after ? [...h, ...r.hits] : r.hits));
        setCursor(r.nextCursor);
        setState('ok');
      },
      (err: unknown) => {
        setError(err);
        setState('error');
      },
    );
  };
  useEffect(() => {
    setHits([]);
    load(null);
  }, [q]);
  return (
    <section aria-labelledby="results-title">
      <h2 id="results-title">Results for “{q}”</h2>
      {state === 'error' && <ErrorBox error={error} retry={() => load(null)} />}
      {state !== 'loading' && hits.length === 0 && state === 'ok' && (
        <Empty>
          No page holds any of the words of “{q}”; try other words, or a prefix like <span class="mono">hab*</span>.
        </Empty>
      )}
      <ol class="hits">
        {hits.map((h) => (
          <li key={`${h.space}/${h.path}`} class="hit">
            <a href={href.page(h.space, h.path)} class="hit-title">
              {h.title}
            </a>
            <span class="muted small mono">
              {' '}
              {h.space}/{h.path}
            </span>
            <Snippet html={h.snippet} />
          </li>
        ))}
      </ol>
      {state === 'loading' && <Loading label="Searching…" />}
      {state === 'ok' && cursor && (
        <button type="button" class="button" onClick={() => load(cursor)}>
          More results
        </button>
      )}
    </section>
  );
}

function MetadataQuery({ filters }: { filters: string }) {
  const keys = useAsync(() => get<MetaKey[]>('/search/metadata/keys'), []);
  const [rows, setRows] = useState<FilterRow[]>(() => toFilterRows(parseFilters(filters)));
  const typeOf = (k: string): string | undefined => {
    const t = keys.data?.find((x) => x.key === k)?.types ?? [];
    return t.includes('number') && t.length === 1
      ? 'number'
      : t.includes('boolean') && t.length === 1
        ? 'boolean'
        : t.length
          ? 'string'
          : undefined;
  };
  const results = useAsync(
    () =>
      filters
        ? get<{ pages: RecordRow[]; nextCursor: string | null }>(`/search/metadata${query({ filters, limit: 50 })}`)
        : Promise.resolve(null),
    [filters],
  );
  const apply = (): void => {
    const q = new URLSearchParams(location.search);
    const f = fromFilterRows(rows, typeOf);
    if (f.length) q.set('filters', JSON.stringify(f));
    else q.delete('filters');
    navigate(`/app/search?${q.toString()}`);
  };
  return (
    <section aria-labelledby="mq-title" class="panel">
      <h2 id="mq-title">Metadata query</h2>
      <FilterBuilder
        rows={rows}
        idPrefix="mq"
        onChange={setRows}
        onApply={apply}
        keys={(keys.data ?? []).map((k) => ({ key: k.key, label: `${k.key} (${k.types.join(', ')}; ${k.pages} pages)` }))}
      />
      {filters &&
        (results.status === 'error' ? (
          <ErrorBox error={results.error} />
        ) : !results.data ? (
          <Loading />
        ) : results.data.pages.length === 0 ? (
          <Empty>No pages match these filters.</Empty>
        ) : (
          <ul class="plain-list">
            {results.data.pages.map((p) => (
              <li key={`${p.space}/${p.path}`}>
                <a href={href.page(p.space, p.path)}>{p.title}</a>
                <span class="muted small">
                  {' '}
                  {p.space} ·{' '}
                  {Object.entries(p.metadata)
                    .slice(0, 4)
                    .map(([k, v]) => `${k}: ${formatValue(v)}`)
                    .join(' · ')}
                </span>
              </li>
            ))}
          </ul>
        ))}
    </section>
  );
}

export function SearchView({ q, params }: { q: string; params: URLSearchParams }) {
  useTitle(q ? `Search: ${q}` : 'Search');
  const filters = params.get('filters') ?? '';
  return (
    <div class="page-grid">
      <div class="content">
        <h1>Search</h1>
        {q ? (
          <FullText q={q} />
        ) : (
          <p class="muted">
            Type in the <strong>Search</strong> box above (press <kbd>/</kbd> to get there) and press Enter.
          </p>
        )}
      </div>
      <aside class="side">
        <MetadataQuery key={filters} filters={filters} />
      </aside>
    </div>
  );
}
