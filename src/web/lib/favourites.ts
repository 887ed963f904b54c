// The person's favourites (GET/PUT/DELETE /me/favourites), kept on the server: one list shared by
// the page view's toggle, the home view and the quick switcher, fetched once and updated in place.
import { api, get } from '../api/client.ts';

type Favourite = { space: string; path: string; title: string };

// Kept for one principal: another person signing in in the same tab starts afresh.
let owner: string | null = null;
let list: Promise<Favourite[]> | null = null;
const listeners = new Set<() => void>();

const address = (space: string, path: string): string =>
  `/me/favourites/${encodeURIComponent(space)}/${path.split('/').map(encodeURIComponent).join('/')}`;

/**
 * `who`'s favourites, from the server the first time (and after a failure), then from memory;
 * `fresh` asks the server again (the home view: another device may have changed them).
 */
export function favourites(who: string, fresh = false): Promise<Favourite[]> {
  if (owner !== who || fresh) {
    owner = who;
    list = null;
  }
  if (!list) {
    const p = get<Favourite[]>('/me/favourites');
    p.catch(() => {
      if (list === p) list = null;
    });
    list = p;
  }
  return list;
}

/** Called whenever the list changes here; returns the unsubscribe. */
export function onFavouritesChange(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Marks or unmarks a page; the list follows once the server has answered. */
export async function setFavourite(who: string, page: Favourite, on: boolean): Promise<void> {
  await api<void>(on ? 'PUT' : 'DELETE', address(page.space, page.path));
  const before = await favourites(who).catch(() => [] as Favourite[]);
  const rest = before.filter((f) => f.space !== page.space || f.path !== page.path);
  list = Promise.resolve(on ? [{ space: page.space, path: page.path, title: page.title }, ...rest] : rest);
  for (const fn of listeners) fn();
}
