import type { Services } from '../../services.ts';
import { canReadPage } from '../access.ts';
import { AppError, invalid } from '../errors.ts';
import { importChunkBatch, importPlan } from '../indexes/list.ts';
import type { ImportPlan, IndexBatch } from '../indexes/types.ts';
import { putPage, type PutPageInput } from '../pages.ts';
import { SPACE_SLUG, isPersonalSlug, withoutInvisible } from '../paths.ts';
import { createSpace, resolveSpace, type NewSpace } from '../spaces.ts';
import { findPage, readAcl } from '../../store/pages.ts';
import { findSpaceBySlug, type SpaceRow } from '../../store/spaces.ts';
import { orderForImport, type BundleError, type BundleFile, type BundlePage, type ParsedBundle } from './bundle.ts';
import { putAttachment } from '../attachments.ts';
import { checkOrgRoom } from '../org-quota.ts';
import type { Caller } from '../../model.ts';

// Import: every page goes through putPage (validation, ACL check, links, full-text, the importer
// as author, outbox events), each in its own savepoint so a refused page rolls back alone.
// Pages are committed in chunks (at most CHUNK_PAGES pages or CHUNK_MS of work), each chunk one
// job of the group commit: a killed import leaves whole chunks, and running it again converges
// on the same final state (skip mode skips what exists; overwrite writes nothing for a page that
// already equals the bundle's). Between chunks the event loop serves other requests.

type ImportMode = 'skip' | 'overwrite';
export const IMPORT_MODES: readonly ImportMode[] = ['skip', 'overwrite'];
export type ImportResult = { created: number; updated: number; skipped: number; errors: BundleError[] };

type ImportTarget = {
  slug: string;
  /** Refuse (409) when the space exists: creating a space from a template. */
  mustBeNew?: boolean;
  /** Name and description for a space the import creates (default: the bundle's). */
  name?: string;
  description?: string;
};

const CHUNK_PAGES = 500;
const CHUNK_MS = 50;

export async function importBundle(
  svc: Services,
  caller: Caller,
  target: ImportTarget,
  bundle: ParsedBundle,
  mode: ImportMode,
): Promise<{ space: SpaceRow; result: ImportResult }> {
  // Everything that can refuse the whole import is decided before the first write.
  let space: SpaceRow | null = null;
  let toCreate: NewSpace | null = null;
  const badSlug = () =>
    invalid([{ key: 'slug', code: 'format', message: 'a slug is 1–63 characters of a-z, 0-9 and -, starting with a letter or digit' }]);
  if (target.mustBeNew && !SPACE_SLUG.test(target.slug)) throw badSlug();
  const existing = findSpaceBySlug(svc.db, target.slug);
  if (existing && target.mustBeNew) throw new AppError('conflict', `a space '${target.slug}' exists`);
  if (existing || isPersonalSlug(target.slug)) {
    space = resolveSpace(svc, caller, target.slug); // 404 when hidden; the caller's own personal space is made on first use
  } else {
    if (!SPACE_SLUG.test(target.slug)) throw badSlug();
    toCreate = {
      slug: target.slug,
      // A bundle's name is display text from elsewhere: its invisible characters are dropped (paths.ts).
      name:
        withoutInvisible(target.name ?? bundle.space.name)
          .trim()
          .slice(0, 200) || target.slug,
      description: (target.description ?? bundle.space.description).slice(0, 4000),
    };
  }

  // The organisation's quota refuses the whole import, not the pages past it: the bundle counted
  // as if every page and file were new (an overwrite frees what it replaces only as it writes).
  checkOrgRoom(svc, caller.orgId, bundleBytes(bundle));
  const result: ImportResult = { created: 0, updated: 0, skipped: 0, errors: [...bundle.errors] };
  const pages = orderForImport(bundle.pages);
  const files = new Map<string, BundleFile[]>();
  for (const f of bundle.files ?? []) files.set(f.path, [...(files.get(f.path) ?? []), f]);
  let next = 0;
  do {
    const from = next;
    const current = space;
    // A space the import creates is created inside the first chunk: killed before that commits,
    // the import has left nothing behind.
    const done = await svc.writes.run(
      () => {
        // Another request may have made the space since the checks above: then use it as if it
        // had been there (a template creation still refuses it).
        const s =
          current ??
          (findSpaceBySlug(svc.db, target.slug) && !target.mustBeNew
            ? resolveSpace(svc, caller, target.slug)
            : createSpace(svc, caller, toCreate!));
        return { space: s, next: importChunk(svc, caller, s, pages, files, from, mode, result) };
      },
      { alone: true },
    );
    space = done.space;
    next = done.next;
  } while (next < pages.length);
  return { space: space!, result };
}

