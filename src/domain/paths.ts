import type { Issue } from './issues.ts';

export const SPACE_SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;
/** Sub-resources of a page: a page path may not end in one of these names. */
export const RESERVED_LAST_SEGMENTS = new Set(['metadata', 'links', 'acl', 'revisions']);
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Why `path` is not a valid page path, or null when it is (contract: Pages). */
export function checkPagePath(path: unknown, key = 'path'): Issue | null {
  if (typeof path !== 'string' || path.length === 0) return { key, code: 'required', message: 'a page path is required' };
  if (path.length > 512) return { key, code: 'format', message: 'a page path has at most 512 characters' };
  if (CONTROL.test(path)) return { key, code: 'format', message: 'a page path may not contain control characters' };
  if (path.startsWith('/') || path.endsWith('/')) {
    return { key, code: 'format', message: "a page path may not start or end with '/'" };
  }
  const segments = path.split('/');
  for (const seg of segments) {
    if (seg === '') return { key, code: 'format', message: 'a page path may not contain empty segments' };
    if (seg === '.' || seg === '..') return { key, code: 'format', message: "a page path may not contain '.' or '..' segments" };
  }
  const last = segments[segments.length - 1];
  if (RESERVED_LAST_SEGMENTS.has(last)) {
    return { key, code: 'reserved', message: `a page path may not end in '${last}': it names a page sub-resource` };
  }
  // `…/revisions/<n>` addresses revision n of a page, so it cannot also be a page path.
  if (segments.length >= 2 && segments[segments.length - 2] === 'revisions' && /^\d+$/.test(last)) {
    return { key, code: 'reserved', message: "a page path may not end in 'revisions/<number>': it names a page revision" };
  }
  return null;
}

/** Slug of a space; personal spaces are `~<principal name>`. */
export function isSpaceSlug(slug: string): boolean {
  return SPACE_SLUG.test(slug) || isPersonalSlug(slug);
}

export function isPersonalSlug(slug: string): boolean {
  return slug.startsWith('~') && slug.length > 1 && slug.length <= 65 && !slug.includes('/');
}

/** Principal names: also the personal space slug after '~'. */
export const PRINCIPAL_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
