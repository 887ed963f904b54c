import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { namedRows } from '../support/cases.ts';
import table from './cases/planned-once.json' with { type: 'json' };
import { plannedOnce } from '../../src/store/db/statements.ts';

describe('plannedOnce', () => {
  it.each(namedRows<[sql: string, expected: string]>(table))('%s', (_name, sql, expected) => {
    expect(plannedOnce(sql)).toBe(expected);
  });

  it('gives the same answers and the same index use as the plain statement', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT, n INTEGER); CREATE INDEX t_k ON t(k, n)');
    const ins = db.prepare('INSERT INTO t (k, n) VALUES (?, ?)');
    for (let i = 0; i < 200; i++) ins.run(`k${i % 7}`, i);
    const sql = 'SELECT id FROM t WHERE k = ? AND n >= ? ORDER BY n LIMIT ?';
    for (const args of [
      ['k3', 10, 5],
      ['k0', 0, 100],
      ['k6', '50', 3],
      ['zz', 0, 10],
    ] as const) {
      expect(db.prepare(plannedOnce(sql)).all(...args)).toEqual(db.prepare(sql).all(...args));
    }
    const plan = (q: string) =>
      db
        .prepare(`EXPLAIN QUERY PLAN ${q}`)
        .all('k1', 1, 1)
        .map((r) => (r as { detail: string }).detail);
    expect(plan(plannedOnce(sql))).toEqual(plan(sql));
    expect(plan(plannedOnce(sql)).join()).toContain('INDEX t_k (k=? AND n>?)');
  });
});
