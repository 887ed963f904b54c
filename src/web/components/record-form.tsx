// A form generated from a record type's schema: one control per field type, labelled by the
// field's label (else its key) exactly, required marked (a visible * and aria-required),
// descriptions as help text, and the server's
// issue for a field shown beside it (aria-describedby + aria-invalid).
import type { FieldDef } from '../../model.ts';
import type { Issue } from '../../model.ts';
import type { RawValue, RawValues } from '../lib/metadata-form.ts';
import { FieldError, fieldProps } from './field-error.tsx';

interface Props {
  fields: FieldDef[];
  values: RawValues;
  issues: Issue[];
  onChange: (key: string, v: RawValue) => void;
  idPrefix: string;
}

function issueOf(issues: Issue[], key: string): Issue | undefined {
  const k = `metadata.${key}`;
  return issues.find((i) => i.key === k || i.key.startsWith(`${k}[`) || i.key.startsWith(`${k}.`));
}

function Control({
  field,
  value,
  id,
  props,
  onChange,
}: {
  field: FieldDef;
  value: RawValue;
  id: string;
  props: Record<string, string | undefined>;
  onChange: (v: RawValue) => void;
}) {
  const s = typeof value === 'string' ? value : '';
  const req = field.required ? true : undefined;
  switch (field.type) {
    case 'text':
      return <textarea {...props} rows={4} required={req} value={s} onInput={(e) => onChange(e.currentTarget.value)} />;
    case 'number':
      return (
        <input
          {...props}
          type="number"
          inputMode="decimal"
          step="any"
          min={field.min}
          max={field.max}
          required={req}
          value={s}
          onInput={(e) => onChange(e.currentTarget.value)}
        />
      );
    case 'boolean':
      return <input {...props} type="checkbox" checked={value === true} onChange={(e) => onChange(e.currentTarget.checked)} />;
    case 'date':
      return <input {...props} type="date" required={req} value={s.slice(0, 10)} onInput={(e) => onChange(e.currentTarget.value)} />;
    case 'url':
      return (
        <input {...props} type="url" required={req} placeholder="https://" value={s} onInput={(e) => onChange(e.currentTarget.value)} />
      );
    case 'select':
      return (
        <select {...props} required={req} value={s} onChange={(e) => onChange(e.currentTarget.value)}>
          <option value="">{field.required ? 'Choose…' : '(none)'}</option>
          {(field.options ?? []).map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
          {s && !(field.options ?? []).includes(s) && <option value={s}>{s}</option>}
        </select>
      );
    case 'multiselect': {
      const chosen = Array.isArray(value) ? value : [];
      return (
        <div
          role="group"
          aria-labelledby={`${id}-label`}
          aria-describedby={props['aria-describedby']}
          aria-invalid={props['aria-invalid'] === 'true' ? true : undefined}
          class="checks"
          id={id}
        >
          {(field.options ?? []).map((o) => (
            <label key={o} class="check">
              <input
                type="checkbox"
                checked={chosen.includes(o)}
                onChange={(e) => onChange(e.currentTarget.checked ? [...chosen, o] : chosen.filter((c) => c !== o))}
              />
              {o}
            </label>
          ))}
        </div>
      );
    }
    case 'list':
      return <textarea {...props} rows={3} required={req} value={s} onInput={(e) => onChange(e.currentTarget.value)} />;
    default:
      return <input {...props} type="text" required={req} value={s} onInput={(e) => onChange(e.currentTarget.value)} />;
  }
}

export function RecordForm({ fields, values, issues, onChange, idPrefix }: Props) {
  return (
    <div class="record-form">
      {fields.map((f) => {
        const id = `${idPrefix}-${f.key.replace(/[^A-Za-z0-9_-]/g, '_')}`;
        const issue = issueOf(issues, f.key);
        const helpId = f.description || f.type === 'list' ? `${id}-help` : undefined;
        const props = fieldProps(id, issue, helpId);
        const label = f.label ?? f.key;
        const help = [
          f.description,
          f.type === 'list' ? 'One item per line.' : '',
          f.type === 'number' && (f.min !== undefined || f.max !== undefined) ? `From ${f.min ?? '−∞'} to ${f.max ?? '∞'}.` : '',
        ]
          .filter(Boolean)
          .join(' ');
        const isGroup = f.type === 'multiselect';
        const mark = f.required ? (
          <span class="req" aria-hidden="true" title="required">
            *
          </span>
        ) : null;
        return (
          <div key={f.key} class={`field${f.type === 'boolean' ? ' field-check' : ''}`}>
            <div class="label-row">
              {isGroup ? (
                <span class="label" id={`${id}-label`}>
                  {label}
                </span>
              ) : (
                <label for={id} class="label" id={`${id}-label`}>
                  {label}
                </label>
              )}
              {mark}
            </div>
            <Control
              field={f}
              value={values[f.key] ?? ''}
              id={id}
              props={{ ...props, 'aria-required': f.required ? 'true' : undefined }}
              onChange={(v) => onChange(f.key, v)}
            />
            {help && (
              <span class="help" id={helpId ?? `${id}-help`}>
                {help}
              </span>
            )}
            <FieldError id={id} issue={issue} />
          </div>
        );
      })}
    </div>
  );
}
