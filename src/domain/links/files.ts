// Links and images that name attached files rather than pages (docs/search.md "Attachments"):
//
//   /files/<space>/<page path>/<name>     absolute (also after the server's base URL)
//   files/<name>, ./files/<name>          relative: the file <name> of the linking page itself
//
// Neither is a page link: the link index leaves them out (so they are never broken page links),
// and the renderer points them at the file's `/files/…` address so images show. The relative
// form is the Obsidian "attachments in a subfolder named files" layout; a page that really lives
// at `<folder>/files/<name>` is linked by its absolute address. Pure functions.
import type { PageRef } from '../../model.ts';

const RELATIVE = /^(?:\.\/)?files\/([^/?#\\]+)(?:[?#].*)?$/;
// `.` and `..` as a browser reads a path segment: percent-encoded dots count (`%2e%2e` is `..`).
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/** Whether `href` (as written, before resolution) is the relative file form. */
export function isRelativeFileHref(href: string): boolean {
  return RELATIVE.test(href);
}

/**
 * The `/files/…` URL path an href or image source names, or null when it names no attached
 * file. Segments stay percent-encoded as written (markdown-it has already encoded what needs it).
 */
export function resolveFileHref(href: string, from: PageRef, baseUrls: string[] = []): string | null {
  const rel = RELATIVE.exec(href);
  if (rel && !DOT_SEGMENT.test(rel[1])) {
    const page = from.path.split('/').map(encodeURIComponent).join('/');
    return `/files/${encodeURIComponent(from.space)}/${page}/${rel[1]}`;
  }
  let path = href;
  if (/^https?:\/\//i.test(href)) {
    const u = URL.parse(href);
    const base = baseUrls.map((b) => URL.parse(b)).find((b) => b && u && b.origin === u.origin);
    if (!u || !base) return null;
    const prefix = base.pathname.replace(/\/+$/, '');
    if (!u.pathname.startsWith(`${prefix}/files/`)) return null;
    path = u.pathname.slice(prefix.length);
  }
  if (!path.startsWith('/files/') || path.includes('\\')) return null;
  const bare = path.replace(/[?#].*$/, '');
  // space, at least one page segment, the name; none empty, none a dot segment (which a browser
  // would resolve to an address outside /files/)
  const segments = bare.slice('/files/'.length).split('/');
  return segments.length >= 3 && segments.every((s) => s !== '' && !DOT_SEGMENT.test(s)) ? bare : null;
}
