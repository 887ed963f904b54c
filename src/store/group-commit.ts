import { tx, withinSavepoint } from './db/transactions.ts';
import type { Db } from './db/types.ts';

// Group commit: writes that arrive in the same turn of the event loop share one BEGIN IMMEDIATE
// … COMMIT, each inside its own savepoint, so one failing write rolls back only itself. A commit
// has a fixed cost (the WAL append and its syscalls); the writers of one batch pay it once.
// Callers are answered only after the batch has committed, so an acknowledged write is durable
// to the same degree as a single-transaction write.
type Job = { fn: () => unknown; resolve: (v: unknown) => void; reject: (e: unknown) => void; alone: boolean };

export type GroupCommit = {
  /**
   * Runs `fn` in a transaction shared with the other writes of this turn; resolves after COMMIT.
   * `alone`: in a transaction of its own instead (a large write that opens savepoints of its
   * own, such as an import chunk: see flush).
   */
  run<T>(fn: () => T, opts?: { alone?: boolean }): Promise<T>;
  /** Runs `fn` after the current batch (if any) has committed. */
  afterCommit(fn: () => void): void;
  /**
   * Holds batches back until the returned function is called: writes queue (their promises
   * wait) and the event loop goes on. The WAL checkpointer uses it to find the log idle.
   */
  hold(): () => void;
  /** Committed batches, and the writes in them by batch size (metrics): sizes[i] counts batches of size i+1. */
  readonly stats: { commits: number; writes: number; sizes: number[] };
  /** Writes started so far (committed or not): a write that sees this grow by one between two of its own jobs knows no other write ran. */
  started(): number;
};

/** A batch that took longer than `slowMs` (BEGIN to COMMIT) is reported to `onSlow`. */
type SlowBatchReport = { slowMs: number; onSlow: (ms: number, writes: number) => void };

export function createGroupCommit(db: Db, maxBatch = 128, slow?: SlowBatchReport): GroupCommit {
  let queue: Job[] = [];
  let scheduled = false;
  let after: Array<() => void> = [];
  let holds = 0;
  let jobsStarted = 0;
  const stats = { commits: 0, writes: 0, sizes: new Array<number>(maxBatch).fill(0) };

  const flush = () => {
    scheduled = false;
    if (holds > 0) return; // the last release schedules the queue again
    // A job that runs alone goes in a batch of its own. Inside a shared batch every job is a
    // savepoint, and SQLite's savepoints nested in one that has changed many pages cost more the
    // more it has changed (a RELEASE under thousands of inserts costs some twenty times one
    // directly in the transaction): an import chunk's page writes, each a savepoint, would pay
    // that for every page.
    let n = 0;
    while (n < queue.length && n < maxBatch && !(queue[n].alone && n > 0)) {
      n++;
      if (queue[n - 1].alone) break;
    }
    const jobs = queue.splice(0, n);
    if (queue.length) schedule();
    const alone = jobs[0].alone; // then the only job: the transaction is its own, no savepoint around it
    const outcomes: Array<{ ok: boolean; value: unknown }> = [];
    const started = slow ? performance.now() : 0;
    try {
      tx(db, () => {
        for (const job of jobs) {
          jobsStarted++;
          if (alone) {
            outcomes.push({ ok: true, value: job.fn() }); // if it throws, its transaction rolls back (below)
            continue;
          }
          try {
            outcomes.push({ ok: true, value: withinSavepoint(db, job.fn) });
          } catch (e) {
            outcomes.push({ ok: false, value: e });
          }
        }
      });
    } catch (e) {
      for (const job of jobs) job.reject(e);
      runAfter();
      return;
    }
    if (slow) {
      const ms = performance.now() - started;
      if (ms > slow.slowMs) slow.onSlow(ms, jobs.length);
    }
    stats.commits++;
    stats.writes += jobs.length;
    stats.sizes[jobs.length - 1]++;
    jobs.forEach((job, i) => (outcomes[i].ok ? job.resolve(outcomes[i].value) : job.reject(outcomes[i].value)));
    runAfter();
  };
  const runAfter = () => {
    const fns = after;
    after = [];
    for (const fn of fns) fn();
  };
  const schedule = () => {
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  return {
    stats,
    started: () => jobsStarted,
    run<T>(fn: () => T, opts?: { alone?: boolean }): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ fn, resolve: resolve as (v: unknown) => void, reject, alone: opts?.alone === true });
        schedule();
      });
    },
    afterCommit(fn) {
      if (db.inTransaction) after.push(fn);
      else fn();
    },
    hold() {
      holds++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (--holds === 0 && queue.length) schedule();
      };
    },
  };
}
