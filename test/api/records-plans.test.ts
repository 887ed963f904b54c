import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateKey } from '../../src/domain/principals.ts';
import { parseFilters } from '../../src/domain/search/filters.ts';
import { queryRecords, type RecordCursor, type RecordHit } from '../../src/store/records.ts';
import { ADMIN_KEY, startServer, type TestServer } from '../support/server.ts';
import { putTemplate } from '../support/records.ts';
import { rng } from '../../scripts/lib/corpus.ts';

// The records query has two plans (an ordered index walk, and candidates seeded from a selective
// filter then sorted). Both must return the same rows in the same order, page by page, and both
// must agree with a plain model of the filter and order rules.

let srv: TestServer;
type Meta = Record<string, string | number | boolean | string[]>;
const records: Array<{ path: string; meta: Meta }> = [];

beforeAll(async () => {
  srv = await startServer();
  await srv.admin.post('/spaces', { slug: 'plans', name: 'Plans' });
  await putTemplate(srv.admin, 'plans', 'row', { metadataSchema: { additionalKeys: 'allow', fields: [] } });
  const random = rng(3);
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)];
  for (let i = 0; i < 60; i++) {
    const meta: Meta = {};
    const stage = pick(['a', 'b', 'c', null]);
    if (stage) meta.stage = stage;
    const n = pick([0, 1, 2, 3, 5, 8, 'x', 'y', true, null]); // mixed types order by type first
    if (n !== null) meta.n = n;
    const d = pick(['2026-01-01', '2026-01-01T05:00:00+02:00', '2025-06-30', '2027-03-03', null]);
    if (d) meta.d = d;
    meta.tags = [pick(['t1', 't2']), pick(['t3', 't1'])].filter((x, j, all) => all.indexOf(x) === j);
    const path = `r/${String(59 - i).padStart(2, '0')}`; // path order is the reverse of creation order
    const r = await srv.admin.put(`/pages/plans/${path}`, { title: path, template: 'row', metadata: meta });
    expect(r.status).toBe(201);
    records.push({ path, meta });
  }
});
afterAll(() => srv.close());

const T_ORDER = { b: 0, d: 1, n: 2, s: 3 } as const;
function typedOf(v: string | number | boolean): { t: keyof typeof T_ORDER; v: string | number } {
  if (typeof v === 'number') return { t: 'n', v };
  if (typeof v === 'boolean') return { t: 'b', v: v ? 1 : 0 };
  const ms = /^\d{4}-\d{2}-\d{2}/.test(v) ? Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v) : NaN;
  return Number.isNaN(ms) ? { t: 's', v } : { t: 'd', v: ms };
}
const same = (a: { t: string; v: unknown }, b: { t: string; v: unknown }) => a.t === b.t && a.v === b.v;

/** The model: which records match and in which order. */
function expected(filters: Array<{ key: string; op: string; value?: any }>, orderBy: string | null, desc: boolean): string[] {
  const scalar = (m: Meta, k: string) => (m[k] === undefined || Array.isArray(m[k]) ? null : typedOf(m[k] as never));
  const rows = records
    .map((r, id) => ({ ...r, id }))
    .filter(({ meta }) =>
      filters.every((f) => {
        const s = scalar(meta, f.key);
        switch (f.op) {
          case 'eq':
            return s !== null && same(s, typedOf(f.value));
          case 'neq':
            return !(s !== null && same(s, typedOf(f.value)));
          case 'in':
            return s !== null && f.value.some((v: never) => same(s, typedOf(v)));
          case 'gte': {
            const t = typedOf(f.value);
            return s !== null && s.t === t.t && s.v >= t.v;
          }
          case 'contains':
            return Array.isArray(meta[f.key]) && (meta[f.key] as string[]).includes(f.value);
          case 'exists':
            return meta[f.key] !== undefined;
          default:
            throw new Error(f.op);
        }
      }),
    );
  const dir = desc ? -1 : 1;
  rows.sort((x, y) => {
    if (orderBy === null) return dir * (x.id - y.id);
    const a = scalar(x.meta, orderBy),
      b = scalar(y.meta, orderBy);
    if (a === null || b === null) return a === null && b === null ? x.id - y.id : a === null ? 1 : -1;
    if (a.t !== b.t) return dir * (T_ORDER[a.t] - T_ORDER[b.t]);
    if (a.v !== b.v) return dir * (a.v < b.v ? -1 : 1);
    return dir * (x.id - y.id);
  });
  return rows.map((r) => r.path);
}

const spaceId = () => (srv.svc.db.prepare("SELECT id FROM spaces WHERE slug = 'plans'").get() as { id: number }).id;

function page(filters: unknown[], orderBy: string | null, desc: boolean, seedCap: number): string[] {
  const caller = authenticateKey(srv.svc, ADMIN_KEY)!;
  const { conditions, issues } = parseFilters(JSON.stringify(filters));
  expect(issues).toEqual([]);
  const out: string[] = [];
  let after: RecordCursor | null = null;
  for (let guard = 0; guard < 100; guard++) {
    const rows: RecordHit[] = queryRecords(srv.svc.db, caller, {
      spaceId: spaceId(),
      template: 'row',
      stamp: { t: 's', v: 'row' },
      conditions,
      orderBy,
      desc,
      limit: 5,
      after,
      seedCap,
    });
    out.push(...rows.slice(0, 4).map((r) => r.path));
    if (rows.length <= 4) return out;
    const last = rows[3];
    after = last.ot !== undefined && last.ov !== undefined ? { phase: 1, t: last.ot, v: last.ov, id: last.id } : { phase: 2, id: last.id };
  }
  throw new Error('no end');
}

describe('records query plans', () => {
  it.each<[string, unknown[], string | null, boolean]>([
    ['eq, ordered by a mixed-type key', [{ key: 'stage', op: 'eq', value: 'a' }], 'n', false],
    ['in, ordered by dates, desc', [{ key: 'stage', op: 'in', value: ['a', 'b'] }], 'd', true],
    ['eq, creation order', [{ key: 'stage', op: 'eq', value: 'c' }], null, false],
    ['in, creation order desc', [{ key: 'stage', op: 'in', value: ['a', 'c'] }], null, true],
    [
      'eq + gte, ordered desc',
      [
        { key: 'stage', op: 'eq', value: 'b' },
        { key: 'n', op: 'gte', value: 2 },
      ],
      'n',
      true,
    ],
    [
      'eq on a date + contains, ordered by a key most lack',
      [
        { key: 'd', op: 'eq', value: '2026-01-01' },
        { key: 'tags', op: 'contains', value: 't1' },
      ],
      'stage',
      false,
    ],
    [
      'in on numbers, neq, ordered by dates',
      [
        { key: 'n', op: 'in', value: [1, 2, 3, 'x'] },
        { key: 'stage', op: 'neq', value: 'a' },
      ],
      'd',
      false,
    ],
    ['in with a value nobody has', [{ key: 'stage', op: 'in', value: ['zzz'] }], 'n', false],
  ])('%s: both plans page alike and match the model', (_label, filters, orderBy, desc) => {
    const want = expected(filters as never, orderBy, desc);
    expect(page(filters, orderBy, desc, -1)).toEqual(want); // ordered walks only
    expect(page(filters, orderBy, desc, 1_000_000)).toEqual(want); // seeded whenever an eq/in filter exists
  });
});
