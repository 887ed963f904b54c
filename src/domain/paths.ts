import type { Issue } from '../model.ts';

export const SPACE_SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;
/** Sub-resources of a page: a page path may not end in one of these names. */
export const RESERVED_LAST_SEGMENTS = new Set(['metadata', 'links', 'acl', 'revisions', 'files']);
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// Unicode's Default_Ignorable_Code_Point: characters drawn as nothing where they are not
// supported. Zero-width and bidirectional controls, the soft hyphen, the Arabic letter mark,
// Mongolian and emoji variation selectors, invisible operators, Hangul fillers, tag characters:
// two names differing by one look the same, and a right-to-left override makes a path read as
// another one. Paths and names refuse them all.
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/u;
// `\` is a folder separator and `:` a drive or data-stream separator on Windows, where an export's
// files are written by page path.
const WINDOWS_SEPARATOR = /[\\:]/;

/**
 * The first invisible (Default_Ignorable) code point of `text`, as `U+00AD at character 3`, or
 * null when it has none.
 */
export function findInvisible(text: string): string | null {
  const m = INVISIBLE.exec(text);
  if (!m) return null;
  return `U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} at character ${[...text.slice(0, m.index)].length + 1}`;
}

/** Text without its invisible (Default_Ignorable) code points. */
export const withoutInvisible = (text: string): string => text.replace(/\p{Default_Ignorable_Code_Point}/gu, '');

const ASCII = /^[\x00-\x7f]*$/;

/**
 * The stored form of a page path: Unicode NFC, so that paths differing only in normalisation
 * (a precomposed é or e + U+0301) are one page. Every door a path enters by goes through here.
 */
export function normalizePagePath(path: string): string {
  return ASCII.test(path) ? path : path.normalize('NFC'); // ASCII is NFC already; the test is the cheaper call
}

/**
 * Why `path` is not a valid page path, or null when it is (contract: Pages). Checks its NFC form.
 * `existing`: the path only names a page that exists (the source of a move, a trashed page), so
 * a page stored before the invisible-character and `\`/`:` rules can still be moved or restored.
 */
export function checkPagePath(raw: unknown, key = 'path', existing = false): Issue | null {
  if (typeof raw !== 'string' || raw.length === 0) return { key, code: 'required', message: 'a page path is required' };
  if (!raw.isWellFormed()) return { key, code: 'format', message: 'a page path must be well-formed Unicode (it holds a lone surrogate)' };
  const path = normalizePagePath(raw);
  if (path.length > 512) return { key, code: 'format', message: 'a page path has at most 512 characters' };
  if (CONTROL.test(path)) return { key, code: 'format', message: 'a page path may not contain control characters' };
  const invisible = existing ? null : findInvisible(path);
  if (invisible) return { key, code: 'format', message: `a page path may not contain invisible characters (${invisible})` };
  const separator = existing ? null : WINDOWS_SEPARATOR.exec(path);
  if (separator) {
    return {
      key,
      code: 'format',
      message: `a page path may not contain '${separator[0]}' (character ${separator.index + 1}): Windows reads it as a separator in exported file names`,
    };
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
