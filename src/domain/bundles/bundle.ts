import * as v from 'valibot';
import type { Limits } from '../../config.ts';
import { invalid } from '../errors.ts';
import { toIssue } from '../input-issues.ts';
import type { Issue } from '../issues.ts';
import { checkMetadata } from '../metadata.ts';
import { checkPagePath, normalizePagePath } from '../paths.ts';

// The export bundle (service.md "Export bundle") and the pure checks an import or a catalog runs
// on one before anything is written. Problems with the bundle as a whole are fatal (400); a
// problem with one page becomes an `errors[]` item and the other pages still import.

export const BUNDLE_FORMAT = 'service-space-export';
export const BUNDLE_FORMAT_VERSION = 1;

export type BundleSpace = { slug: string; name: string; description: string };
export type BundlePage = {
  path: string;
  title: string;
  content: string;
  frontmatter: Record<string, unknown>;
  metadata: Record<string, unknown>;
};
/** One import problem: `code` is the code the same PUT would have answered with. */
export type BundleError = { path: string; code: string; message: string; issues?: Issue[] };
export type ParsedBundle = { space: BundleSpace; pages: BundlePage[]; errors: BundleError[] };

const Obj = v.custom<Record<string, unknown>>((x) => x !== null && typeof x === 'object' && !Array.isArray(x), 'must be an object');

// Unknown keys are tolerated (a later formatVersion 1 writer may add some); the known ones are typed.
const Envelope = v.looseObject({
  format: v.literal(BUNDLE_FORMAT, `must be "${BUNDLE_FORMAT}"`),
  formatVersion: v.literal(BUNDLE_FORMAT_VERSION, `must be ${BUNDLE_FORMAT_VERSION}`),
  exportedAt: v.optional(v.string()),
  space: v.looseObject({
    slug: v.optional(v.string()),
    name: v.optional(v.string()),
    description: v.optional(v.string()),
  }),
  pages: v.array(v.unknown()),
});

const Page = v.looseObject({
  path: v.string(),
  title: v.string(),
  content: v.optional(v.string()),
  frontmatter: v.optional(Obj),
  metadata: v.optional(Obj),
  version: v.optional(v.number()),
  updatedAt: v.optional(v.string()),
});

/**
 * Checks a decoded bundle. Throws a 400 (nothing may be written) when the envelope is wrong:
 * not an object, another `format` or `formatVersion`, no `space` object or no `pages` list.
 * Returns the usable pages and one error per unusable page.
 */
export function parseBundle(data: unknown, limits: Limits): ParsedBundle {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw invalid([{ key: 'body', code: 'type', message: 'a bundle is a JSON object' }]);
  }
  // format and formatVersion first, so a bundle of another kind is named as such.
  const head = data as Record<string, unknown>;
  const headIssues: Issue[] = [];
  if (head.format !== BUNDLE_FORMAT) {
    headIssues.push({ key: 'format', code: head.format === undefined ? 'required' : 'option', message: `must be "${BUNDLE_FORMAT}"` });
  }
  if (head.formatVersion !== BUNDLE_FORMAT_VERSION) {
    headIssues.push({
      key: 'formatVersion', code: head.formatVersion === undefined ? 'required' : 'option',
      message: `this server reads formatVersion ${BUNDLE_FORMAT_VERSION}`,
    });
  }
  if (headIssues.length) throw invalid(headIssues);
  const env = v.safeParse(Envelope, data);
  if (!env.success) throw invalid(env.issues.map((i) => toIssue(i, Envelope)));
  const { space, pages: rawPages } = env.output;

  const pages: BundlePage[] = [];
  const errors: BundleError[] = [];
  const seen = new Set<string>();
  rawPages.forEach((raw, i) => {
    const label = raw !== null && typeof raw === 'object' && typeof (raw as { path?: unknown }).path === 'string'
      ? (raw as { path: string }).path : `pages[${i}]`;
    const r = v.safeParse(Page, raw);
    if (!r.success) {
      errors.push(pageError(label, r.issues.map((x) => toIssue(x, Page))));
      return;
    }
    const p = r.output;
    const issues: Issue[] = [];
    const pathIssue = checkPagePath(p.path);
    if (pathIssue) issues.push(pathIssue);
    if (p.title.trim() === '' || p.title.length > 1024) {
      issues.push({ key: 'title', code: 'format', message: 'a title has 1–1024 characters and is not blank' });
    }
    if (p.metadata !== undefined) issues.push(...checkMetadata(p.metadata, limits));
    if (issues.length) {
      errors.push(pageError(label, issues));
      return;
    }
    const path = normalizePagePath(p.path); // stored in NFC: two spellings of one path are one page
    if (seen.has(path)) {
      errors.push({ path, code: 'duplicate_path', message: 'the bundle holds this path more than once; the first one was used' });
      return;
    }
    seen.add(path);
    pages.push({ path, title: p.title, content: p.content ?? '', frontmatter: p.frontmatter ?? {}, metadata: p.metadata ?? {} });
  });
  return {
    space: { slug: space.slug ?? '', name: space.name ?? '', description: space.description ?? '' },
    pages,
    errors,
  };
}

function pageError(path: string, issues: Issue[]): BundleError {
  return { path, code: 'validation_failed', message: issues.map((i) => `${i.key}: ${i.message}`).join('; '), issues };
}

/** A template page: `templates/<name>` with a one-segment name (deeper pages are ordinary). */
export function isTemplatePath(path: string): boolean {
  return path.startsWith('templates/') && path.indexOf('/', 'templates/'.length) === -1;
}

/** Import order: templates first, so record types exist before their records; stable otherwise. */
export function orderForImport<T extends { path: string }>(pages: T[]): T[] {
  return [...pages.filter((p) => isTemplatePath(p.path)), ...pages.filter((p) => !isTemplatePath(p.path))];
}
