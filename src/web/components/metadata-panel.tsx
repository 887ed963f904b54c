// The typed metadata panel: each value shown as what it is (a date, a number, a list, a link).
import type { FieldDef } from '../../model.ts';
import type { Metadata, MetaValue } from '../../model.ts';
import { formatValue } from '../lib/format.ts';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/;
// Made on first use: the first Intl formatter of a page is slow to make (lib/format.ts).
let dateFmt: Intl.DateTimeFormat | null = null;

function Value({ value }: { value: MetaValue }) {
  if (Array.isArray(value)) {
    if (value.length === 0) return <span class="muted">(empty)</span>;
    return (
      <span class="chips">
        {value.map((v, i) => (
          <span key={i} class="chip">
            {formatValue(v)}
          </span>
        ))}
      </span>
    );
  }
  if (typeof value === 'boolean') return <span class={`bool ${value ? 'yes' : 'no'}`}>{value ? 'Yes' : 'No'}</span>;
  if (typeof value === 'number') return <span class="num">{value.toLocaleString()}</span>;
  if (/^https?:\/\//i.test(value))
    return (
      <a href={value} rel="noopener noreferrer nofollow" class="external">
        {value}
      </a>
    );
  if (ISO_DATE.test(value)) {
    const d = new Date(value.length === 10 ? `${value}T00:00:00` : value);
    if (!Number.isNaN(d.getTime()))
      return (
        <time dateTime={value}>
          {value.length === 10 ? (dateFmt ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' })).format(d) : d.toLocaleString()}
        </time>
      );
  }
  return <span>{value}</span>;
}

export function MetadataPanel({ metadata, fields, title = 'Metadata' }: { metadata: Metadata; fields?: FieldDef[]; title?: string }) {
  const keys = Object.keys(metadata);
  const labelOf = (k: string): string => fields?.find((f) => f.key === k)?.label ?? k;
  return (
    <section aria-labelledby="meta-title" class="panel">
      <h2 id="meta-title">{title}</h2>
      {keys.length === 0 ? (
        <p class="muted">No metadata.</p>
      ) : (
        <dl class="meta">
          {keys.map((k) => (
            <div key={k} class="meta-row">
              <dt>{labelOf(k)}</dt>
              <dd>
                <Value value={metadata[k]} />
              </dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}

export function FrontmatterPanel({ frontmatter }: { frontmatter: Record<string, unknown> }) {
  const keys = Object.keys(frontmatter);
  if (keys.length === 0) return null;
  return (
    <details class="panel frontmatter">
      <summary>Frontmatter ({keys.length})</summary>
      <pre class="code">{JSON.stringify(frontmatter, null, 2)}</pre>
    </details>
  );
}
