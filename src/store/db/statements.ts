// Prepared statements: cached per connection, bound parameters always, planned once.
import { cached } from '../../bounded-cache.ts';
import type { Db, Statement } from './types.ts';

const cache = new WeakMap<Db, Map<string, Statement>>();

/** A prepared statement, prepared once per connection and reused. Parameters are always bound. */
export function stmt(db: Db, sql: string): Statement {
  let m = cache.get(db);
  if (!m) cache.set(db, (m = new Map()));
  let s = m.get(sql);
  if (!s) m.set(sql, (s = db.prepare(plannedOnce(sql))));
  return s;
}

// A write's few index rows (metadata, links, wikilink keys) go in with one statement of as many
// VALUES rows, prepared once for each count up to ROWS_PER_INSERT: a statement a row would be most
// of a page write's statements (docs/performance.md, Figures behind the code). A multi-row
// statement opens a statement savepoint, which costs more inside a savepoint that has written
// much: jobs that write many pages run alone (group-commit.ts).
const ROWS_PER_INSERT = 16;

/** Runs `head` (an `INSERT … ` up to VALUES) for `rows`, each `width` values, ROWS_PER_INSERT rows a statement. */
export function insertRows(db: Db, head: string, width: number, rows: unknown[][]): void {
  const row = `(${new Array(width).fill('?').join(', ')})`;
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const part = rows.length - i > ROWS_PER_INSERT ? rows.slice(i, i + ROWS_PER_INSERT) : i === 0 ? rows : rows.slice(i);
    stmt(db, `${head} VALUES ${new Array(part.length).fill(row).join(', ')}`).run(part.flat());
  }
}

// Statements built from a query's shape (filter combinations) are many: the most recent ones stay prepared.
const dynamicCache = new WeakMap<Db, Map<string, Statement>>();

/** A prepared statement for SQL built at run time, from a bounded cache per connection. */
export function dynamicStmt(db: Db, sql: string): Statement {
  let m = dynamicCache.get(db);
  if (!m) dynamicCache.set(db, (m = new Map()));
  return cached(m, sql, 256, () => db.prepare(plannedOnce(sql)));
}

/**
 * The SQL with every bound parameter written `+param` (outside string literals, quoted names and
 * comments). SQLite uses the value bound to a bare parameter when it plans some statements (a
 * `LIMIT ?`, `column = ?` next to a join, range bounds), and then plans the statement again every
 * time that parameter is bound, which here is every call: a large part of a small query's time
 * (`sqlite3Reprepare` under `sqlite3_step`). The unary plus
 * changes nothing else: a parameter has no affinity either way, and an index still serves
 * `column = +?`. Every statement cache (`stmt` and the dynamic ones) prepares through this.
 */
export function plannedOnce(sql: string): string {
  let out = '';
  let i = 0;
  let prev = ''; // last character outside whitespace, literals and comments
  while (i < sql.length) {
    const c = sql[i];
    const skipTo = (end: string, from: number) => {
      const j = sql.indexOf(end, from);
      return j < 0 ? sql.length : j + end.length;
    };
    let j = i + 1;
    if (c === "'" || c === '"' || c === '`') {
      j = skipTo(c, i + 1);
      while (c !== '`' && sql[j] === c) j = skipTo(c, j + 1); // '' or "" inside the quotes
    } else if (c === '[') j = skipTo(']', i + 1);
    else if (c === '-' && sql[i + 1] === '-') j = skipTo('\n', i + 2);
    else if (c === '/' && sql[i + 1] === '*') j = skipTo('*/', i + 2);
    else if (c === '?' || ((c === '@' || c === ':' || c === '$') && /[A-Za-z_]/.test(sql[i + 1] ?? ''))) {
      while (j < sql.length && /[A-Za-z0-9_]/.test(sql[j])) j++;
      out += prev === '+' ? sql.slice(i, j) : `+${sql.slice(i, j)}`;
      prev = 'p';
      i = j;
      continue;
    }
    out += sql.slice(i, j);
    if (!/\s/.test(c)) prev = c;
    i = j;
  }
  return out;
}
