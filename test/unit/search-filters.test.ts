import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { parseFilters } from '../../src/domain/search/filters.ts';
import { compileDriver, compileFilters } from '../../src/store/meta-filter-sql.ts';
import type { Params } from '../../src/model.ts';

const parse = (filters: unknown) => parseFilters(typeof filters === 'string' ? filters : JSON.stringify(filters));

describe('parseFilters', () => {
  it.each([
    ['eq number', [{ key: 'n', op: 'eq', value: 3 }], [{ op: 'eq', key: 'n', value: { t: 'n', v: 3 } }]],
    ['eq string', [{ key: 's', op: 'eq', value: '007' }], [{ op: 'eq', key: 's', value: { t: 's', v: '007' } }]],
    ['eq boolean', [{ key: 'b', op: 'eq', value: true }], [{ op: 'eq', key: 'b', value: { t: 'b', v: 1 } }]],
    [
      'gt date as epoch ms',
      [{ key: 'd', op: 'gt', value: '2024-03-01' }],
      [{ op: 'gt', key: 'd', value: { t: 'd', v: Date.UTC(2024, 2, 1) } }],
    ],
    [
      'date with offset',
      [{ key: 'd', op: 'lte', value: '2024-03-01T01:00:00+01:00' }],
      [{ op: 'lte', key: 'd', value: { t: 'd', v: Date.UTC(2024, 2, 1) } }],
    ],
    [
      'in, deduplicated',
      [{ key: 'k', op: 'in', value: ['a', 1, 'a', '1'] }],
      [
        {
          op: 'in',
          key: 'k',
          values: [
            { t: 's', v: 'a' },
            { t: 'n', v: 1 },
            { t: 's', v: '1' },
          ],
        },
      ],
    ],
    ['exists without value', [{ key: 'k', op: 'exists' }], [{ op: 'exists', key: 'k' }]],
    ['missing with true', [{ key: 'k', op: 'missing', value: true }], [{ op: 'missing', key: 'k' }]],
    ['none', [], []],
  ])('%s', (_label, input, expected) => {
    expect(parse(input)).toEqual({ conditions: expected, issues: [] });
  });

  it('reads null and blank as no filters', () => {
    expect(parseFilters(null)).toEqual({ conditions: [], issues: [] });
    expect(parseFilters('  ')).toEqual({ conditions: [], issues: [] });
  });

  it.each([
    ['not JSON', '[', 'filters', 'format'],
    ['an object', '{}', 'filters', 'type'],
    ['21 filters', Array.from({ length: 21 }, () => ({ key: 'k', op: 'exists' })), 'filters', 'max'],
    ['a number', [1], 'filters[0]', 'type'],
    [
      'unknown op',
      [
        { key: 'k', op: 'exists' },
        { key: 'k', op: 'LIKE', value: 'x' },
      ],
      'filters[1].op',
      'option',
    ],
    ['bad key', [{ key: 'a b', op: 'exists' }], 'filters[0].key', 'format'],
    ['__proto__ key', [{ key: '__proto__', op: 'exists' }], 'filters[0].key', 'format'],
    ['number key', [{ key: 1, op: 'exists' }], 'filters[0].key', 'type'],
    ['infinite number', '[{"key":"k","op":"eq","value":1e999}]', 'filters[0].value', 'type'],
    ['gt boolean', [{ key: 'k', op: 'gt', value: false }], 'filters[0].value', 'type'],
    ['in of objects', [{ key: 'k', op: 'in', value: [{}] }], 'filters[0].value', 'type'],
    ['exists with 0', [{ key: 'k', op: 'exists', value: 0 }], 'filters[0].value', 'type'],
    ['extra field', [{ key: 'k', op: 'exists', note: 1 }], 'filters[0].note', 'undeclared'],
  ])('refuses %s', (_label, input, key, code) => {
    const r = parse(input);
    expect(r.conditions).toEqual([]);
    expect(r.issues).toContainEqual(expect.objectContaining({ key, code }));
  });

  it('names every bad filter, not only the first', () => {
    const r = parse([
      { key: 'k', op: 'nope' },
      { key: 'k', op: 'eq' },
      { key: 'ok', op: 'exists' },
    ]);
    expect(r.issues.map((i) => i.key)).toEqual(['filters[0].op', 'filters[1].value']);
  });
});

