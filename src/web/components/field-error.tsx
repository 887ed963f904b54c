// A server issue shown beside its control: the control points at it with aria-describedby and
// carries aria-invalid="true".
import type { ComponentChildren } from 'preact';
import type { Issue } from '../../model.ts';

export function issueFor(issues: Issue[], key: string): Issue | undefined {
  return issues.find((i) => i.key === key || i.key.startsWith(`${key}[`) || i.key.startsWith(`${key}.`));
}

const errorId = (id: string): string => `${id}-error`;

/** Props for the control: its id, and when there is an issue, aria-invalid and the description. */
export function fieldProps(id: string, issue: Issue | undefined, helpId?: string): Record<string, string | undefined> {
  const described = [issue ? errorId(id) : '', helpId ?? ''].filter(Boolean).join(' ');
  return { id, 'aria-invalid': issue ? 'true' : undefined, 'aria-describedby': described || undefined };
}

/** A form field: its label, the control, a help line (`<id>-help`, for fieldProps' helpId) and the server's issue. */
export function Field({
  id,
  label,
  issue,
  help,
  children,
}: {
  id: string;
  label: string;
  issue?: Issue;
  help?: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <div class="field">
      <label for={id}>
        <span class="label">{label}</span>
      </label>
      {children}
      {help && (
        <span class="help" id={`${id}-help`}>
          {help}
        </span>
      )}
      <FieldError id={id} issue={issue} />
    </div>
  );
}

export function FieldError({ id, issue }: { id: string; issue: Issue | undefined }) {
  if (!issue) return null;
  return (
    <span class="field-error" id={errorId(id)}>
      {issue.message}
    </span>
  );
}
