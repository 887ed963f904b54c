// Edits a list of metadata filters {key, op, value}; keys come from a schema or key discovery.
import { OPS, type FilterRow } from '../lib/filters.ts';
import type { FilterOp } from '../api/types.ts';

export function FilterBuilder({
  rows,
  keys,
  onChange,
  onApply,
  idPrefix,
}: {
  rows: FilterRow[];
  keys: { key: string; label: string }[];
  onChange: (update: (rows: FilterRow[]) => FilterRow[]) => void;
  onApply: () => void;
  idPrefix: string;
}) {
  // Updates of the latest rows, not of those this render saw: two edits before a render both count.
  const set = (i: number, r: Partial<FilterRow>): void => onChange((all) => all.map((x, j) => (j === i ? { ...x, ...r } : x)));
  const listId = `${idPrefix}-keys`;
  return (
    <form
      class="filters"
      onSubmit={(e) => {
        e.preventDefault();
        onApply();
      }}
      aria-label="Filters"
    >
      <datalist id={listId}>
        {keys.map((k) => (
          <option key={k.key} value={k.key}>
            {k.label}
          </option>
        ))}
      </datalist>
      {rows.map((r, i) => (
        <div class="filter-row" key={i}>
          <input
            aria-label={`Filter ${i + 1} key`}
            list={listId}
            value={r.key}
            placeholder="key"
            onInput={(e) => set(i, { key: e.currentTarget.value })}
          />
          <select aria-label={`Filter ${i + 1} operator`} value={r.op} onChange={(e) => set(i, { op: e.currentTarget.value as FilterOp })}>
            {OPS.map((o) => (
              <option key={o.op} value={o.op}>
                {o.label}
              </option>
            ))}
          </select>
          {r.op !== 'exists' && r.op !== 'missing' && (
            <input
              aria-label={`Filter ${i + 1} value`}
              value={r.value}
              placeholder={r.op === 'in' ? 'a, b, c' : 'value'}
              onInput={(e) => set(i, { value: e.currentTarget.value })}
            />
          )}
          <button
            type="button"
            class="icon-button"
            aria-label={`Remove filter ${i + 1}`}
            onClick={() => onChange((all) => all.filter((_, j) => j !== i))}
          >
            ×
          </button>
        </div>
      ))}
      <div class="actions">
        <button
          type="button"
          class="button small"
          onClick={() => onChange((all) => [...all, { key: keys[0]?.key ?? '', op: 'eq', value: '' }])}
        >
          Add filter
        </button>
        <button type="submit" class="button primary small">
          Apply filters
        </button>
      </div>
      <p class="help">“is one of” takes a comma-separated list. Values are typed: numbers compare as numbers, ISO dates as dates.</p>
    </form>
  );
}
