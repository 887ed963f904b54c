// Building blocks every view uses: loading, error, not-found and empty states, page titles.
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { ApiError } from '../api/client.ts';
import { fullTime, relativeTime } from '../lib/format.ts';
import type { Async } from '../lib/use-async.ts';
import { href } from '../router.ts';

export function useTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · kspace` : 'kspace';
  }, [title]);
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p class="loading" role="status">
      <span class="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

export function NotFound({ what = 'page', children }: { what?: string; children?: ComponentChildren }) {
  useTitle('Not found');
  return (
    <section class="state-view" aria-labelledby="nf-title">
      <h1 id="nf-title">Not found</h1>
      <p>This {what} does not exist, or you may not see it.</p>
      {children}
      <p>
        <a href={href.home()}>Back to home</a>
      </p>
    </section>
  );
}

function errorMessage(error: unknown): string {
  if (error instanceof ApiError)
    return error.issues.length ? `${error.message} (${error.issues.map((i) => `${i.key}: ${i.message}`).join('; ')})` : error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

export function ErrorBox({ error, retry }: { error: unknown; retry?: () => void }) {
  return (
    <div class="error-box" role="alert">
      <p>{errorMessage(error)}</p>
      {retry && (
        <button type="button" class="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** Renders an async value: a spinner while loading, "not found" for 404, an error with retry otherwise. */
export function AsyncView<T>({ value, what, children }: { value: Async<T>; what?: string; children: (data: T) => ComponentChildren }) {
  if (value.status === 'error') {
    if (value.error instanceof ApiError && value.error.status === 404) return <NotFound what={what} />;
    if (value.data === undefined) return <ErrorBox error={value.error} retry={value.reload} />;
  }
  if (value.data === undefined) return <Loading />;
  return (
    <>
      {value.status === 'error' && <ErrorBox error={value.error} retry={value.reload} />}
      {children(value.data)}
    </>
  );
}

/** Renders a value loaded inside a panel: its error with retry, a spinner until the first answer, then the value. */
export function Loaded<T>({ value, children }: { value: Async<T>; children: (data: T) => ComponentChildren }) {
  if (value.status === 'error') return <ErrorBox error={value.error} retry={value.reload} />;
  if (value.data === undefined) return <Loading />;
  return <>{children(value.data)}</>;
}

/** A table's head row: a column header per name, and `actions` a last column named for screen readers only. */
export function TableHead({ cols, actions }: { cols: string[]; actions?: string }) {
  return (
    <thead>
      <tr>
        {cols.map((c) => (
          <th scope="col" key={c}>
            {c}
          </th>
        ))}
        {actions && (
          <th scope="col">
            <span class="sr-only">{actions}</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="empty">{children}</div>;
}

export interface Crumb {
  label: string;
  href?: string;
}
export function Breadcrumbs({ items }: { items: Crumb[] }) {
  return (
    <nav aria-label="Breadcrumb" class="crumbs">
      <ol>
        {items.map((c, i) => (
          <li key={i}>{c.href ? <a href={c.href}>{c.label}</a> : <span aria-current="page">{c.label}</span>}</li>
        ))}
      </ol>
    </nav>
  );
}

/** A modal dialog (native <dialog>): focus moves in, Escape closes, focus returns on close. */
export function Dialog({
  title,
  onClose,
  children,
  class: extra,
}: {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  class?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  // A layout effect: the dialog is open and focused before the next key arrives, so keys typed
  // right after the one that opened it land inside it (not on the page, where `n` or `e` are shortcuts).
  useLayoutEffect(() => {
    const d = ref.current;
    const before = document.activeElement as HTMLElement | null;
    if (d && !d.open) d.showModal();
    // Closed before focus goes back: while it is open, everything outside it is inert.
    return () => {
      if (d?.open) d.close();
      before?.focus?.();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class={extra ? `dialog ${extra}` : 'dialog'}
      aria-labelledby="dialog-title"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <div class="dialog-head">
        <h2 id="dialog-title">{title}</h2>
        <button type="button" class="icon-button" aria-label="Close" onClick={onClose}>
          ×
        </button>
      </div>
      {children}
    </dialog>
  );
}

/** A dialog holding one form: its fields, then its one submit button, disabled while `busy`. */
export function DialogForm(p: {
  title: string;
  onClose: () => void;
  onSubmit: (e: Event) => void;
  busy: boolean;
  submit: string;
  children: ComponentChildren;
}) {
  return (
    <Dialog title={p.title} onClose={p.onClose}>
      <form onSubmit={p.onSubmit} class="stack">
        {p.children}
        <FormSubmit busy={p.busy}>{p.submit}</FormSubmit>
      </form>
    </Dialog>
  );
}

/** A form's row of actions with its one submit button, disabled while `busy`. */
export function FormSubmit({ busy, children }: { busy?: boolean; children: ComponentChildren }) {
  return (
    <div class="actions">
      <button type="submit" class="button primary" disabled={busy}>
        {children}
      </button>
    </div>
  );
}

// Work that can wait until the browser is idle (a timer where requestIdleCallback is missing).
const idle = (fn: () => void): number =>
  typeof requestIdleCallback === 'function' ? requestIdleCallback(fn, { timeout: 2000 }) : (setTimeout(fn, 200) as unknown as number);
const cancelIdle = (id: number): void => (typeof cancelIdleCallback === 'function' ? cancelIdleCallback(id) : clearTimeout(id));

/**
 * A time as "3 minutes ago", its full date and time in the locale as the tooltip. The tooltip is
 * set once the browser is idle after the view has painted: the locale's formatter is slow to make the first time (lib/format.ts).
 */
export function Time({ iso }: { iso: string }) {
  const ref = useRef<HTMLTimeElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const id = idle(() => {
      el.title = fullTime(iso);
    });
    return () => cancelIdle(id);
  }, [iso]);
  return (
    <time ref={ref} dateTime={iso}>
      {relativeTime(iso)}
    </time>
  );
}

export function Badge({ children, tone = 'plain' }: { children: ComponentChildren; tone?: string }) {
  return <span class={`badge badge-${tone}`}>{children}</span>;
}
