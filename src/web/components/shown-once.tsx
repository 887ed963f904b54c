// A secret the server shows once (a new API key, a webhook's signing secret), with a Done button that hides it.

export function ShownOnce({
  what,
  value,
  label,
  copy,
  class: extra,
  onDone,
}: {
  /** What it is, at the start of the notice: "New key". */
  what: string;
  value: string;
  /** The secret's accessible name, where it needs one. */
  label?: string;
  /** A Copy button beside it. */
  copy?: boolean;
  class?: string;
  onDone: () => void;
}) {
  return (
    <div class={extra ? `notice ${extra}` : 'notice'} role="status">
      <p>
        <strong>{what} — copy it now, it is shown only once:</strong>
      </p>
      <p>
        <code class="secret" aria-label={label}>
          {value}
        </code>{' '}
        {copy && (
          <>
            <button type="button" class="button small" onClick={() => void navigator.clipboard?.writeText(value)}>
              Copy
            </button>{' '}
          </>
        )}
        <button type="button" class="button small ghost" onClick={onDone}>
          Done
        </button>
      </p>
    </div>
  );
}
