// Favourites (GET/PUT/DELETE /me/favourites): pages a person marks to find again, kept per
// principal on the server so every browser and device shows the same list.
import type { Services } from '../services.ts';
import type { Caller } from '../model.ts';
import { AppError } from './errors.ts';
import { loadReadablePage } from './pages.ts';
import * as store from '../store/favourites.ts';

/** Enough for a person's working set; past it a PUT is refused (409) rather than the list growing without end. */
const MAX_FAVOURITES = 1000;

export function listFavourites(svc: Services, caller: Caller): store.FavouriteRow[] {
  return store.listFavourites(svc.db, caller);
}

/** Marks a page the caller may read (404 otherwise, as for any unreadable page). Repeating it changes nothing. */
export function addFavourite(svc: Services, caller: Caller, slug: string, path: string): void {
  const { page } = loadReadablePage(svc, caller, slug, path);
  if (store.countFavourites(svc.db, caller.id) >= MAX_FAVOURITES && !store.isFavourite(svc.db, caller.id, page.id)) {
    throw new AppError('conflict', `at most ${MAX_FAVOURITES} favourites: remove one first`);
  }
  store.addFavourite(svc.db, caller.id, page.id, svc.now());
}

/** Unmarks a page; a page that was not a favourite answers the same. */
export function removeFavourite(svc: Services, caller: Caller, slug: string, path: string): void {
  const { page } = loadReadablePage(svc, caller, slug, path);
  store.removeFavourite(svc.db, caller.id, page.id);
}