// The compiled SQL runs against a real page_meta: the values travel as parameters, never as SQL.
describe('compileFilters and compileDriver', () => {
  const db = new Database(':memory:');
  db.exec(`CREATE TABLE pages (id INTEGER PRIMARY KEY);
    CREATE TABLE page_meta (page_id INTEGER, key TEXT, pos INTEGER, t TEXT, v, PRIMARY KEY (page_id, key, pos)) WITHOUT ROWID;
    CREATE INDEX page_meta_kv ON page_meta(key, t, v, page_id);
    INSERT INTO pages (id) VALUES (1), (2), (3);
    INSERT INTO page_meta VALUES (1, 'n', -1, 'n', 10), (2, 'n', -1, 'n', 9), (1, 'tags', 0, 's', 'x'), (1, 'tags', 1, 's', 'y'),
      (2, 's', -1, 's', '007'), (3, 's', -1, 's', 'it''s; DROP TABLE pages');`);
  const ids = (filters: unknown) => {
    const params: Params = {};
    const sql = compileFilters(parse(filters).conditions, params);
    return (db.prepare(`SELECT p.id FROM pages p WHERE 1 ${sql} ORDER BY p.id`).all(params) as Array<{ id: number }>).map((r) => r.id);
  };
  const driven = (filter: unknown) => {
    const params: Params = {};
    const sql = compileDriver(parse([filter]).conditions[0], params);
    if (sql === null) return null;
    return (
      db.prepare(`SELECT DISTINCT d.page_id AS id FROM page_meta d WHERE ${sql} ORDER BY 1`).all(params) as Array<{ id: number }>
    ).map((r) => r.id);
  };

  it.each([
    [{ key: 'n', op: 'gt', value: 9 }, [1], [1]],
    [{ key: 'n', op: 'neq', value: 9 }, [1, 3], null],
    [{ key: 'n', op: 'missing' }, [3], null],
    [{ key: 'n', op: 'exists' }, [1, 2], [1, 2]],
    [{ key: 'tags', op: 'contains', value: 'y' }, [1], [1]],
    [{ key: 'tags', op: 'eq', value: 'y' }, [], []],
    [{ key: 's', op: 'in', value: ['007', "it's; DROP TABLE pages"] }, [2, 3], [2, 3]],
    [{ key: 's', op: 'eq', value: 7 }, [], []],
  ])('%j', (filter, expected, expectedDriven) => {
    expect(ids([filter])).toEqual(expected);
    expect(driven(filter)).toEqual(expectedDriven);
  });

  it('ANDs conditions with distinct parameter names', () => {
    expect(
      ids([
        { key: 'n', op: 'gte', value: 9 },
        { key: 'n', op: 'lte', value: 9 },
        { key: 's', op: 'exists' },
      ]),
    ).toEqual([2]);
  });

  it('finds numbers, dates and booleans in an in-list by type', () => {
    expect(ids([{ key: 'n', op: 'in', value: [9, 10, 'x'] }])).toEqual([1, 2]);
    expect(ids([{ key: 'n', op: 'in', value: ['9', '10'] }])).toEqual([]);
  });

  // Issue 18: SQL built per combination of keys, values and in-list lengths made every new query a
  // new statement, and 20 in-lists of 100 values took over a second to prepare.
  it('writes the same SQL whatever the keys, values and in-list lengths: only ops and their number shape it', () => {
    const sqlOf = (filters: unknown) => compileFilters(parse(filters).conditions, {});
    const values = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
    expect(
      sqlOf([
        { key: 'a', op: 'in', value: values(1) },
        { key: 'b', op: 'eq', value: 1 },
      ]),
    ).toBe(
      sqlOf([
        { key: 'zz', op: 'in', value: values(100) },
        { key: 'y', op: 'eq', value: 'text' },
      ]),
    );
    const many = Array.from({ length: 20 }, (_, i) => ({ key: `k${i}`, op: 'in', value: values(100) }));
    const sql = sqlOf(many);
    expect(sql.length).toBeLessThan(10_000);
    const t0 = performance.now();
    db.prepare(`SELECT p.id FROM pages p WHERE 1 ${sql}`);
    expect(performance.now() - t0).toBeLessThan(200);
  });
});
