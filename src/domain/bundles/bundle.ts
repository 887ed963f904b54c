import { createHash } from 'node:crypto';
import * as v from 'valibot';
import type { Limits } from '../../config/config.ts';
import { invalid } from '../errors.ts';
import { toIssue } from '../input-issues.ts';
import { checkFileName } from '../file-rules.ts';
import { checkMetadata } from '../metadata.ts';
import { checkPagePath, normalizePagePath } from '../paths.ts';
import type { Issue } from '../../model.ts';

// The export bundle (service.md "Export bundle") and the pure checks an import or a catalog runs
// on one before anything is written. Problems with the bundle as a whole are fatal (400); a
// problem with one page becomes an `errors[]` item and the other pages still import.

export const BUNDLE_FORMAT = 'service-space-export';
/**
 * 1: pages only. 2: pages and their attached files (`attachments` + `blobs`). An export without
 * files is still written as 1, which every reader reads whole; one with files is 2, so a reader
 * of 1 refuses it instead of importing the pages and silently dropping the files.
 */
export const BUNDLE_FORMAT_VERSION = 1;
export const BUNDLE_FORMAT_VERSION_FILES = 2;
const READABLE_VERSIONS: unknown[] = [BUNDLE_FORMAT_VERSION, BUNDLE_FORMAT_VERSION_FILES];

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
/** A file of a bundle page, its bytes decoded and checked against its hash. */
export type BundleFile = { path: string; name: string; contentType: string; sha256: string; data: Buffer; source: string | null };
export type ParsedBundle = { space: BundleSpace; pages: BundlePage[]; errors: BundleError[]; files?: BundleFile[] };

const Obj = v.custom<Record<string, unknown>>((x) => x !== null && typeof x === 'object' && !Array.isArray(x), 'must be an object');

// Unknown keys are tolerated (a later formatVersion 1 writer may add some); the known ones are typed.
const Envelope = v.looseObject({
  format: v.literal(BUNDLE_FORMAT, `must be "${BUNDLE_FORMAT}"`),
  formatVersion: v.picklist([BUNDLE_FORMAT_VERSION, BUNDLE_FORMAT_VERSION_FILES], 'must be 1 or 2'),
  exportedAt: v.optional(v.string()),
  space: v.looseObject({
    slug: v.optional(v.string()),
    name: v.optional(v.string()),
    description: v.optional(v.string()),
  }),
  pages: v.array(v.unknown()),
  attachments: v.optional(v.array(v.unknown())),
  blobs: v.optional(v.record(v.string(), v.string())),
});

const Attachment = v.looseObject({
  path: v.string(),
  name: v.string(),
  contentType: v.optional(v.string()),
  sha256: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex digits')),
  size: v.optional(v.number()),
  source: v.optional(v.string()),
});

/**
 * Why `source` (an attached file's path in the folder it was imported from) is not one a Markdown
 * export can write the file at, or null: a relative `/`-separated path of at most 1024 characters,
 * no empty, `.` or `..` segment, no part starting with `.` (an import skips those), no control
 * character, not a `.md` file (which reads back as a note).
 */
export function checkFileSource(source: string): string | null {
  if (source.length === 0 || source.length > 1024) return 'a source path has 1 to 1024 characters';
  if (/[\u0000-\u001f\u007f]/.test(source)) return 'a source path may not contain control characters';
  if (source.split('/').some((s) => s === '' || s.startsWith('.')))
    return "a source path is relative, with no empty segment and no part starting with '.'";
  if (/\.md$/i.test(source)) return 'a source path may not name a .md file';
  return null;
}

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
  if (!READABLE_VERSIONS.includes(head.formatVersion)) {
    headIssues.push({
      key: 'formatVersion',
      code: head.formatVersion === undefined ? 'required' : 'option',
      message: `this server reads formatVersion ${READABLE_VERSIONS.join(' and ')}`,
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
    const label =
      raw !== null && typeof raw === 'object' && typeof (raw as { path?: unknown }).path === 'string'
        ? (raw as { path: string }).path
        : `pages[${i}]`;
    const r = v.safeParse(Page, raw);
    if (!r.success) {
      errors.push(
        pageError(
          label,
          r.issues.map((x) => toIssue(x, Page)),
        ),
      );
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
  const files =
    env.output.formatVersion === BUNDLE_FORMAT_VERSION_FILES
      ? parseFiles(env.output.attachments ?? [], env.output.blobs ?? {}, errors).filter((f) => {
          if (seen.has(f.path) || errors.some((e) => e.path === f.path)) return true;
          errors.push({ path: f.path, code: 'validation_failed', message: `attachment '${f.name}': the bundle has no page '${f.path}'` });
          return false;
        })
      : [];
  return {
    space: { slug: space.slug ?? '', name: space.name ?? '', description: space.description ?? '' },
    pages,
    errors,
    files,
  };
}

/** The files of a version 2 bundle; one bad file is one error (under its page's path), the rest import. */
function parseFiles(raw: unknown[], blobs: Record<string, string>, errors: BundleError[]): BundleFile[] {
  const out: BundleFile[] = [];
  const decoded = new Map<string, Buffer>();
  raw.forEach((item, i) => {
    const r = v.safeParse(Attachment, item);
    const path = (item as { path?: unknown } | null)?.path;
    const label = typeof path === 'string' ? path : `attachments[${i}]`;
    if (!r.success) {
      errors.push(
        pageError(
          label,
          r.issues.map((x) => ({ ...toIssue(x, Attachment), key: `attachments[${i}].${toIssue(x, Attachment).key}` })),
        ),
      );
      return;
    }
    const a = r.output;
    const fail = (message: string) =>
      errors.push({ path: a.path, code: 'validation_failed', message: `attachment '${a.name}': ${message}` });
    const issue = checkPagePath(a.path) ?? checkFileName(a.name);
    if (issue) return fail(issue.message);
    const badSource = a.source === undefined ? null : checkFileSource(a.source);
    if (badSource) return fail(`source: ${badSource}`);
    let data = decoded.get(a.sha256);
    if (!data) {
      const text = blobs[a.sha256];
      if (typeof text !== 'string') return fail('its blob is missing from `blobs`');
      data = Buffer.from(text, 'base64');
      if (createHash('sha256').update(data).digest('hex') !== a.sha256) return fail('its blob does not match its sha256');
      decoded.set(a.sha256, data);
    }
    out.push({
      path: normalizePagePath(a.path),
      name: a.name.normalize('NFC'),
      contentType: a.contentType ?? '',
      sha256: a.sha256,
      data,
      source: a.source?.normalize('NFC') ?? null,
    });
  });
  return out;
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
