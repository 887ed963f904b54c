import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDbEach } from '../support/temp-db.ts';
import { commitLog, tx, withinSavepoint } from '../../src/store/db/transactions.ts';

let db: Database.Database;
tempDbEach('CREATE TABLE t (k TEXT PRIMARY KEY)', (d) => (db = d));

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
      run: () =>
        tx(db, () => {
          put('a')();
          expect(() => tx(db, fail('b'))).toThrow(/refused b/);
          withinSavepoint(db, put('c'));
        }),
      keys: ['a', 'c'],
    },
    {
      name: 'a failing outer write rolls back its committed savepoints too',
      run: () =>
        tx(db, () => {
          withinSavepoint(db, put('a'));
          throw new Error('outer');
        }),
      error: /outer/,
      keys: [],
    },
    {
      name: 'savepoints nest three deep; the middle one failing drops the inner one',
      run: () =>
        tx(db, () => {
          put('a')();
          expect(() =>
            withinSavepoint(db, () => {
              withinSavepoint(db, put('b'));
              fail('c')();
            }),
          ).toThrow(/refused c/);
        }),
      keys: ['a'],
    },
    {
      name: 'a constraint error inside a savepoint keeps the transaction usable',
      run: () =>
        tx(db, () => {
          put('a')();
          expect(() => withinSavepoint(db, put('a'))).toThrow(/UNIQUE/);
          put('b')();
        }),
      keys: ['a', 'b'],
    },
    {
      name: 'a function returning a promise is refused and rolled back',
      run: () =>
        tx(db, (() => {
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
    const other = new Database(db.name);
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

describe('commitLog', () => {
  // Entries are keys to insert; the flush writes them at the outermost COMMIT, in order.
  const flushed: string[][] = [];
  const log = commitLog<string>((d, entries) => {
    flushed.push([...entries]);
    for (const k of entries) d.prepare('INSERT INTO t VALUES (?)').run(k);
  });
  const add = (k: string) => () => expect(log.add(db, k)).toBe(true);
  /** A case run as one transaction of tx. */
  const inTx = (body: () => void) => () => tx(db, body);
  beforeEach(() => {
    flushed.length = 0;
  });

  const cases: Array<{ name: string; run: () => unknown; error?: RegExp; flushed: string[][]; keys: string[] }> = [
    {
      name: 'entries are written once, before the outermost COMMIT, in order',
      run: inTx(() => {
        add('a')();
        tx(db, () => withinSavepoint(db, add('b')));
        add('c')();
        expect(keys()).toEqual([]);
        expect(log.pending(db)).toBe(3);
      }),
      flushed: [['a', 'b', 'c']],
      keys: ['a', 'b', 'c'],
    },
    {
      name: 'a savepoint that rolls back takes its entries with it, nested ones too',
      run: inTx(() => {
        add('a')();
        expect(() =>
          withinSavepoint(db, () => {
            add('b')();
            withinSavepoint(db, add('c'));
            throw new Error('no');
          }),
        ).toThrow('no');
        withinSavepoint(db, add('d'));
      }),
      flushed: [['a', 'd']],
      keys: ['a', 'd'],
    },
    {
      name: 'a transaction that rolls back writes none',
      run: inTx(() => {
        add('a')();
        throw new Error('no');
      }),
      error: /no/,
      flushed: [],
      keys: [],
    },
    {
      name: 'a failing flush rolls the transaction back',
      run: inTx(() => {
        put('a')();
        add('a')(); // the flush's INSERT of 'a' fails on the primary key
      }),
      error: /UNIQUE/,
      flushed: [['a']],
      keys: [],
    },
    {
      name: 'outside a transaction of tx, add refuses (the caller writes at once)',
      run: () => {
        expect(log.add(db, 'x')).toBe(false);
        db.transaction(() => {
          expect(log.add(db, 'y')).toBe(false);
          tx(db, () => expect(log.add(db, 'z')).toBe(false));
        })();
      },
      flushed: [],
      keys: [],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      if (c.error) expect(c.run).toThrow(c.error);
      else c.run();
      expect(flushed).toEqual(c.flushed);
      expect(keys()).toEqual(c.keys);
      expect(log.pending(db)).toBe(0);
      expect(db.inTransaction).toBe(false);
    });
  }

  it('starts empty after a transaction that failed', () => {
    expect(() =>
      tx(db, () => {
        add('a')();
        throw new Error('no');
      }),
    ).toThrow();
    tx(db, add('b'));
    expect(flushed).toEqual([['b']]);
  });
});
