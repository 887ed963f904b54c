// Pruning the change feed (store/changes.ts pruneChanges): whole txids only, read from the oldest
// up to the first row that is not old enough, the floor raised to the last txid removed.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { changesFloor, insertChange, pruneChanges } from '../../src/store/changes.ts';
import { migrate } from '../../src/store/migrations.ts';
import { STORED_EVENTS } from '../support/old-db.ts';

const T = Date.parse('2026-01-01T00:00:00.000Z');
const iso = (s: number) => new Date(T + s * 1000).toISOString();

/** A database holding one transaction per entry of `txs`, each a list of its rows' times (seconds after T). */
function feed(txs: number[][], events: string[] = []): Database.Database {
  const db = new Database(':memory:');
  migrate(db);
  let k = 0;
  for (const rows of txs) {
    for (const s of rows)
      insertChange(db, {
        at: iso(s),
        event: events[k++] ?? 'page.updated',
        pageId: 1,
        spaceId: 1,
        path: 'p',
        version: 1,
        readers: '',
        fromSpaceId: null,
        fromPath: null,
        fromReaders: null,
        actorId: 'p_x',
        actorKind: 'agent',
      });
    db.prepare('UPDATE txid SET n = n + 1 WHERE id = 1').run();
  }
  return db;
}

const kept = (db: Database.Database) => db.prepare('SELECT txid, seq FROM changes ORDER BY txid, seq').all();
const txids = (db: Database.Database) => [...new Set(db.prepare('SELECT txid FROM changes').pluck().all())];

describe('pruneChanges', () => {
  it('removes the txids older than the time, up to the first that is not, and raises the floor', () => {
    const db = feed([[1], [2, 2], [3], [10], [4]]);
    expect(pruneChanges(db, iso(5), 100)).toBe(4);
    expect(txids(db)).toEqual([4, 5]); // txid 5 is older than 5 s, but comes after txid 4, which is not
    expect(changesFloor(db)).toBe(3);
    expect(pruneChanges(db, iso(5), 100)).toBe(0);
    expect(changesFloor(db)).toBe(3);
    expect(pruneChanges(db, iso(11), 100)).toBe(2);
    expect(kept(db)).toEqual([]);
    expect(changesFloor(db)).toBe(5);
  });

  it('keeps a txid whole when any of its rows is not old enough, within the rows read or past them', () => {
    const db = feed([[1], [2, 2, 6], [3]]);
    expect(pruneChanges(db, iso(5), 100)).toBe(1);
    expect(txids(db)).toEqual([2, 3]);
    const past = feed([[1], [2, 2, 2, 6]]);
    expect(pruneChanges(past, iso(5), 3)).toBe(1); // the rows read end inside txid 2, whose last row is newer
    expect(txids(past)).toEqual([2]);
    expect(changesFloor(past)).toBe(1);
  });

  it('removes at most about `limit` rows, but a txid that starts within them whole', () => {
    const db = feed([[1, 1, 1, 1], [2], [3]]);
    expect(pruneChanges(db, iso(5), 2)).toBe(4);
    expect(txids(db)).toEqual([2, 3]);
    expect(pruneChanges(db, iso(5), 1)).toBe(1);
    expect(txids(db)).toEqual([3]);
    expect(changesFloor(db)).toBe(2);
  });

  it('numbers the rows of a txid from 0 and keeps them in the key alone', () => {
    const db = feed([[1, 1], [2]]);
    expect(kept(db)).toEqual([
      { txid: 1, seq: 0 },
      { txid: 1, seq: 1 },
      { txid: 2, seq: 0 },
    ]);
    expect(db.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'changes'").pluck().get()).toBe(0);
    expect(db.prepare('SELECT typeof(at) FROM changes LIMIT 1').pluck().get()).toBe('integer');
  });

  it("keeps each event as a number, and the step to schema version 23 numbers a version 21 table's names the same", () => {
    const names = STORED_EVENTS;
    const db = feed(
      [
        [1, 1, 1, 1],
        [2, 2, 2, 2],
      ],
      names,
    );
    const stored = db.prepare('SELECT * FROM changes ORDER BY txid, seq').all() as Array<Record<string, unknown>>;
    expect(stored.map((r) => r.event)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(() => feed([[1]], ['page.renamed'])).toThrow(/page.renamed/);
    // Version 21's table: the same key, `event` the name.
    db.exec(
      `ALTER TABLE changes RENAME TO c23;
      CREATE TABLE changes (
        txid INTEGER NOT NULL, seq INTEGER NOT NULL, at INTEGER NOT NULL, event TEXT NOT NULL, page_id INTEGER NOT NULL,
        space_id INTEGER NOT NULL, path TEXT NOT NULL, version INTEGER, readers TEXT,
        from_space_id INTEGER, from_path TEXT, from_readers TEXT, actor_id TEXT NOT NULL, actor_kind TEXT NOT NULL,
        PRIMARY KEY (txid, seq)) WITHOUT ROWID;
      INSERT INTO changes SELECT txid, seq, at, json_extract(?, '$[' || event || ']'), page_id, space_id, path, version, readers,
        from_space_id, from_path, from_readers, actor_id, actor_kind FROM c23;
      DROP TABLE c23;`.replace('?', `'${JSON.stringify(names)}'`),
    );
    expect(db.prepare('SELECT event FROM changes ORDER BY txid, seq').pluck().all()).toEqual(names);
    db.pragma('user_version = 22');
    migrate(db);
    expect(db.prepare('SELECT * FROM changes ORDER BY txid, seq').all()).toEqual(stored);
  });
});
