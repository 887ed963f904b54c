import type { Services } from '../../services.ts';
import { readersOf } from '../../store/key-stats.ts';
import { linkBudget } from '../links/budget.ts';
import { expectPages, withImportChunk } from '../links/wiki-index.ts';
import { fullTextIndex } from './full-text.ts';
import { keyStatsIndex } from './key-stats.ts';
import { linkIndex } from './links.ts';
import { metadataIndex } from './metadata.ts';
import { titleWordsIndex } from './title-words.ts';
import {
  IndexBatch,
  type AccessPage,
  type DerivedIndex,
  type ImportPlan,
  type MovedPage,
  type PageBefore,
  type RemovedPage,
  type WrittenPage,
} from './types.ts';

/**
 * The derived indexes, in the order their hooks run (docs/architecture.md "Derived indexes").
 * `key-stats` comes before `metadata`: it reads the page's old metadata rows before they are
 * rewritten. A new index is one module here; the page write path reaches it through the
 * functions below, and POST /admin/indexes/rebuild and the backfill job through this list.
 */
export const indexes: DerivedIndex[] = [keyStatsIndex, metadataIndex, fullTextIndex, titleWordsIndex, linkIndex];

/** A batch for one write (or a move, a rebuild step): `collects` for many writes that share re-resolution. */
export function openBatch(svc: Services, opts: { collects?: boolean; importing?: ImportPlan } = {}): IndexBatch {
  return new IndexBatch(svc.db, [svc.config.baseUrl], opts.importing ?? null, opts.collects ?? false, linkBudget(svc.config.limits));
}

/** Runs `fn` with a batch of its own and finishes it; or with `batch`, which its owner finishes. */
export function withBatch<T>(svc: Services, batch: IndexBatch | undefined, fn: (b: IndexBatch) => T): T {
  if (batch) return fn(batch);
  const b = openBatch(svc);
  const out = fn(b);
  b.finish();
  return out;
}

/** A page was created, changed, revived or restored: every index's `written`. */
export function pageWritten(b: IndexBatch, page: WrittenPage, before: PageBefore): void {
  for (const ix of indexes) ix.written(b, page, before);
}

/** A live page is about to be deleted; the rest of its indexing runs at the batch's finish, once it is. */
export function pageRemoved(b: IndexBatch, page: RemovedPage): void {
  for (const ix of indexes) ix.removed(b, page);
}

/** Runs `apply` (the page's new address and redirects), then every index's `moved`. */
export function pageMoved(b: IndexBatch, page: MovedPage, apply: () => void): void {
  const before = readersOf(b.db, page.id);
  apply();
  for (const ix of indexes) ix.moved(b, page, before);
}

/** Runs `apply` (a change of the page's ACL), then every index's `accessChanged`. Every ACL change goes through here. */
export function accessChanged(b: IndexBatch, page: AccessPage, apply: () => void): void {
  const before = readersOf(b.db, page.id);
  apply();
  for (const ix of indexes) ix.accessChanged(b, page, before);
}

/** The pages of an import's bundle, kept across its chunks (wikilinks to them resolve at once). */
export const importPlan = expectPages;

/**
 * Runs one import chunk (the group commit's write number `write`) with a batch that foresees the
 * import's pages and collects re-resolution to do once at its end. `fn` returns false when one of
 * its page writes was refused.
 */
export function importChunkBatch(svc: Services, plan: ImportPlan, write: number, fn: (b: IndexBatch) => boolean): void {
  withImportChunk(plan, write, () => {
    const b = openBatch(svc, { collects: true, importing: plan });
    const intact = fn(b);
    b.finish();
    return intact;
  });
}
