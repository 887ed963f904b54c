import type { Issue } from '../model.ts';

export const SPACE_SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;
/** Sub-resources of a page: a page path may not end in one of these names. */
export const RESERVED_LAST_SEGMENTS = new Set(['metadata', 'links', 'acl', 'revisions', 'files']);
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// Zero-width (U+200B–U+200D, U+2060, U+FEFF) and bidirectional control characters (U+200E,
// U+200F, U+202A–U+202E, U+2066–U+2069): invisible, so two paths that look the same would be two
// pages, and a right-to-left override makes a path read as another one.
const INVISIBLE = /[\u200b-\u200f\u2060\ufeff\u202a-\u202e\u2066-\u2069]/;

const ASCII = /^[\x00-\x7f]*$/;

/**
 * The stored form of a page path: Unicode NFC, so that paths differing only in normalisation
 * (a precomposed é or e + U+0301) are one page. Every door a path enters by goes through here.
 */
export function normalizePagePath(path: string): string {
  return ASCII.test(path) ? path : path.normalize('NFC'); // ASCII is NFC already; the test is the cheaper call
}

/** Why `path` is not a valid page path, or null when it is (contract: Pages). Checks its NFC form. */
export function checkPagePath(raw: unknown, key = 'path'): Issue | null {
  if (typeof raw !== 'string' || raw.length === 0) return { key, code: 'required', message: 'a page path is required' };
  if (!raw.isWellFormed()) return { key, code: 'format', message: 'a page path must be well-formed Unicode (it holds a lone surrogate)' };
  const path = normalizePagePath(raw);
  if (path.length > 512) return { key, code: 'format', message: 'a page path has at most 512 characters' };
  if (CONTROL.test(path)) return { key, code: 'format', message: 'a page path may not contain control characters' };
  const invisible = INVISIBLE.exec(path);
  if (invisible) {
    const code = `U+${invisible[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    return { key, code: 'format', message: `a page path may not contain zero-width or bidirectional control characters (${code} at character ${invisible.index + 1})` };
  }
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
