import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { tempDbEach } from '../support/temp-db.ts';
import { createGroupCommit } from '../../src/store/group-commit.ts';

let db: Database.Database;
tempDbEach('CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)', (d) => (db = d));

const rows = () => db.prepare('SELECT k, v FROM t ORDER BY k').all();

describe('group commit', () => {
  it('runs the writes of one turn in one transaction, each isolated in its own savepoint', async () => {
    const gc = createGroupCommit(db);
    const results = await Promise.allSettled([
      gc.run(() => db.prepare("INSERT INTO t VALUES ('a', 1)").run().changes),
      gc.run(() => {
        db.prepare("INSERT INTO t VALUES ('b', 2)").run();
        throw new Error('refused'); // must roll back 'b' only
      }),
      gc.run(() => db.prepare("INSERT INTO t VALUES ('a', 3)").run()), // constraint error: only this one fails
      gc.run(() => db.prepare("INSERT INTO t VALUES ('c', 4)").run().changes),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('refused');
    expect(rows()).toEqual([
      { k: 'a', v: 1 },
      { k: 'c', v: 4 },
    ]);
  });

  it('answers only after COMMIT, and runs afterCommit callbacks after it', async () => {
    const gc = createGroupCommit(db);
    const seen: string[] = [];
    const p = gc.run(() => {
      db.prepare("INSERT INTO t VALUES ('x', 1)").run();
      gc.afterCommit(() => seen.push(`after: inTransaction=${db.inTransaction}`));
      return db.inTransaction;
    });
    expect(seen).toEqual([]);
    expect(await p).toBe(true);
    expect(seen).toEqual(['after: inTransaction=false']);
    const other = new Database(db.name, { readonly: true });
    expect(other.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 1 }); // visible to another connection
    other.close();
  });

  it('splits a long queue into batches of at most maxBatch', async () => {
    const gc = createGroupCommit(db, 3);
    const sizes: number[] = [];
    let current = 0;
    const all = Array.from({ length: 7 }, (_, i) =>
      gc.run(() => {
        db.prepare('INSERT INTO t VALUES (?, ?)').run(`k${i}`, i);
        current++;
        gc.afterCommit(() => {
          if (current) sizes.push(current);
          current = 0;
        });
      }),
    );
    await Promise.all(all);
    expect(sizes).toEqual([3, 3, 1]);
    expect(rows()).toHaveLength(7);
  });

  it('holds batches back until every hold is released, and the event loop goes on meanwhile', async () => {
    const gc = createGroupCommit(db);
    const releaseA = gc.hold();
    const releaseB = gc.hold();
    let done = false;
    const write = gc.run(() => db.prepare("INSERT INTO t VALUES ('h', 1)").run()).then(() => (done = true));
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 2)); // timers still run
    expect(done).toBe(false);
    expect(rows()).toEqual([]);
    releaseA();
    releaseA(); // a second call of the same release changes nothing
    await new Promise((r) => setTimeout(r, 5));
    expect(done).toBe(false);
    releaseB();
    await write;
    expect(rows()).toEqual([{ k: 'h', v: 1 }]);
    await gc.run(() => db.prepare("INSERT INTO t VALUES ('i', 2)").run()); // not held any more
    expect(rows()).toHaveLength(2);
  });

  it('runs a job marked alone in a transaction of its own, in queue order, without a savepoint around it', async () => {
    const gc = createGroupCommit(db);
    const batches: string[][] = [];
    let current: string[] = [];
    const job = (k: string, alone = false, fail = false) =>
      gc.run(
        () => {
          db.prepare('INSERT INTO t VALUES (?, ?)').run(k, gc.started());
          current.push(k);
          gc.afterCommit(() => {
            if (current.length) batches.push(current);
            current = [];
          });
          // A job alone holds the transaction itself: no savepoint of the group commit is open.
          if (alone) expect(db.prepare('SAVEPOINT probe').run() && db.prepare('RELEASE probe').run()).toBeTruthy();
          if (fail) throw new Error('refused');
        },
        { alone },
      );
    const results = await Promise.allSettled([job('a'), job('b'), job('c', true), job('d'), job('e', true, true), job('f', true)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(batches).toEqual([['a', 'b'], ['c'], ['d'], ['e'], ['f']]); // e in a transaction of its own, rolled back whole
    // started() counts every job run, committed or not: f was the sixth.
    expect(rows()).toEqual([
      { k: 'a', v: 1 },
      { k: 'b', v: 2 },
      { k: 'c', v: 3 },
      { k: 'd', v: 4 },
      { k: 'f', v: 6 },
    ]);
    expect(gc.stats.commits).toBe(4);
  });
});
