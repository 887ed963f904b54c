// A small router over the History API: the addresses of spec/web.md parsed into a typed Route,
// one hook that re-renders on navigation, and one click handler that keeps /app/ links in the app.
import { useEffect, useState } from 'preact/hooks';
import { encodePath } from './api/client.ts';

export type PageMode =
  | { kind: 'view' }
  | { kind: 'edit' }
  | { kind: 'rev'; rev: number }
  | { kind: 'diff'; from: number; to: number }
  | { kind: 'history' };

export type Route =
  | { name: 'signIn'; next: string }
  | { name: 'home' }
  | { name: 'space'; space: string }
  | { name: 'page'; space: string; path: string; mode: PageMode }
  | { name: 'new'; space: string; template: string; path: string }
  | { name: 'records'; space: string; type: string; params: URLSearchParams }
  | { name: 'search'; q: string; params: URLSearchParams }
  | { name: 'broken'; space: string }
  | { name: 'trash'; space: string }
  | { name: 'gallery'; template: string }
  | { name: 'admin' }
  | { name: 'notFound' };

const NAV_EVENT = 'kspace:navigate';

function decode(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

function pageMode(q: URLSearchParams): PageMode {
  if (q.has('edit')) return { kind: 'edit' };
  const rev = q.get('rev');
  if (rev && /^\d+$/.test(rev)) return { kind: 'rev', rev: Number(rev) };
  const diff = q.get('diff')?.match(/^(\d+)\.\.(\d+)$/);
  if (diff) return { kind: 'diff', from: Number(diff[1]), to: Number(diff[2]) };
  if (q.has('history')) return { kind: 'history' };
  return { kind: 'view' };
}

export function parseRoute(pathname: string, search: string): Route {
  const q = new URLSearchParams(search);
  if (pathname === '/app' || pathname === '/app/') return { name: 'home' };
  if (!pathname.startsWith('/app/')) return { name: 'notFound' };
  const parts = pathname.slice(5).split('/').map(decode);
  if (parts.some((p) => p === null)) return { name: 'notFound' };
  const seg = parts as string[];
  if (seg[seg.length - 1] === '' && seg.length > 1) seg.pop();
  switch (seg[0]) {
    case 'sign-in':
      return { name: 'signIn', next: safeNext(q.get('next')) };
    case 'new':
      return { name: 'new', space: q.get('space') ?? '', template: q.get('template') ?? '', path: q.get('path') ?? '' };
    case 'search':
      return { name: 'search', q: q.get('q') ?? '', params: q };
    case 'gallery':
      return { name: 'gallery', template: q.get('template') ?? '' };
    case 'admin':
      return seg.length === 1 ? { name: 'admin' } : { name: 'notFound' };
    case 'p':
      if (seg.length >= 3 && seg.slice(2).every((s) => s !== ''))
        return { name: 'page', space: seg[1], path: seg.slice(2).join('/'), mode: pageMode(q) };
      return { name: 'notFound' };
    case 's':
      if (seg.length === 2 && seg[1]) return { name: 'space', space: seg[1] };
      if (seg.length === 4 && seg[2] === 'records' && seg[3]) return { name: 'records', space: seg[1], type: seg[3], params: q };
      if (seg.length === 4 && seg[2] === 'links' && seg[3] === 'broken') return { name: 'broken', space: seg[1] };
      if (seg.length === 3 && seg[2] === 'trash' && seg[1]) return { name: 'trash', space: seg[1] };
      return { name: 'notFound' };
    default:
      return { name: 'notFound' };
  }
}

/** Only an address inside the app may be a sign-in's way back (no open redirect). */
export function safeNext(next: string | null): string {
  if (!next || !next.startsWith('/app/') || next.startsWith('/app/sign-in')) return '/app/';
  return next;
}

let loadFresh = false;
/** A new build of the app took over (lib/offline.ts): the next move loads it instead of moving in place. */
export function loadFreshOnNextMove(): void {
  loadFresh = true;
}

export function navigate(href: string, opts: { replace?: boolean } = {}): void {
  const current = location.pathname + location.search + location.hash;
  if (href === current && !opts.replace) return;
  if (loadFresh) {
    if (opts.replace) location.replace(href);
    else location.assign(href);
    return;
  }
  if (opts.replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  window.dispatchEvent(new Event(NAV_EVENT));
  if (!href.includes('#')) window.scrollTo(0, 0);
}

interface Loc {
  pathname: string;
  search: string;
  hash: string;
}
const here = (): Loc => ({ pathname: location.pathname, search: location.search, hash: location.hash });

export function useLocation(): Loc {
  const [loc, setLoc] = useState(here);
  useEffect(() => {
    const update = (): void => setLoc(here());
    window.addEventListener('popstate', update);
    window.addEventListener(NAV_EVENT, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAV_EVENT, update);
    };
  }, []);
  return loc;
}

/** Plain left clicks on links to /app/ addresses navigate in place (rendered page HTML included). */
export function interceptLinks(): void {
  document.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = (e.target as Element | null)?.closest?.('a');
    if (!a || a.target || a.hasAttribute('download')) return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin || !url.pathname.startsWith('/app/')) return;
    if (url.pathname === location.pathname && url.search === location.search && url.hash) return; // in-page anchor
    e.preventDefault();
    navigate(url.pathname + url.search + url.hash);
  });
}

// Addresses of the app, built in one place.
export const href = {
  home: (): string => '/app/',
  space: (space: string): string => `/app/s/${encodeURIComponent(space)}`,
  page: (space: string, path: string, suffix = ''): string => `/app/p/${encodeURIComponent(space)}/${encodePath(path)}${suffix}`,
  edit: (space: string, path: string): string => href.page(space, path, '?edit'),
  history: (space: string, path: string): string => href.page(space, path, '?history'),
  rev: (space: string, path: string, rev: number): string => href.page(space, path, `?rev=${rev}`),
  diff: (space: string, path: string, a: number, b: number): string => href.page(space, path, `?diff=${a}..${b}`),
  newPage: (p: { space?: string; template?: string; path?: string } = {}): string => {
    const q = new URLSearchParams();
    if (p.space) q.set('space', p.space);
    if (p.template) q.set('template', p.template);
    if (p.path) q.set('path', p.path);
    const s = q.toString();
    return `/app/new${s ? `?${s}` : ''}`;
  },
  records: (space: string, type: string): string => `/app/s/${encodeURIComponent(space)}/records/${encodeURIComponent(type)}`,
  broken: (space: string): string => `/app/s/${encodeURIComponent(space)}/links/broken`,
  trash: (space: string): string => `/app/s/${encodeURIComponent(space)}/trash`,
  search: (q: string): string => `/app/search${q ? `?q=${encodeURIComponent(q)}` : ''}`,
  gallery: (template?: string): string => `/app/gallery${template ? `?template=${encodeURIComponent(template)}` : ''}`,
  admin: (): string => '/app/admin',
  signIn: (next: string): string => `/app/sign-in${next && next !== '/app/' ? `?next=${encodeURIComponent(next)}` : ''}`,
};
