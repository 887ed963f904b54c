import type { Services } from '../services.ts';
import { notifyEventsWritten } from '../services.ts';
import { canCreateIn, canDeletePage, canReadPage, canRestoreTrashed, canWritePage } from './access.ts';
import { AppError, invalid, notFound } from './errors.ts';
import { readersBefore, recordChange } from './changes.ts';
import { recordPageEvent } from './events.ts';
import { accessChanged, openBatch, pageRemoved, pageWritten, withBatch } from './indexes/list.ts';
import type { IndexBatch } from './indexes/types.ts';
import { preparedFor, type PreparedLinks } from './links/prepare.ts';
import { byAddress, planRename, renameRewrites, type RenamePlan, type RenameResult } from './renames.ts';
import { checkMetadata, normalizeMetadata } from './metadata.ts';
import { withinOrgQuota } from './org-quota.ts';
import { checkFrontmatter, checkStoredSize } from './page-size.ts';
import { checkPagePath, normalizePagePath } from './paths.ts';
import { applyTemplates } from './records/apply.ts';
import { resolveSpace } from './spaces.ts';
import { tx } from '../store/db/transactions.ts';
import * as store from '../store/pages.ts';
import { dropRedirect } from '../store/moves.ts';
import { putInTrash, takeFromTrash, trashedAcl } from '../store/trash.ts';
import type { PageRow, PageState } from '../store/pages.ts';
import type { SpaceRow } from '../store/spaces.ts';
import type { AclEntry, Caller, Issue, Metadata } from '../model.ts';

export type Page = {
  space: string;
  path: string;
  title: string;
  content: string;
  frontmatter: Record<string, unknown>;
  metadata: Metadata;
  template: string | null;
  version: number;
  updatedAt: string;
};

export function presentPage(space: SpaceRow, p: PageRow): Page {
  return {
    space: space.slug,
    path: p.path,
    title: p.title,
    content: p.content,
    frontmatter: JSON.parse(p.frontmatter),
    metadata: JSON.parse(p.metadata),
    template: p.template,
    version: p.version,
    updatedAt: p.updated_at,
  };
}

/**
 * The JSON text of presentPage(space, p), built without the intermediate object: the stored
 * frontmatter and metadata are JSON text already (written by JSON.stringify), so they are copied,
 * not parsed and serialised again. The hottest answer (GET of a page) is this text.
 */
export function pageJson(space: SpaceRow, p: PageRow): string {
  return (
    `{"space":${JSON.stringify(space.slug)},"path":${JSON.stringify(p.path)},"title":${JSON.stringify(p.title)}` +
    `,"content":${JSON.stringify(p.content)},"frontmatter":${p.frontmatter},"metadata":${p.metadata}` +
    `,"template":${p.template === null ? 'null' : JSON.stringify(p.template)},"version":${p.version},"updatedAt":${JSON.stringify(p.updated_at)}}`
  );
}

type PageContext = { space: SpaceRow; page: PageRow; acl: AclEntry[] };

/** A live page the caller may read, else 404: an unreadable page is absent for its caller. */
export function loadReadablePage(svc: Services, caller: Caller, slug: string, path: string): PageContext {
  return findReadable(svc, caller, slug, path, store.findPage);
}

/** As loadReadablePage, with only the page row's id, version and access columns (a conditional GET). */
export function readablePageStamp(svc: Services, caller: Caller, slug: string, path: string): { space: SpaceRow; page: store.PageStamp } {
  return findReadable(svc, caller, slug, path, store.findPageStamp);
}

/** As loadReadablePage, with the page row's stamp and stored path but not its content (a revision diff). */
export function readablePageHead(
  svc: Services,
  caller: Caller,
  slug: string,
  path: string,
): { space: SpaceRow; page: store.PageStamp & { path: string } } {
  return findReadable(svc, caller, slug, path, store.findPageHead);
}

