import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { deferUntilCommit, tx } from '../../src/store/db.ts';
import { createGroupCommit } from '../../src/store/group-commit.ts';

// Full-text changes wait for the commit (outside savepoints) and vanish with a rolled-back write.
function setup() {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY); CREATE VIRTUAL TABLE f USING fts5(x);');
  const write = (id: number, fail = false) => {
    db.prepare('INSERT INTO t (id) VALUES (?)').run(id);
    deferUntilCommit(db, () => db.prepare('INSERT INTO f (rowid, x) VALUES (?, ?)').run(id, `word${id}`));
    if (fail) throw new Error('refused');
  };
  const state = () => ({
    rows: (db.prepare('SELECT id FROM t ORDER BY id').all() as Array<{ id: number }>).map((r) => r.id),
    fts: (db.prepare('SELECT rowid FROM f ORDER BY rowid').all() as Array<{ rowid: number }>).map((r) => r.rowid),
  });
  return { db, write, state };
}

describe('deferUntilCommit', () => {
  it('runs at once outside a transaction, and at commit inside one', () => {
    const { db, write, state } = setup();
    write(1);
    expect(state().fts).toEqual([1]);
    tx(db, () => {
      write(2);
      expect(state().fts).toEqual([1]);
    });
    expect(state()).toEqual({ rows: [1, 2], fts: [1, 2] });
  });

  it('drops the work of a nested savepoint that rolls back, and all of a failed transaction', () => {
    const { db, write, state } = setup();
    tx(db, () => {
      write(1);
      expect(() => tx(db, () => write(2, true))).toThrow('refused');
      write(3);
    });
    expect(state()).toEqual({ rows: [1, 3], fts: [1, 3] });
    expect(() => tx(db, () => { write(4); write(5, true); })).toThrow('refused');
    expect(state()).toEqual({ rows: [1, 3], fts: [1, 3] });
    tx(db, () => write(6));
    expect(state()).toEqual({ rows: [1, 3, 6], fts: [1, 3, 6] });
  });

  it('keeps each group-commit job to its own work', async () => {
    const { db, write, state } = setup();
    const writes = createGroupCommit(db);
    const results = await Promise.allSettled([
      writes.run(() => write(1)), writes.run(() => write(2, true)), writes.run(() => tx(db, () => write(3))),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(state()).toEqual({ rows: [1, 3], fts: [1, 3] });
  });
});
