// The page view's actions (spec/web.md, "Page actions"): Rename (a PUT with the new title: the
// server rewrites the wikilinks that meant the old one), Move (POST /spaces/:slug/moves) and
// Delete (to the space's trash, after a confirmation that says so).
import { useEffect, useState } from 'preact/hooks';
import { del, pageApi, post, put, spaceApi } from '../api/client.ts';
import type { Page } from '../api/types.ts';
import { favourites, onFavouritesChange, setFavourite } from '../lib/favourites.ts';
import { href, navigate } from '../router.ts';
import { useSession } from '../session.ts';
import { Icon } from './icons.tsx';
import { Dialog, DialogForm, ErrorBox } from './ui.tsx';

type Open = 'rename' | 'move' | 'delete' | null;

export function PageActions({ page, onRenamed }: { page: Page; onRenamed: () => void }) {
  const [open, setOpen] = useState<Open>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const close = (): void => {
    setOpen(null);
    setError(null);
  };
  const run = async (fn: () => Promise<void>): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const field = (e: Event, name: string): string =>
    ((e.currentTarget as HTMLFormElement).elements.namedItem(name) as HTMLInputElement).value.trim();

  const rename = (e: Event): void => {
    e.preventDefault();
    const title = field(e, 'title');
    void run(async () => {
      await put(pageApi(page.space, page.path), { title, baseVersion: page.version });
      close();
      onRenamed();
    });
  };
  const move = (e: Event): void => {
    e.preventDefault();
    const toSpace = field(e, 'space');
    const to = field(e, 'path');
    void run(async () => {
      await post(`${spaceApi(page.space)}/moves`, { from: page.path, to, ...(toSpace !== page.space ? { toSpace } : {}) });
      close();
      navigate(href.page(toSpace, to), { replace: true });
    });
  };
  const remove = (): void => {
    void run(async () => {
      await del(pageApi(page.space, page.path));
      close();
      navigate(href.trash(page.space));
    });
  };

  // A required text field that starts from the page's own value.
  const textField = (name: 'title' | 'space' | 'path', label: string) => (
    <label>
      {label}
      <input name={name} required defaultValue={page[name]} />
    </label>
  );
  return (
    <>
      <button type="button" class="button" onClick={() => setOpen('rename')}>
        Rename
      </button>
      <button type="button" class="button" onClick={() => setOpen('move')}>
        Move
      </button>
      <button type="button" class="button danger" onClick={() => setOpen('delete')}>
        Delete
      </button>
      {open === 'rename' && (
        <DialogForm title="Rename page" onClose={close} onSubmit={rename} busy={busy} submit="Rename">
          {textField('title', 'Title')}
          <p class="muted small">
            Links written as <code>[[{page.title}]]</code> follow the new title.
          </p>
          {error !== null && <ErrorBox error={error} />}
        </DialogForm>
      )}
      {open === 'move' && (
        <DialogForm title="Move page" onClose={close} onSubmit={move} busy={busy} submit="Move">
          {textField('space', 'Space')}
          {textField('path', 'Path')}
          <p class="muted small">The old address keeps leading here.</p>
          {error !== null && <ErrorBox error={error} />}
        </DialogForm>
      )}
      {open === 'delete' && (
        <Dialog title="Delete page" onClose={close}>
          <p>
            “{page.title}” goes to the trash of <strong>{page.space}</strong>. It can be restored from there.
          </p>
          {error !== null && <ErrorBox error={error} />}
          <div class="actions">
            <button type="button" class="button danger" disabled={busy} onClick={remove}>
              Delete
            </button>
          </div>
        </Dialog>
      )}
    </>
  );
}

/** The page view's **Favourite** toggle (aria-pressed), kept on the server per person. */
export function FavouriteToggle({ page }: { page: Page }) {
  const { principal } = useSession();
  const [on, setOn] = useState<boolean | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    const read = (): void => {
      favourites(principal.id).then(
        (list) => {
          if (live) setOn(list.some((f) => f.space === page.space && f.path === page.path));
        },
        () => {
          if (live) setOn(false);
        },
      );
    };
    read();
    const off = onFavouritesChange(read);
    return () => {
      live = false;
      off();
    };
  }, [principal.id, page.space, page.path]);
  const toggle = (): void => {
    const next = !on;
    setOn(next);
    setError(null);
    setFavourite(principal.id, { space: page.space, path: page.path, title: page.title }, next).catch((err) => {
      setOn(!next);
      setError(err);
    });
  };
  return (
    <>
      <button type="button" class="button" aria-pressed={on === true} disabled={on === null} onClick={toggle}>
        <Icon name={on ? 'star-filled' : 'star'} />
        Favourite
      </button>
      {error !== null && <ErrorBox error={error} />}
    </>
  );
}