function findReadable<T extends store.PageStamp>(
  svc: Services,
  caller: Caller,
  slug: string,
  path: string,
  find: (db: Services['db'], spaceId: number, path: string) => T | undefined,
): { space: SpaceRow; page: T; acl: AclEntry[] } {
  const space = resolveSpace(svc, caller, slug);
  // Paths are stored in NFC; a page an older kspace stored under another form is still found
  // by its exact spelling.
  const nfc = normalizePagePath(path);
  const page = find(svc.db, space.id, nfc) ?? (nfc !== path ? find(svc.db, space.id, path) : undefined);
  if (!page || page.deleted_at !== null) throw notFound(`page '${slug}/${path}'`);
  const acl = page.has_acl ? store.readAcl(svc.db, page.id) : [];
  if (!canReadPage(caller, space, page, acl)) throw notFound(`page '${slug}/${path}'`);
  return { space, page, acl };
}

/** As loadReadablePage, and 403 when the caller may read but not write it. */
export function loadWritablePage(svc: Services, caller: Caller, slug: string, path: string): PageContext {
  const ctx = loadReadablePage(svc, caller, slug, path);
  if (!canWritePage(caller, ctx.space, ctx.page, ctx.acl)) throw new AppError('forbidden', 'you may read this page but not change it');
  return ctx;
}

export type PutPageInput = {
  /** Required, except when `template` creates the page (the template's title is the default). */
  title?: string;
  content?: string;
  frontmatter?: Record<string, unknown>;
  template?: string;
  metadata?: Record<string, unknown>;
  baseVersion?: number;
};

type WriteResult = { page: Page; created: boolean; changed: boolean; renamed?: RenameResult };

/**
 * The one page write path: HTTP, MCP and import all come here. One transaction. `batch`: the
 * derived indexes' batch of an import chunk (indexes/list.ts), which its owner finishes. `links`:
 * the content's links, read before the transaction (links/prepare.ts).
 */
