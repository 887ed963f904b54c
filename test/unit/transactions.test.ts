import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tx, withinSavepoint } from '../../src/store/db.ts';

let dir: string;
let db: Database.Database;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-tx-'));
  db = new Database(path.join(dir, 'x.db'));
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const keys = () => db.prepare('SELECT k FROM t ORDER BY k').pluck().all();
const put = (k: string) => () => db.prepare('INSERT INTO t VALUES (?)').run(k);
const fail = (k: string) => () => {
  put(k)();
  throw new Error(`refused ${k}`);
};

describe('tx and withinSavepoint', () => {
  const cases: Array<{ name: string; run: () => unknown; error?: RegExp; keys: string[] }> = [
    { name: 'a transaction commits', run: () => tx(db, put('a')), keys: ['a'] },
    { name: 'a throwing transaction leaves nothing', run: () => tx(db, fail('a')), error: /refused a/, keys: [] },
    {
      name: 'a failing nested write rolls back only itself',
      run: () => tx(db, () => {
        put('a')();
        expect(() => tx(db, fail('b'))).toThrow(/refused b/);
        withinSavepoint(db, put('c'));
      }),
      keys: ['a', 'c'],
    },
    {
      name: 'a failing outer write rolls back its committed savepoints too',
      run: () => tx(db, () => {
        withinSavepoint(db, put('a'));
        throw new Error('outer');
      }),
      error: /outer/,
      keys: [],
    },
    {
      name: 'savepoints nest three deep; the middle one failing drops the inner one',
      run: () => tx(db, () => {
        put('a')();
        expect(() => withinSavepoint(db, () => {
          withinSavepoint(db, put('b'));
          fail('c')();
        })).toThrow(/refused c/);
      }),
      keys: ['a'],
    },
    {
      name: 'a constraint error inside a savepoint keeps the transaction usable',
      run: () => tx(db, () => {
        put('a')();
        expect(() => withinSavepoint(db, put('a'))).toThrow(/UNIQUE/);
        put('b')();
      }),
      keys: ['a', 'b'],
    },
    {
      name: 'a function returning a promise is refused and rolled back',
      run: () => tx(db, (() => {
        put('a')();
        return Promise.resolve(1);
      }) as () => unknown),
      error: /cannot return a promise/,
      keys: [],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      if (c.error) expect(c.run).toThrow(c.error);
      else c.run();
      expect(db.inTransaction).toBe(false);
      expect(keys()).toEqual(c.keys);
    });
  }

  it('tx begins IMMEDIATE: the write lock is held from the start', () => {
    const other = new Database(path.join(dir, 'x.db'));
    other.pragma('busy_timeout = 0');
    try {
      tx(db, () => {
        expect(() => other.exec('BEGIN IMMEDIATE')).toThrow(/locked|busy/i);
      });
    } finally {
      other.close();
    }
  });

  it('returns what the function returns', () => {
    expect(tx(db, () => 42)).toBe(42);
    expect(tx(db, () => withinSavepoint(db, () => 'x'))).toBe('x');
  });
});
