import type { Services } from '../../services.ts';
import { AppError, invalid, notFound } from '../errors.ts';
import { checkKey, typed } from '../metadata.ts';
import { resolveSpace } from '../spaces.ts';
import { iterateReadableRecords, queryRecords, type RecordCursor } from '../../store/records.ts';
import type { SpaceRow } from '../../store/spaces.ts';
import { parseFilters } from '../search/filters.ts'; // the same `filters` as GET /search/metadata
import { validateRecord, type RecordType } from './schema.ts';
import { loadTemplateForWrite, stampOf } from './templates.ts';
import type { Caller, Issue, Metadata } from '../../model.ts';

// Records as rows: the metadata query restricted to one record type of a space, and the report
// of records that no longer satisfy their type. Both see only what the caller may read.

/** A record type of `slug` as the caller can read it ("N" or "space:N"), else 404. */
function loadReadableType(
  svc: Services,
  caller: Caller,
  slug: string,
  typeText: string,
): { space: SpaceRow; ref: string; type: RecordType } {
  const space = resolveSpace(svc, caller, slug);
  try {
    const t = loadTemplateForWrite(svc, caller, space, typeText);
    if (t.parsed.type) return { space, ref: t.ref, type: t.parsed.type };
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== 'validation_failed') throw e;
  }
  throw notFound(`record type '${typeText}' in '${slug}'`);
}

type RecordQueryParams = {
  filters: string | null;
  orderBy: string | null;
  order: string | null;
  limit: number;
  cursor: RecordCursor | null;
};

type RecordListItem = { space: string; path: string; title: string; version: number; updatedAt: string; metadata: Metadata };

/** One page of records of a type, with the keyset position of the next page (or null). */
export function listRecords(
  svc: Services,
  caller: Caller,
  slug: string,
  typeText: string,
  q: RecordQueryParams,
): { pages: RecordListItem[]; next: RecordCursor | null } {
  const issues: Issue[] = [];
  const { conditions, issues: filterIssues } = parseFilters(q.filters);
  issues.push(...filterIssues);
  if (q.orderBy !== null) {
    const issue = checkKey(q.orderBy, 'orderBy');
    if (issue) issues.push(issue);
  }
  if (q.order !== null && q.order !== 'asc' && q.order !== 'desc') {
    issues.push({ key: 'order', code: 'option', message: 'order is asc or desc' });
  }
  if (issues.length) throw invalid(issues);
  const { space, ref } = loadReadableType(svc, caller, slug, typeText);
  const rows = queryRecords(svc.db, caller, {
    spaceId: space.id,
    template: ref,
    stamp: typed(stampOf(ref)),
    conditions,
    orderBy: q.orderBy,
    desc: q.order === 'desc',
    limit: q.limit + 1,
    after: q.cursor,
  });
  const more = rows.length > q.limit;
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  let next: RecordCursor | null = null;
  if (more && last) {
    next = last.ot !== undefined && last.ov !== undefined ? { phase: 1, t: last.ot, v: last.ov, id: last.id } : { phase: 2, id: last.id };
  }
  return {
    pages: page.map((r) => ({
      space: r.space,
      path: r.path,
      title: r.title,
      version: r.version,
      updatedAt: r.updated_at,
      metadata: JSON.parse(r.metadata),
    })),
    next,
  };
}

/** Checks a cursor read back from a client (see readCursor). */
export function isRecordCursor(v: unknown): v is RecordCursor {
  if (typeof v !== 'object' || v === null) return false;
  const c = v as Record<string, unknown>;
  if (c.phase === 2) return typeof c.id === 'number' && Number.isInteger(c.id);
  return (
    c.phase === 1 &&
    typeof c.t === 'string' &&
    ['s', 'n', 'b', 'd'].includes(c.t) &&
    (typeof c.v === 'string' || (typeof c.v === 'number' && Number.isFinite(c.v))) &&
    typeof c.id === 'number' &&
    Number.isInteger(c.id)
  );
}

/**
 * Records of a type that no longer satisfy its current schema (a type edit never rewrites
 * them). Checked as a write would check them: absent fields take their defaults first.
 */
export function listNonconforming(svc: Services, caller: Caller, slug: string, typeText: string): Array<{ path: string; issues: Issue[] }> {
  const { space, ref, type } = loadReadableType(svc, caller, slug, typeText);
  const out: Array<{ path: string; issues: Issue[] }> = [];
  for (const row of iterateReadableRecords(svc.db, caller, space.id, ref, typed(stampOf(ref)))) {
    const { issues } = validateRecord(type, JSON.parse(row.metadata) as Metadata, { applyDefaults: true });
    if (issues.length) out.push({ path: row.path, issues: issues.map((i) => ({ ...i, key: `metadata.${i.key}` })) });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