export function putPage(
  svc: Services,
  caller: Caller,
  slug: string,
  rawPath: string,
  input: PutPageInput,
  opts: { renameLinks?: boolean; batch?: IndexBatch; links?: PreparedLinks } = {},
): WriteResult {
  const limits = svc.config.limits;
  const issues: Issue[] = [];
  const pathIssue = checkPagePath(rawPath);
  if (pathIssue) issues.push(pathIssue);
  const path = normalizePagePath(rawPath);
  // An absent title keeps an existing page's one (checked in the transaction, below).
  if (input.title !== undefined && (input.title.trim() === '' || input.title.length > 1024)) {
    issues.push({ key: 'title', code: 'format', message: 'a title has 1–1024 characters and is not blank' });
  }
  if (input.metadata !== undefined) issues.push(...checkMetadata(input.metadata, limits));
  if (issues.length) throw invalid(issues);
  if (input.content !== undefined && Buffer.byteLength(input.content) > limits.pageBytes) {
    throw new AppError('payload_too_large', `page content is limited to ${limits.pageBytes} bytes`, [
      { key: 'content', code: 'max', message: `page content is limited to ${limits.pageBytes} bytes` },
    ]);
  }
  if (input.frontmatter !== undefined) checkFrontmatter(input.frontmatter, limits);

  const result = tx(svc.db, () =>
    withBatch(svc, opts.batch, (batch) => {
      const space = resolveSpace(svc, caller, slug);
      const existing = store.findPage(svc.db, space.id, path) ?? null;
      const live = existing !== null && existing.deleted_at === null ? existing : null;
      if (live) {
        const acl = live.has_acl ? store.readAcl(svc.db, live.id) : [];
        if (!canReadPage(caller, space, live, acl)) throw notFound(`page '${slug}/${path}'`);
        if (!canWritePage(caller, space, live, acl)) throw new AppError('forbidden', 'you may read this page but not change it');
      } else if (!canCreateIn(caller, space)) {
        throw new AppError('forbidden', `you may not create pages in '${slug}'`);
      } else if (input.title === undefined && input.template === undefined) {
        throw invalid([{ key: 'title', code: 'required', message: 'a title is required to create a page' }]);
      }
      // A write at the path of a page in the trash brings that page back, as a restore would (its
      // ACL and files with it), so only those who may restore it may write there; nothing in the
      // trash is ever destroyed (docs/security.md "Moves, trash and the absent rule").
      const trashed = existing !== null && existing.deleted_at !== null ? existing : null;
      const revivedAcl = trashed ? trashedAcl(svc.db, trashed.id) : null;
      if (trashed && !canRestoreTrashed(caller, space, revivedAcl)) {
        throw new AppError('conflict', `a deleted page at '${slug}/${path}' is in the trash, and you may not restore it: write elsewhere`);
      }
      if (input.baseVersion !== undefined && input.baseVersion !== (live?.version ?? 0)) {
        throw new AppError('version_conflict', `the page is at version ${live?.version ?? 0}, not ${input.baseVersion}`, undefined, {
          currentVersion: live?.version ?? 0,
        });
      }
      const metadata =
        input.metadata !== undefined ? normalizeMetadata(input.metadata) : live ? (JSON.parse(live.metadata) as Metadata) : {};
      // Templates, record validation and the type stamp (records/apply.ts) complete the state.
      const next = applyTemplates(svc, caller, space, path, input, live, {
        title: input.title ?? live?.title ?? '',
        content: input.content ?? live?.content ?? '',
        frontmatter: input.frontmatter !== undefined ? JSON.stringify(input.frontmatter) : (live?.frontmatter ?? '{}'),
        metadata,
        template: live?.template ?? null,
      });
      if (live && sameState(live, next)) return { space, row: live, created: false, changed: false };
      if (trashed && revivedAcl) {
        accessChanged(batch, { id: trashed.id, spaceSlug: space.slug, path, title: trashed.title, live: false }, () =>
          store.replaceAcl(svc.db, trashed.id, revivedAcl),
        );
      }
      // A new title takes the wikilinks that meant the page by its old one along (domain/renames.ts).
      const plan =
        live && opts.renameLinks !== false && next.title !== live.title
          ? planRename(svc, live.id, { space: space.slug, path }, live.title)
          : null;
      const written = writeRevision(svc, caller, space, path, existing, next, undefined, batch, opts.links);
      const renamed = plan ? rewriteLinks(svc, caller, plan, next.title, batch) : undefined;
      return { ...written, renamed, row: trashed && revivedAcl ? { ...written.row, has_acl: 1 } : written.row };
    }),
  );
  if (result.changed) notifyEventsWritten(svc);
  return {
    page: presentPage(result.space, result.row),
    created: result.created,
    changed: result.changed,
    // Reported when there is something to report: a rename no wikilink followed answers the plain page.
    ...('renamed' in result && result.renamed && (result.renamed.rewritten.length || result.renamed.notRewritten.length)
      ? { renamed: result.renamed }
      : {}),
  };
}

/** Writes the linking pages' rewritten wikilinks after a rename (domain/renames.ts), a revision each. */
function rewriteLinks(svc: Services, caller: Caller, plan: RenamePlan, newTitle: string, batch: IndexBatch): RenameResult {
  const { writes, notRewritten } = renameRewrites(svc, caller, plan, newTitle);
  for (const { space, row, content } of writes) {
    writeRevision(
      svc,
      caller,
      space,
      row.path,
      row,
      {
        title: row.title,
        content,
        frontmatter: row.frontmatter,
        metadata: row.metadata,
        template: row.template,
      },
      undefined,
      batch,
    );
  }
  return { rewritten: writes.map(({ space, row }) => ({ space: space.slug, path: row.path })).sort(byAddress), notRewritten };
}

/** The event a revision records when it is not a plain create or update. */
type RevisionEvent = { name: 'page.metadata.updated'; changedKeys: string[] } | { name: 'page.restored' };

/**
 * Writes a new revision of the page at `path` (creating or reviving its row) and its derived
 * indexes (in `batch`, else a batch of its own); inside a transaction. `links`: as putPage's.
 */
