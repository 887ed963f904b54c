import type { Services } from '../../services.ts';
import { canReadPage } from '../access.ts';
import { AppError, invalid } from '../errors.ts';
import { isSpaceSlug, normalizePagePath } from '../paths.ts';
import { resolveSpace } from '../spaces.ts';
import type { Db } from '../../store/db/types.ts';
import { findPage, readAcl, type PageRow } from '../../store/pages.ts';
import { findSpaceBySlug, type SpaceRow } from '../../store/spaces.ts';
import { parseTemplateFrontmatter, type RecordType } from './schema.ts';
import type { Caller, Issue, Metadata } from '../../model.ts';

// Templates are pages at `templates/<name>`; this module finds them, reads their frontmatter
// (parsed once per frontmatter text) and resolves the `template` of a write: "N" in the page's own
// space or "space:N" in another.

const TEMPLATE_PREFIX = 'templates/';

/** The template name of `templates/<name>` (exactly one segment below), else null. */
export function templateNameOf(path: string): string | null {
  if (!path.startsWith(TEMPLATE_PREFIX)) return null;
  const name = path.slice(TEMPLATE_PREFIX.length);
  return name !== '' && !name.includes('/') ? name : null;
}

type TemplateRef = { space: string | null; name: string };

/**
 * Parses "N" or "space:N". Whatever precedes the first ':' is a space slug, so a template
 * whose name holds ':' is named with its space ("wiki:a:b").
 */
export function parseTemplateRef(ref: string, key = 'template'): TemplateRef | Issue {
  const colon = ref.indexOf(':');
  const space = colon === -1 ? null : ref.slice(0, colon);
  const name = colon === -1 ? ref : ref.slice(colon + 1);
  if (space !== null && !isSpaceSlug(space)) {
    return { key, code: 'format', message: `"${space}" is not a space slug; name a template "N" or "space:N"` };
  }
  if (name === '' || name.includes('/') || name === '.' || name === '..' || /[\u0000-\u001f\u007f]/.test(name)) {
    return { key, code: 'format', message: 'a template name is one path segment below templates/' };
  }
  return { space, name: normalizePagePath(name) }; // template pages' paths are stored in NFC
}

/**
 * How a record's type is written in `pages.template` seen from `space`: "N" at home, else
 * "space:N" (also at home when N holds ':', so that the reference reads back the same).
 */
function refFrom(space: SpaceRow, typeSpace: SpaceRow, name: string): string {
  return space.id === typeSpace.id && !name.includes(':') ? name : `${typeSpace.slug}:${name}`;
}

/** The type name a stored reference ends in: the record's `metadata.template` stamp. */
export function stampOf(ref: string): string {
  const colon = ref.indexOf(':');
  return colon === -1 ? ref : ref.slice(colon + 1);
}

type ParsedTemplate = {
  /** The record type, when the frontmatter declares `metadataSchema`. */
  type: RecordType | null;
  /** Why the frontmatter is malformed; empty for a usable template. */
  issues: Issue[];
  description: string;
  metadataDefaults: Metadata;
  defaultPathPrefix: string | null;
};

// Parsing is pure, so the cache is keyed by its inputs (path and frontmatter text): never stale,
// even for a version written in a transaction that later rolled back.
const parsedCache = new WeakMap<Db, Map<string, ParsedTemplate>>();
const CACHEABLE_BYTES = 64 * 1024;

/** The parsed frontmatter of a template page, cached. */
export function parseTemplatePage(db: Db, row: Pick<PageRow, 'frontmatter' | 'path'>): ParsedTemplate {
  const name = templateNameOf(row.path) ?? row.path;
  if (row.frontmatter.length > CACHEABLE_BYTES) return parseTemplate(name, JSON.parse(row.frontmatter) as Record<string, unknown>);
  let m = parsedCache.get(db);
  if (!m) parsedCache.set(db, (m = new Map()));
  const cacheKey = `${row.path}\n${row.frontmatter}`;
  const hit = m.get(cacheKey);
  if (hit) return hit;
  const parsed = parseTemplate(name, JSON.parse(row.frontmatter) as Record<string, unknown>);
  if (m.size >= 1000) m.clear();
  m.set(cacheKey, parsed);
  return parsed;
}

/** Reads a template's frontmatter: its record type (if any), its issues and what pickers show. */
export function parseTemplate(name: string, fm: Record<string, unknown>): ParsedTemplate {
  const r = parseTemplateFrontmatter(name, fm);
  // Without a schema the validator returns no type; an empty schema yields the checked defaults.
  const metadataDefaults =
    r.type?.metadataDefaults ??
    parseTemplateFrontmatter(name, { metadataDefaults: fm.metadataDefaults, metadataSchema: {} }).type!.metadataDefaults;
  return {
    type: r.type,
    issues: r.issues,
    description: typeof fm.description === 'string' ? fm.description : '',
    metadataDefaults,
    defaultPathPrefix: typeof fm.defaultPathPrefix === 'string' ? fm.defaultPathPrefix : null,
  };
}

type LoadedTemplate = { space: SpaceRow; row: PageRow; parsed: ParsedTemplate; ref: string };

const unknownTemplate = (ref: string) => invalid([{ key: 'template', code: 'unknown', message: `no template "${ref}" that you can read` }]);

/**
 * The template a write names, as the caller sees it: a missing or unreadable template (or
 * space) is a 400 on `template`, never a hint that it exists.
 */
export function loadTemplateForWrite(svc: Services, caller: Caller, home: SpaceRow, refText: string): LoadedTemplate {
  const ref = parseTemplateRef(refText);
  if ('code' in ref) throw invalid([ref]);
  let space = home;
  if (ref.space !== null && ref.space !== home.slug) {
    try {
      space = resolveSpace(svc, caller, ref.space);
    } catch (e) {
      if (e instanceof AppError && e.code === 'not_found') throw unknownTemplate(refText);
      throw e;
    }
  }
  const row = findPage(svc.db, space.id, TEMPLATE_PREFIX + ref.name);
  if (!row || row.deleted_at !== null) throw unknownTemplate(refText);
  const acl = row.has_acl ? readAcl(svc.db, row.id) : [];
  if (!canReadPage(caller, space, row, acl)) throw unknownTemplate(refText);
  const parsed = parseTemplatePage(svc.db, row);
  if (parsed.issues.length) {
    throw invalid([
      {
        key: 'template',
        code: 'schema',
        message: `template "${refText}" is malformed: ${parsed.issues.map((i) => `${i.key}: ${i.message}`).join('; ')}`,
      },
    ]);
  }
  return { space, row, parsed, ref: refFrom(home, space, ref.name) };
}

/**
 * The record type behind a stored reference, as the caller sees it. Null when the type page is
 * gone, no longer declares a schema, or is one the caller may not read: an unreadable type is
 * absent for that caller (its issues would tell its fields and options, its defaults would show
 * its hidden metadataDefaults), so their write is taken as on a record whose type is gone.
 */
export function loadStoredType(db: Db, caller: Caller, home: SpaceRow, storedRef: string): RecordType | null {
  const colon = storedRef.indexOf(':');
  const space = colon === -1 ? home : findSpaceBySlug(db, storedRef.slice(0, colon));
  if (!space || space.org_id !== home.org_id) return null;
  const row = findPage(db, space.id, TEMPLATE_PREFIX + stampOf(storedRef));
  if (!row || row.deleted_at !== null) return null;
  if (!canReadPage(caller, space, row, row.has_acl ? readAcl(db, row.id) : [])) return null;
  return parseTemplatePage(db, row).type;
}
