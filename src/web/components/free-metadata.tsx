// Metadata of a page that is not a record: key, type and value per row.
import type { FreeRow, FreeType } from '../lib/metadata-form.ts';
import type { Issue } from '../../model.ts';

const TYPES: FreeType[] = ['text', 'number', 'boolean', 'date', 'list'];

// Changes go out as updates of the latest rows (not of the rows this render saw), so two edits
// before the next render both count.
type Update = (rows: FreeRow[]) => FreeRow[];

export function FreeMetadata({ rows, onChange, issues }: { rows: FreeRow[]; onChange: (update: Update) => void; issues: Issue[] }) {
  const set = (i: number, r: Partial<FreeRow>): void => onChange((all) => all.map((x, j) => (j === i ? { ...x, ...r } : x)));
  return (
    <div class="free-meta">
      {rows.length === 0 && <p class="muted small">No metadata.</p>}
      {rows.map((r, i) => {
        const issue = issues.find((x) => x.key === `metadata.${r.key}` || x.key.startsWith(`metadata.${r.key}[`));
        const id = `fm-${i}`;
        return (
          <div class="free-row" key={i}>
            <input aria-label={`Key ${i + 1}`} placeholder="key" value={r.key} onInput={(e) => set(i, { key: e.currentTarget.value })} />
            <select
              aria-label={`Type of ${r.key || `key ${i + 1}`}`}
              value={r.type}
              onChange={(e) => set(i, { type: e.currentTarget.value as FreeType })}
            >
              {TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
            {r.type === 'boolean' ? (
              <select
                id={id}
                aria-label={`Value of ${r.key || `key ${i + 1}`}`}
                value={r.value}
                onChange={(e) => set(i, { value: e.currentTarget.value })}
              >
                <option value="true">true</option>
                <option value="false">false</option>
              </select>
            ) : r.type === 'list' ? (
              <textarea
                id={id}
                rows={2}
                aria-label={`Value of ${r.key || `key ${i + 1}`} (one item per line)`}
                value={r.value}
                onInput={(e) => set(i, { value: e.currentTarget.value })}
                aria-invalid={issue ? true : undefined}
                aria-describedby={issue ? `${id}-error` : undefined}
              />
            ) : (
              <input
                id={id}
                type={(r.type === 'number' ? 'number' : r.type === 'date' ? 'date' : 'text') as 'text'}
                step="any"
                aria-label={`Value of ${r.key || `key ${i + 1}`}`}
                value={r.value}
                onInput={(e) => set(i, { value: e.currentTarget.value })}
                aria-invalid={issue ? true : undefined}
                aria-describedby={issue ? `${id}-error` : undefined}
              />
            )}
            <button
              type="button"
              class="icon-button"
              aria-label={`Remove ${r.key || `key ${i + 1}`}`}
              onClick={() => onChange((all) => all.filter((_, j) => j !== i))}
            >
              ×
            </button>
            {issue && (
              <span class="field-error" id={`${id}-error`}>
                {issue.message}
              </span>
            )}
          </div>
        );
      })}
      <button type="button" class="button small" onClick={() => onChange((all) => [...all, { key: '', type: 'text', value: '' }])}>
        Add a key
      </button>
    </div>
  );
}