export function writeRevision(
  svc: Services,
  caller: Caller,
  space: SpaceRow,
  path: string,
  existing: PageRow | null,
  next: PageState,
  event?: RevisionEvent,
  batch?: IndexBatch,
  links?: PreparedLinks,
): { space: SpaceRow; row: PageRow; created: boolean; changed: true } {
  // Every door (PUT, metadata patch, import, templates, restores) writes through here.
  checkStoredSize(next, existing !== null && existing.deleted_at === null ? existing : null, svc.config.limits);
  return withinOrgQuota(svc, space.org_id, () => {
    const db = svc.db;
    const now = svc.now();
    const created = existing === null || existing.deleted_at !== null;
    let id: number;
    let version: number;
    if (existing === null) {
      id = store.insertPage(db, space.id, path, next, now);
      version = 1;
      store.insertRevision(db, id, version, next, caller.id, now);
    } else {
      id = existing.id;
      version = existing.version + 1;
      // The revision first: it keeps the state the row holds until updatePage (store/revision-codec.ts).
      store.insertRevision(db, id, version, next, caller.id, now);
      store.updatePage(db, id, next, version, now);
    }
    if (created) {
      // A page written at an old address ends its redirect; a revived page leaves the trash.
      dropRedirect(db, space.id, path);
      if (existing !== null) takeFromTrash(db, id);
    }
    withBatch(svc, batch, (b) =>
      pageWritten(
        b,
        {
          id,
          spaceId: space.id,
          spaceSlug: space.slug,
          path,
          title: next.title,
          content: next.content,
          metadata: JSON.parse(next.metadata),
          frontmatter: JSON.parse(next.frontmatter),
          fresh: existing === null,
          changedKeys: event?.name === 'page.metadata.updated' ? event.changedKeys : undefined,
          links: preparedFor(links, space.slug, path, next.content),
        },
        existing !== null && existing.deleted_at === null ? { title: existing.title, content: existing.content } : null,
      ),
    );
    if (event?.name === 'page.metadata.updated') {
      recordPageEvent(db, event.name, caller, space, { path, title: next.title, version }, now, event.changedKeys);
    } else {
      recordPageEvent(db, created ? 'page.created' : 'page.updated', caller, space, { path, title: next.title, version }, now);
    }
    // The change feed names a restore from the trash as such (webhooks: page.created).
    recordChange(db, caller, {
      event: event?.name === 'page.restored' ? 'page.restored' : created ? 'page.created' : 'page.updated',
      pageId: id,
      path,
      version,
      at: now,
    });
    // The row as just written (insertPage/updatePage set every column but has_acl and created_at).
    const row: PageRow = {
      id,
      space_id: space.id,
      path,
      ...next,
      version,
      has_acl: existing?.has_acl ?? 0,
      created_at: existing?.created_at ?? now,
      updated_at: now,
      deleted_at: null,
    };
    return { space, row, created, changed: true as const };
  });
}

function sameState(row: PageRow, next: PageState): boolean {
  return (
    row.title === next.title &&
    row.content === next.content &&
    row.frontmatter === next.frontmatter &&
    row.metadata === next.metadata &&
    row.template === next.template
  );
}

/** Deletes a page into its space's trash: revisions stay; a later write continues the numbering as `page.created`. */
export function deletePage(svc: Services, caller: Caller, slug: string, rawPath: string): void {
  tx(svc.db, () => {
    const { space, page } = loadReadablePage(svc, caller, slug, rawPath);
    const path = page.path;
    if (!canDeletePage(caller, space)) {
      throw new AppError(
        'forbidden',
        space.owner_id ? 'only the owner deletes pages here' : 'only org admins delete pages in a shared space',
      );
    }
    const now = svc.now();
    const before = readersBefore(svc.db, page.id, path);
    const batch = openBatch(svc);
    pageRemoved(batch, { id: page.id, spaceId: space.id, spaceSlug: space.slug, path, title: page.title, content: page.content });
    // The page's ACL goes with the page (the trash keeps it for a restore); the history it
    // governed keeps its readers.
    putInTrash(svc.db, page.id, caller.id);
    store.sealHistory(svc.db, page.id);
    store.markDeleted(svc.db, page.id, now);
    // What the indexes do once the page is gone (wikilinks that meant it resolve without it).
    batch.finish();
    recordPageEvent(svc.db, 'page.deleted', caller, space, { path, title: page.title, version: page.version }, now);
    recordChange(svc.db, caller, { event: 'page.deleted', pageId: page.id, path, version: page.version, at: now, before, gone: true });
  });
  notifyEventsWritten(svc);
}
