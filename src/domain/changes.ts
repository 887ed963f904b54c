// The change feed (docs/changes.md): what changed, in commit order, as each caller may see it.
// A change row is written beside the webhook outbox row, in the transaction of the change
// (pages.ts, moves.ts, trash.ts, page-acl.ts, attachments.ts call recordChange), with who could
// read the page before and after it, so a delete or a move away is shown to those who could read
// the page before, and an ACL change to those it lets in (as page.created) or out (page.deleted).
import type { BackgroundJob, Services } from '../services.ts';
import { AppError } from './errors.ts';
import { resolveSpace } from './spaces.ts';
import { tx } from '../store/db/transactions.ts';
import type { Db } from '../store/db/types.ts';
import { changesFloor, insertChange, pruneChanges, visibleChanges, visibleChangesOf, type ChangeRow } from '../store/changes.ts';
import { readersOf } from '../store/key-stats.ts';
import { readTxid } from '../store/txid.ts';
import type { Caller, Change, ChangeEvent } from '../model.ts';

/** Where and to whom a page was readable before a change (readersOf, taken before it). */
export type Before = { spaceId: number; path: string; readers: string };

/** The page's address and readers now, for a change recorded before it moves or loses its ACL. */
export function readersBefore(db: Db, pageId: number, path: string): Before {
  const r = readersOf(db, pageId)!;
  return { spaceId: r.spaceId, path, readers: r.readers };
}

/**
 * Records one change inside the transaction that makes it. `path` is where the page is after it
 * (a file event: `<page path>/<name>`); `before` for a delete, a move and an ACL change
 * ('page.access'); `gone` when nobody reads the page after it (a delete).
 */
export function recordChange(
  db: Db,
  caller: Caller,
  c: { event: ChangeEvent | 'page.access'; pageId: number; path: string; version?: number; at: string; before?: Before; gone?: boolean },
): void {
  const now = readersOf(db, c.pageId)!;
  insertChange(db, {
    at: c.at,
    event: c.event,
    pageId: c.pageId,
    spaceId: c.gone && c.before ? c.before.spaceId : now.spaceId,
    path: c.path,
    version: c.version ?? null,
    readers: c.gone ? null : now.readers,
    fromSpaceId: c.before?.spaceId ?? null,
    fromPath: c.before?.path ?? null,
    fromReaders: c.before?.readers ?? null,
    actorId: caller.id,
    actorKind: caller.kind,
  });
}

/** How a stored change reads to a caller who may see it after it (`after`), before it, or both. */
function presentChange(r: ChangeRow): Change {
  const base = {
    txid: r.txid,
    at: r.at,
    actor: { id: r.actor_id, kind: r.actor_kind },
    ...(r.version !== null ? { version: r.version } : {}),
  };
  const here = { space: r.space_slug, path: r.path };
  const there = { space: r.from_slug ?? r.space_slug, path: r.from_path ?? r.path };
  if (r.event === 'page.moved') {
    // A move is a move to those who read both ends; to the others, the page left or arrived.
    if (r.after && r.before) return { ...base, event: 'page.moved', ...here, from: there };
    return r.before ? { ...base, event: 'page.deleted', ...there } : { ...base, event: 'page.created', ...here };
  }
  if (r.event === 'page.access') return { ...base, event: r.after ? 'page.created' : 'page.deleted', ...here };
  return { ...base, event: r.event as ChangeEvent, ...here };
}

type ChangesQuery = { since: number; space: string | null; limit: number };

/**
 * GET /changes: the changes after txid `since` the caller may see, at most `limit`, never part of
 * a txid (a transaction larger than `limit` comes whole); `nextSince` is the txid to ask from
 * next. An older `since` than the changes kept: 410 changes_expired.
 */
export function listChanges(svc: Services, caller: Caller, q: ChangesQuery): { changes: Change[]; nextSince: number } {
  const spaceId = q.space ? resolveSpace(svc, caller, q.space).id : null;
  checkSince(svc, q.since);
  return changesAfter(svc, caller, q.since, spaceId, q.limit);
}

/**
 * The txid a `since` names: `now` is the newest the database holds, so a client that starts
 * following reads nothing older (the web app, a tab just opened). A stream opened so names the
 * same txid in its first comment (`: txid N`), read in the same turn.
 */
export function sinceOf(svc: Services, since: number | 'now'): number {
  return since === 'now' ? readTxid(svc.db).n : since;
}

/** 410 changes_expired when changes after `since` were pruned (0: from the oldest kept). */
export function checkSince(svc: Services, since: number): void {
  if (since > 0 && since < changesFloor(svc.db)) {
    throw new AppError(
      'changes_expired',
      `the changes after txid ${since} are no longer kept (SERVICE_CHANGES_RETENTION_DAYS is ${svc.config.changes.retentionDays}): read the current state again, then follow from this answer's nextSince`,
      undefined,
      {
        nextSince: readTxid(svc.db).n,
      },
    );
  }
}

/** listChanges for a space already resolved (`spaceId`, null: all) and a `since` already checked. */
export function changesAfter(
  svc: Services,
  caller: Caller,
  since: number,
  spaceId: number | null,
  limit: number,
): { changes: Change[]; nextSince: number } {
  // The txid first: on a replica the copy may move on between two statements; nothing past it is read.
  const upto = readTxid(svc.db).n;
  const rows = visibleChanges(svc.db, caller, { since, upto, spaceId, limit: limit + 1 });
  if (rows.length <= limit) return { changes: rows.map(presentChange), nextSince: Math.max(since, upto) };
  let page = rows.slice(0, limit);
  const cut = page[page.length - 1].txid;
  if (rows[limit].txid === cut) {
    page = page.filter((r) => r.txid !== cut);
    if (page.length === 0) page = visibleChangesOf(svc.db, caller, cut, spaceId);
  }
  return { changes: page.map(presentChange), nextSince: page[page.length - 1].txid };
}

const PRUNE_BATCH = 5000;
const PRUNE_EVERY_MS = 3_600_000;

/** Removes changes past SERVICE_CHANGES_RETENTION_DAYS, a batch a transaction, on the primary. */
export function changesRetentionJob(svc: Services): BackgroundJob {
  const retentionMs = svc.config.changes.retentionDays * 86_400_000;
  const every = Math.min(PRUNE_EVERY_MS, Math.max(100, retentionMs / 4));
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const prune = async () => {
    try {
      for (;;) {
        const before = new Date(Date.now() - retentionMs).toISOString();
        const removed = await svc.writes.run(() => tx(svc.db, () => pruneChanges(svc.db, before, PRUNE_BATCH)));
        if (removed < PRUNE_BATCH || stopped) break;
      }
    } catch (e) {
      svc.log.warn('change feed: pruning failed', { error: e instanceof Error ? e.message : String(e) });
    }
    if (!stopped) (timer = setTimeout(() => void prune(), every)).unref();
  };
  return {
    start: () => void prune(),
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
