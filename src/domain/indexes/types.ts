// What a derived index is (docs/architecture.md "Derived indexes"): a module with the same hooks,
// listed once in list.ts. The page write path calls the list (list.ts), never an index itself;
// each hook runs inside the write's transaction with the write's batch.
import type { Services } from '../../services.ts';
import type { Db } from '../../store/db/types.ts';
import type { StoredPage } from '../../store/links.ts';
import type { TitledRow } from '../../store/pages.ts';
import type { Metadata } from '../../model.ts';
import { DEFAULT_LINK_BUDGET } from '../links/budget.ts';
import type { LinkBudget, LinkScan } from '../links/extract.ts';

/** A page as a write just left it (live). */
export type WrittenPage = {
  id: number;
  spaceId: number;
  spaceSlug: string;
  path: string;
  title: string;
  content: string;
  metadata: Metadata;
  /** Its frontmatter (the title index reads aliases from it). */
  frontmatter: Record<string, unknown>;
  /**
   * The page row was inserted by this write: no index rows of it can exist yet (page rows are
   * never removed and foreign keys are on, so a new id has no metadata or link rows), and the
   * lookups and deletes of old ones are skipped.
   */
  fresh: boolean;
  /**
   * Only these metadata keys changed since the previous revision (a metadata patch of a live
   * page): only their index rows are rewritten. A patch of one key of a page with thousands of
   * list items rewrote every row (issue 18).
   */
  changedKeys?: string[];
  /** Its links, scanned before the write's transaction (off the event loop: links/prepare.ts). */
  links?: LinkScan;
};

/** The previous live revision's title and body; null for a new or revived page. */
export type PageBefore = { title: string; content: string } | null;

/** A live page about to be deleted, as indexed (the hook runs before it leaves). */
export type RemovedPage = { id: number; spaceId: number; spaceSlug: string; path: string; title: string; content: string };

/** A page whose address changed (same row, same content); the hook runs at its new address. */
export type MovedPage = {
  id: number;
  title: string;
  content: string;
  frontmatter: Record<string, unknown>;
  from: { space: string; path: string };
  to: { space: string; path: string };
};

/** A page whose readers changed (an ACL set or dropped, or given back with a page from the trash). */
export type AccessPage = { id: number; spaceSlug: string; path: string; title: string; live: boolean };

/** A page's space and reader set before a change of access or address (store/key-stats.ts readersOf). */
export type ReadersBefore = { spaceId: number; readers: string } | undefined;

/**
 * The pages an import writes next (the rest of its bundle): a wikilink to one of them resolves to
 * it at once, as if it were there. `known` is the link index's in-memory view of the import's
 * space (links/wiki-index.ts), kept across the import's chunks.
 */
export type ImportPlan = {
  space: string;
  paths: Set<string>;
  /** The pages by folded title (foldCase). */
  titles: Map<string, Array<{ path: string; title: string }>>;
  known?: KnownPages | 'too many';
};
export type KnownPages = { spaceId: number; byPath: Map<string, TitledRow>; byTitle: Map<string, TitledRow[]>; write: number };

/**
 * One write's (or one import chunk's, one move's, one rebuild step's) state of the indexes,
 * passed to every hook instead of module-level variables. Open it with openBatch (list.ts) and
 * end it with finish(), inside the same transaction.
 */
export class IndexBatch {
  readonly db: Db;
  /** Base URLs under which a link is internal: the server's own (config.baseUrl). */
  readonly baseUrls: string[];
  /** An import in progress, or null. */
  readonly importing: ImportPlan | null;
  /**
   * True: an index may collect work that many writes of the batch cause (the link index's
   * re-resolution) and do it once at finish; false: at once.
   */
  readonly collects: boolean;
  /** What one page's link extraction may take (links/budget.ts). */
  readonly linkBudget: LinkBudget;
  private readonly ends: Array<() => void> = [];
  private readonly states = new Map<string, unknown>();

  constructor(db: Db, baseUrls: string[], importing: ImportPlan | null, collects: boolean, linkBudget: LinkBudget = DEFAULT_LINK_BUDGET) {
    this.db = db;
    this.baseUrls = baseUrls;
    this.importing = importing;
    this.collects = collects;
    this.linkBudget = linkBudget;
  }

  /** Runs `fn` at finish, after what was asked before it. */
  atEnd(fn: () => void): void {
    this.ends.push(fn);
  }

  /** The state index `name` keeps for this batch, made on first use. */
  state<T>(name: string, make: () => T): T {
    if (!this.states.has(name)) this.states.set(name, make());
    return this.states.get(name) as T;
  }

  /** Drops that state (the next `state` call makes it anew). */
  forget(name: string): void {
    this.states.delete(name);
  }

  /** Runs what was asked for the end, including what that asks in turn. */
  finish(): void {
    for (let fn = this.ends.shift(); fn; fn = this.ends.shift()) fn();
  }
}

/** A derived index: rows kept from the pages table, in the write's transaction. */
export type DerivedIndex = {
  /** Its name in `POST /admin/indexes/rebuild?index=` and the rebuild's answer. */
  name: string;
  /** What it holds, in a few words. */
  holds: string;
  /** The index it is counted from, if any: rebuilding that one rebuilds this one too. */
  derivedFrom?: string;
  /** A page was created, changed, revived or restored. */
  written(b: IndexBatch, page: WrittenPage, before: PageBefore): void;
  /** A live page is being deleted (called before it is marked deleted and its ACL goes to the trash). */
  removed(b: IndexBatch, page: RemovedPage): void;
  /** A page moved (its row now at `page.to`, redirects written). */
  moved(b: IndexBatch, page: MovedPage, before: ReadersBefore): void;
  /** A page's readers changed (its new ACL is written). */
  accessChanged(b: IndexBatch, page: AccessPage, before: ReadersBefore): void;
  /** Rebuilds the rows of one live page from its stored state (the rebuild's page-by-page pass). */
  rebuildPage?(b: IndexBatch, page: StoredPage): void;
  /** After the page-by-page pass: rebuilds what is kept per organisation (one write of the queue). */
  rebuild?(b: IndexBatch, orgId: number): void;
  /** Last, outside the write queue: an index that lives in its own file rebuilds it there. */
  rebuildApart?(svc: Services): void;
  /** Work once per database after an upgrade, in the background (server start); resolves to the pages it indexed. */
  backfill?: Backfill;
};

export type Backfill = {
  /** Whether the database still needs it. */
  due(svc: Services): boolean;
  run(svc: Services, stopped: () => boolean): Promise<number>;
  /** The log line when it indexed `pages` pages. */
  done(pages: number): string;
};
