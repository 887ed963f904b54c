import type { Services } from '../../services.ts';
import { AppError, invalid } from '../errors.ts';
import { checkMetadata, normalizeMetadata, type MetadataPatch } from '../metadata.ts';
import type { PageRow, PageState } from '../../store/pages.ts';
import type { SpaceRow } from '../../store/spaces.ts';
import { STAMP_KEY, validateRecord, type RecordType } from './schema.ts';
import { loadStoredType, loadTemplateForWrite, parseTemplate, stampOf, templateNameOf } from './templates.ts';
import type { Caller, Issue, Metadata } from '../../model.ts';

// What templates and record types do to a page write. putPage and patchMetadata call these
// inside their transaction, before anything is written: a violation throws 400 and the
// transaction writes nothing (no page, no revision, no event).

/** The state a PUT would write, with its metadata still an object (normalized). */
type PageDraft = Omit<PageState, 'metadata'> & { metadata: Metadata };

/** The parts of a PUT that templates look at. */
type TemplateInput = { title?: string; content?: string; template?: string; metadata?: Record<string, unknown> };

/**
 * Completes the state a PUT writes: refuses a malformed template page; resolves `template`
 * (pre-fill on create, metadataDefaults, type switch); validates a record against its type,
 * with field defaults, and stamps `metadata.template` and `pages.template`.
 */
export function applyTemplates(
  svc: Services,
  caller: Caller,
  space: SpaceRow,
  path: string,
  input: TemplateInput,
  live: PageRow | null,
  next: PageDraft,
): PageState {
  const ownName = templateNameOf(path);
  const stampGiven = input.metadata !== undefined && Object.hasOwn(input.metadata, STAMP_KEY);
  // A plain page written without a template: nothing to do (keeps plain writes as cheap as before).
  if (ownName === null && input.template === undefined && live?.template == null && !stampGiven) {
    return { ...next, metadata: JSON.stringify(next.metadata) };
  }
  if (ownName !== null) {
    const issues = checkTemplateFrontmatter(ownName, JSON.parse(next.frontmatter) as Record<string, unknown>);
    if (issues.length)
      throw invalid(issues, `templates/${ownName} is not a valid template: ${issues.map((i) => `${i.key}: ${i.message}`).join('; ')}`);
  }
  let { title, content } = next;
  let metadata: Metadata = { ...next.metadata };
  let ref = live?.template ?? null;
  let type: RecordType | null = null;

  if (input.template !== undefined) {
    const tmpl = loadTemplateForWrite(svc, caller, space, input.template);
    if (live === null) {
      // Creating from a template: what the request leaves out comes from the template page.
      if (input.title === undefined) title = tmpl.row.title;
      if (input.content === undefined) content = tmpl.row.content;
    }
    // Given metadata wins over the template's metadataDefaults.
    metadata = { ...tmpl.parsed.metadataDefaults, ...metadata };
    if (tmpl.parsed.type) {
      ref = tmpl.ref;
      type = tmpl.parsed.type;
    }
  }
  // A record's metadata carries its stamp: written onto a page that is not a record yet (an
  // imported bundle, a copied record), a stamp naming a readable record type of this space makes
  // the page a record of that type. Any other 'template' value stays ordinary metadata.
  let typeFromStamp = false;
  if (input.template === undefined && ref === null && stampGiven && typeof input.metadata![STAMP_KEY] === 'string') {
    const found = findRecordType(svc, caller, space, input.metadata![STAMP_KEY] as string);
    if (found) {
      ref = found.ref;
      type = found.type;
      typeFromStamp = true;
    }
  }
  if (input.title === undefined && title === '') {
    throw invalid([
      { key: 'title', code: 'required', message: 'a title is required (a template supplies one only when it creates the page)' },
    ]);
  }
  if (type === null && ref !== null) type = loadStoredType(svc.db, caller, space, ref);

  const issues: Issue[] = [];
  if (ref !== null) {
    const stamp = stampOf(ref);
    if (stampGiven && !typeFromStamp && input.metadata![STAMP_KEY] !== stamp) {
      issues.push({ key: `metadata.${STAMP_KEY}`, code: 'format', message: `'template' is this record's type stamp and stays "${stamp}"` });
    }
    delete metadata[STAMP_KEY];
    if (type !== null) {
      const r = validateRecord(type, metadata, { applyDefaults: true });
      for (const i of r.issues) issues.push({ ...i, key: `metadata.${i.key}` });
      metadata = r.metadata;
    }
    metadata[STAMP_KEY] = stamp;
  }
  if (issues.length) throw invalid(issues);
  // Defaults may have added keys or bytes: the page limits hold for the stored result too.
  if (input.template !== undefined || type !== null) {
    const limitIssues = checkMetadata(metadata, svc.config.limits);
    if (limitIssues.length) throw invalid(limitIssues);
  }
  return { title, content, frontmatter: next.frontmatter, metadata: JSON.stringify(normalizeMetadata(metadata)), template: ref };
}

/** The record type a stamp names ("N" or "space:N") if the caller can read it, else null. */
function findRecordType(svc: Services, caller: Caller, space: SpaceRow, refText: string): { ref: string; type: RecordType } | null {
  try {
    const t = loadTemplateForWrite(svc, caller, space, refText);
    return t.parsed.type ? { ref: t.ref, type: t.parsed.type } : null;
  } catch (e) {
    if (e instanceof AppError && e.code === 'validation_failed') return null;
    throw e;
  }
}

/**
 * Issues of a template page's frontmatter, keyed from the request (`frontmatter.…`): a malformed
 * schema, and metadataDefaults that the page's own schema would refuse.
 */
function checkTemplateFrontmatter(name: string, frontmatter: Record<string, unknown>): Issue[] {
  const parsed = parseTemplate(name, frontmatter);
  const issues = parsed.issues.map((i) => ({ ...i, key: `frontmatter.${i.key}` }));
  if (parsed.type && issues.length === 0) {
    const r = validateRecord(parsed.type, parsed.metadataDefaults, { applyDefaults: false });
    for (const i of r.issues) {
      if (i.code !== 'required') issues.push({ ...i, key: `frontmatter.metadataDefaults.${i.key}` });
    }
  }
  return issues;
}

/**
 * A record's metadata after a patch, checked against its type as it stands now, like a write:
 * absent fields take their defaults. Issue keys name the patch member when there is one.
 */
export function checkPatchedRecord(
  svc: Services,
  caller: Caller,
  space: SpaceRow,
  ref: string,
  metadata: Metadata,
  patch: MetadataPatch,
): { metadata: Metadata; issues: Issue[] } {
  const type = loadStoredType(svc.db, caller, space, ref);
  if (type === null) return { metadata, issues: [] };
  const r = validateRecord(type, metadata, { applyDefaults: true });
  const issues = r.issues.map((i) => {
    const from = Object.hasOwn(patch.set ?? {}, i.key)
      ? 'set'
      : Object.hasOwn(patch.appendUnique ?? {}, i.key)
        ? 'appendUnique'
        : 'metadata';
    return { ...i, key: `${from}.${i.key}` };
  });
  return { metadata: normalizeMetadata(r.metadata), issues };
}