const expectations = new WeakMap<BundlePage[], ImportPlan>();

/** Imports pages from index `from` until the chunk is full; returns the next index. */
function importChunk(
  svc: Services,
  caller: Caller,
  space: SpaceRow,
  pages: BundlePage[],
  files: Map<string, BundleFile[]>,
  from: number,
  mode: ImportMode,
  result: ImportResult,
): number {
  const deadline = performance.now() + CHUNK_MS;
  let i = from;
  // Wikilinks to pages the import writes later resolve to them at once (the batch's import plan);
  // those the import's pages change otherwise resolve again once, at the end of the chunk.
  let expect = expectations.get(pages);
  if (!expect) expectations.set(pages, (expect = importPlan(space.slug, pages)));
  importChunkBatch(svc, expect, svc.writes.started(), (batch) => {
    const errors = result.errors.length;
    while (i < pages.length && i - from < CHUNK_PAGES && (i === from || performance.now() < deadline)) {
      if (importPage(svc, caller, space, pages[i], mode, result, batch))
        importFiles(svc, caller, space, files.get(pages[i].path) ?? [], result);
      i++;
    }
    return result.errors.length === errors;
  });
  return i;
}

/** Imports one page; true when its files should follow (it was written, or overwrite found it equal). */
function importPage(
  svc: Services,
  caller: Caller,
  space: SpaceRow,
  page: BundlePage,
  mode: ImportMode,
  result: ImportResult,
  batch: IndexBatch,
): boolean {
  try {
    if (mode === 'skip') {
      const live = findPage(svc.db, space.id, page.path);
      // An existing page the importer cannot read is left to putPage, which answers as a PUT would.
      if (live && live.deleted_at === null && canReadPage(caller, space, live, live.has_acl ? readAcl(svc.db, live.id) : [])) {
        result.skipped++;
        return false;
      }
    }
    const w = putPage(svc, caller, space.slug, page.path, toPutInput(page), { renameLinks: false, batch });
    if (!w.changed) result.skipped++;
    else if (w.created) result.created++;
    else result.updated++;
    return true;
  } catch (e) {
    if (!(e instanceof AppError)) throw e; // not the page's fault (disk, bug): stop; committed chunks stay
    result.errors.push({ path: page.path, code: e.code, message: e.message, ...(e.issues ? { issues: e.issues } : {}) });
    return false;
  }
}

/** A page's files, each through the one attachment write (caps, quota, the page's ACL); a refused file is one error. */
function importFiles(svc: Services, caller: Caller, space: SpaceRow, files: BundleFile[], result: ImportResult): void {
  for (const f of files) {
    try {
      putAttachment(svc, caller, space.slug, f.path, f.name, { data: f.data, sha256: f.sha256 }, f.contentType, f.source);
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      result.errors.push({ path: f.path, code: e.code, message: `attachment '${f.name}': ${e.message}` });
    }
  }
}

/**
 * What one bundle page asks putPage to store: the page exactly as the bundle has it. A record's
 * metadata already carries its `template` stamp, so it is sent as metadata and not as the
 * `template` input; record-type validation reaches imported pages through putPage itself.
 */
function toPutInput(page: BundlePage): PutPageInput {
  return { title: page.title, content: page.content, frontmatter: page.frontmatter, metadata: page.metadata };
}

/** What a bundle's pages (content, frontmatter and metadata as stored) and files would store. */
function bundleBytes(bundle: ParsedBundle): number {
  let bytes = 0;
  for (const p of bundle.pages) {
    bytes +=
      Buffer.byteLength(p.content) + Buffer.byteLength(JSON.stringify(p.frontmatter)) + Buffer.byteLength(JSON.stringify(p.metadata));
  }
  for (const f of bundle.files ?? []) bytes += f.data.length;
  return bytes;
}
