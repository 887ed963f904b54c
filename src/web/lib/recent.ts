// Pages this browser viewed lately, newest first, kept in localStorage (the quick switcher lists
// them when its box is empty). Nothing leaves the browser.
export interface RecentPage {
  space: string;
  path: string;
  title: string;
}

const KEY = 'kspace:recent';
const MAX = 20;

export function recentPages(): RecentPage[] {
  try {
    const list: unknown = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    if (!Array.isArray(list)) return [];
    return list.filter((p): p is RecentPage => typeof p?.space === 'string' && typeof p.path === 'string' && typeof p.title === 'string');
  } catch {
    return [];
  }
}

/** Puts a page first in the list (once), keeping the newest MAX. */
export function rememberVisit(page: RecentPage): void {
  const rest = recentPages().filter((p) => p.space !== page.space || p.path !== page.path);
  try {
    localStorage.setItem(KEY, JSON.stringify([{ space: page.space, path: page.path, title: page.title }, ...rest].slice(0, MAX)));
  } catch {
    /* storage full or off: the list is only a convenience */
  }
}
