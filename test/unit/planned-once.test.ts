import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { plannedOnce } from '../../src/store/db/statements.ts';

describe('plannedOnce', () => {
  it.each([
    ['positional', 'SELECT a FROM t WHERE id = ? LIMIT ?', 'SELECT a FROM t WHERE id = +? LIMIT +?'],
    ['named', 'WHERE s.org_id = @callerOrg AND x > @after_1', 'WHERE s.org_id = +@callerOrg AND x > +@after_1'],
    ['already plus', 'WHERE a = +@x AND b = + ?', 'WHERE a = +@x AND b = + ?'],
    ['values', 'INSERT INTO t (a, b) VALUES (?, @b)', 'INSERT INTO t (a, b) VALUES (+?, +@b)'],
    ['other prefixes', 'WHERE a = :a AND b = $b AND c = ?12', 'WHERE a = +:a AND b = +$b AND c = +?12'],
    ['string literals', "WHERE a = '?' AND b = 'it''s @x ?' AND c = ?", "WHERE a = '?' AND b = 'it''s @x ?' AND c = +?"],
    ['quoted names', 'SELECT "a?b", [c@d], `e?` FROM t WHERE x = ?', 'SELECT "a?b", [c@d], `e?` FROM t WHERE x = +?'],
    ['comments', 'SELECT 1 -- is it ?\nWHERE a = ? /* @b ? */ AND b = @c', 'SELECT 1 -- is it ?\nWHERE a = +? /* @b ? */ AND b = +@c'],
    [
      'json path in a literal',
      "SELECT json_extract(m, '$.a') FROM t WHERE json_extract(m, '$.b[0]') = ?",
      "SELECT json_extract(m, '$.a') FROM t WHERE json_extract(m, '$.b[0]') = +?",
    ],
    [
      'row values and vtab constraints',
      'WHERE (t, v) > (@ct, @cv) AND f MATCH @q AND rowid BETWEEN @lo AND @hi',
      'WHERE (t, v) > (+@ct, +@cv) AND f MATCH +@q AND rowid BETWEEN +@lo AND +@hi',
    ],
    ['unterminated literal', "SELECT 'abc ? ", "SELECT 'abc ? "],
  ])('%s', (_name, sql, expected) => {
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
