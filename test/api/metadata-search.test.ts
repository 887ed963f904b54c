import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { planner } from '../../src/domain/search/metadata-query.ts';
import { newAgent, startServer, type Client, type TestServer } from '../support/server.ts';

let srv: TestServer;
let bob: Client & { id: string };

// p0…p11 in space `meta`; p12 in space `meta2`. Keys are missing on some pages on purpose.
const PAGES: Array<Record<string, unknown>> = [
  { n: 9, stage: 'todo', code: '007', due: '2024-03-01', tags: ['a', 'b'], flag: true },
  { n: 10, stage: 'doing', code: '7', due: '2024-03-01T00:00:00Z', tags: ['b'] },
  { n: 100, stage: 'done', code: 7, due: '2024-02-29T23:00:00-02:00', tags: [] },
  { n: 2.5, stage: 'todo', due: '2023-12-31', flag: false },
  { n: -1, stage: 'blocked', tags: ['c', 'a'] },
  { stage: 'todo', due: '2025-01-01T12:30:00.000+01:00' },
  { n: 10, stage: 'review', title: 'x' },
  { n: 10 },
  { n: 'ten', stage: 'todo' },
  {},
  { n: 50, stage: 'doing', tags: ['a'] },
  { n: 0, stage: 'todo', due: '2024-03-02' },
];

beforeAll(async () => {
  srv = await startServer();
  bob = await newAgent(srv, 'bob');
  await srv.admin.post('/spaces', { slug: 'meta', name: 'Meta' });
  await srv.admin.post('/spaces', { slug: 'meta2', name: 'Meta 2' });
  for (const [i, metadata] of PAGES.entries()) {
    expect((await srv.admin.put(`/pages/meta/p${i}`, { title: `P${i}`, metadata })).status).toBe(201);
  }
  await srv.admin.put('/pages/meta2/p12', { title: 'P12', metadata: { n: 10, stage: 'todo' } });
});
afterAll(() => srv.close());
afterEach(() => {
  planner.threshold = null;
  expect(srv.errors).toEqual([]);
});

type Q = { filters?: unknown; orderBy?: string; order?: string; space?: string; limit?: number };
const query = (c: Client, q: Q, cursor?: string) => {
  const p = new URLSearchParams();
  if (q.filters !== undefined) p.set('filters', typeof q.filters === 'string' ? q.filters : JSON.stringify(q.filters));
  if (q.orderBy) p.set('orderBy', q.orderBy);
  if (q.order) p.set('order', q.order);
  if (q.space) p.set('space', q.space);
  if (q.limit) p.set('limit', String(q.limit));
  if (cursor) p.set('cursor', cursor);
  return c.get(`/search/metadata?${p}`);
};

/** Paths of every page of the result, following cursors. */
async function all(c: Client, q: Q): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const r = await query(c, q, cursor);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    out.push(...r.body.pages.map((p: any) => (p.space === 'meta' ? p.path : `${p.space}/${p.path}`)));
    if (!r.body.nextCursor) return out;
    cursor = r.body.nextCursor;
  }
  throw new Error('no end');
}

const f = (key: string, op: string, value?: unknown) => (value === undefined ? { key, op } : { key, op, value });

// The same expectations hold whichever walk the planner picks: a driver filter, the order
// key's index, or page ids.
describe.each([
  ['computed plan', null],
  ['always driven', 1e9],
  ['never driven', 0],
])('GET /search/metadata (%s)', (_name, threshold) => {
  const run = (q: Q) => {
    planner.threshold = threshold as number | null;
    return all(srv.admin, { space: 'meta', ...q });
  };
  const sorted = async (q: Q) => (await run(q)).sort();

  it.each([
    ['eq number', [f('n', 'eq', 10)], ['p1', 'p6', 'p7']],
    ['eq keeps strings as written ("007" is not "7" nor 7)', [f('code', 'eq', '007')], ['p0']],
    ['eq string 7', [f('code', 'eq', '7')], ['p1']],
    ['eq number 7', [f('code', 'eq', 7)], ['p2']],
    ['eq boolean', [f('flag', 'eq', false)], ['p3']],
    ['eq date whatever its form', [f('due', 'eq', '2024-03-01T00:00:00.000Z')], ['p0', 'p1']],
    ['neq includes pages without the key', [f('stage', 'neq', 'todo')], ['p1', 'p10', 'p2', 'p4', 'p6', 'p7', 'p9']],
    ['gt compares numbers numerically', [f('n', 'gt', 9)], ['p1', 'p10', 'p2', 'p6', 'p7']],
    ['gte/lt range', [f('n', 'gte', 0), f('n', 'lt', 10)], ['p0', 'p11', 'p3']],
    ['lte negative', [f('n', 'lte', -1)], ['p4']],
    ['dates compare chronologically', [f('due', 'gt', '2024-03-01')], ['p11', 'p2', 'p5']],
    ['date range', [f('due', 'gte', '2024-01-01'), f('due', 'lt', '2024-03-02')], ['p0', 'p1', 'p2']],
    ['strings compare as text', [f('stage', 'lt', 'c')], ['p4']],
    ['contains', [f('tags', 'contains', 'a')], ['p0', 'p10', 'p4']],
    ['contains is list membership only', [f('stage', 'contains', 'todo')], []],
    ['in', [f('stage', 'in', ['doing', 'done', 'nope'])], ['p1', 'p10', 'p2']],
    ['in with mixed types', [f('code', 'in', ['007', 7])], ['p0', 'p2']],
    ['exists', [f('flag', 'exists')], ['p0', 'p3']],
    ['missing', [f('stage', 'missing')], ['p7', 'p9']],
    ['an empty list counts as missing', [f('tags', 'missing'), f('due', 'exists')], ['p11', 'p2', 'p3', 'p5']],
    ['AND of several', [f('stage', 'eq', 'todo'), f('n', 'exists'), f('n', 'lt', 5)], ['p11', 'p3']],
    ['no filters: every page', [], PAGES.map((_, i) => `p${i}`)],
  ])('%s', async (_label, filters, expected) => {
    expect(await sorted({ filters })).toEqual([...expected].sort());
  });

  it('orders by a key: numbers numerically, other types after, missing values last, ties by page id', async () => {
    expect(await run({ orderBy: 'n' })).toEqual(['p4', 'p11', 'p3', 'p0', 'p1', 'p6', 'p7', 'p10', 'p2', 'p8', 'p5', 'p9']);
    expect(await run({ orderBy: 'n', order: 'desc' })).toEqual(['p8', 'p2', 'p10', 'p7', 'p6', 'p1', 'p0', 'p3', 'p11', 'p4', 'p9', 'p5']);
    expect(await run({ orderBy: 'due', filters: [f('stage', 'eq', 'todo')] })).toEqual(['p3', 'p0', 'p11', 'p5', 'p8']);
    // A list orders by its first item; an empty list has no value.
    expect(await run({ orderBy: 'tags' })).toEqual(['p0', 'p10', 'p1', 'p4', 'p2', 'p3', 'p5', 'p6', 'p7', 'p8', 'p9', 'p11']);
  });

  it('pages through the same order with any limit', async () => {
    for (const q of [
      { orderBy: 'n' },
      { orderBy: 'n', order: 'desc' },
      { orderBy: 'due', filters: [f('n', 'exists')] },
      {},
      { order: 'desc' },
    ]) {
      const whole = await run(q);
      for (const limit of [1, 2, 5]) expect(await run({ ...q, limit })).toEqual(whole);
    }
  });
});

describe('GET /search/metadata', () => {
  it('answers the page shape, across spaces unless `space` narrows it', async () => {
    const r = await query(srv.admin, { filters: [f('n', 'eq', 10), f('stage', 'eq', 'todo')] });
    expect(r.status).toBe(200);
    expect(r.body.pages).toHaveLength(1);
    expect(r.body.pages[0]).toMatchObject({ space: 'meta2', path: 'p12', title: 'P12', version: 1, metadata: { n: 10, stage: 'todo' } });
    expect(r.body.pages[0].updatedAt).toMatch(/Z$/);
    expect((await all(srv.admin, { filters: [f('n', 'eq', 10)] })).sort()).toEqual(['meta2/p12', 'p1', 'p6', 'p7']);
    expect((await query(srv.admin, { space: 'nope' })).status).toBe(404);
  });

  it('only ever returns, counts and pages over pages the caller may read', async () => {
    await srv.admin.post('/spaces', { slug: 'acl', name: 'ACL' });
    for (let i = 0; i < 10; i++) {
      await srv.admin.put(`/pages/acl/q${i}`, { title: `Q${i}`, metadata: { rank: i, kind: 'q' } });
      if (i % 3 === 0) await srv.admin.put(`/pages/acl/q${i}/acl`, { read: [], write: [] });
    }
    const readable = ['acl/q1', 'acl/q2', 'acl/q4', 'acl/q5', 'acl/q7', 'acl/q8'];
    for (const threshold of [null, 0, 1e9]) {
      planner.threshold = threshold;
      expect(await all(bob, { space: 'acl', orderBy: 'rank', limit: 2 })).toEqual(readable);
      expect(await all(bob, { filters: [f('kind', 'eq', 'q')], limit: 4 })).toEqual(readable);
      const first = await query(bob, { space: 'acl', limit: 6 });
      expect(first.body.pages).toHaveLength(6);
      expect(first.body.nextCursor).toBeNull();
    }
  });

  it.each([
    ['not JSON', '[{', 'filters', 'format'],
    ['not an array', '{"key":"n"}', 'filters', 'type'],
    ['a filter that is not an object', '[{"key":"n","op":"exists"}, 3]', 'filters[1]', 'type'],
    ['an unknown op', [f('n', 'exists'), f('n', 'like', 'x')], 'filters[1].op', 'option'],
    ['a missing op', [{ key: 'n', value: 1 }], 'filters[0].op', 'required'],
    ['a bad key', [f('bad key', 'eq', 1)], 'filters[0].key', 'format'],
    ['a missing key', [{ op: 'eq', value: 1 }], 'filters[0].key', 'required'],
    ['a missing value', [f('n', 'eq')], 'filters[0].value', 'required'],
    ['an object value', [f('n', 'eq', { a: 1 })], 'filters[0].value', 'type'],
    ['null for eq', [f('n', 'eq', null)], 'filters[0].value', 'type'],
    ['a boolean for gt', [f('n', 'gt', true)], 'filters[0].value', 'type'],
    ['a list for contains', [f('n', 'contains', ['a'])], 'filters[0].value', 'type'],
    ['a scalar for in', [f('n', 'in', 'a')], 'filters[0].value', 'type'],
    ['an empty list for in', [f('n', 'in', [])], 'filters[0].value', 'type'],
    ['nested lists for in', [f('n', 'in', [['a']])], 'filters[0].value', 'type'],
    [
      'too many values for in',
      [
        f(
          'n',
          'in',
          Array.from({ length: 101 }, (_, i) => i),
        ),
      ],
      'filters[0].value',
      'max',
    ],
    ['a value for exists', [f('n', 'exists', 3)], 'filters[0].value', 'type'],
    ['an unknown field', [{ key: 'n', op: 'exists', vlaue: 1 }], 'filters[0].vlaue', 'undeclared'],
    ['21 filters', Array.from({ length: 21 }, () => f('n', 'exists')), 'filters', 'max'],
  ])('refuses %s with 400 naming the filter', async (_label, filters, key, code) => {
    const r = await query(srv.admin, { filters });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('validation_failed');
    expect(r.body.issues).toContainEqual(expect.objectContaining({ key, code }));
  });

  it('accepts 20 filters, and refuses a bad orderBy, order or cursor', async () => {
    expect((await query(srv.admin, { filters: Array.from({ length: 20 }, () => f('n', 'exists')) })).status).toBe(200);
    expect((await query(srv.admin, { orderBy: 'a b' })).body.issues[0].key).toBe('orderBy');
    expect((await query(srv.admin, { order: 'up' })).body.issues[0].key).toBe('order');
    expect((await query(srv.admin, {}, 'zzz')).body.issues[0].key).toBe('cursor');
    const keyed = Buffer.from(JSON.stringify({ m: 0, t: 'n', v: 1, i: 3 })).toString('base64url');
    expect((await query(srv.admin, {}, keyed)).body.issues[0].key).toBe('cursor');
  });
});

async function keys(c: Client, space?: string) {
  const r = await c.get(`/search/metadata/keys${space ? `?space=${space}` : ''}`);
  expect(r.status).toBe(200);
  return Object.fromEntries(r.body.map((k: any) => [k.key, { types: k.types, pages: k.pages }]));
}

describe('GET /search/metadata/keys', () => {
  it('lists each key with its value types and page count', async () => {
    const k = await keys(srv.admin, 'meta');
    expect(k.n).toEqual({ types: ['number', 'string'], pages: 10 });
    expect(k.code).toEqual({ types: ['number', 'string'], pages: 3 });
    expect(k.due).toEqual({ types: ['date'], pages: 6 });
    expect(k.tags).toEqual({ types: ['list', 'string'], pages: 4 });
    expect(k.flag).toEqual({ types: ['boolean'], pages: 2 });
    expect((await keys(srv.admin)).n.pages).toBe(11 + 0); // meta + meta2
  });

  it('follows writes, deletes and ACL changes, and counts only readable pages', async () => {
    await srv.admin.post('/spaces', { slug: 'kd', name: 'KD' });
    await srv.admin.put('/pages/kd/a', { title: 'A', metadata: { color: 'red', size: 1 } });
    await srv.admin.put('/pages/kd/b', { title: 'B', metadata: { color: ['x'] } });
    expect(await keys(bob, 'kd')).toEqual({ color: { types: ['list', 'string'], pages: 2 }, size: { types: ['number'], pages: 1 } });
    await srv.admin.put('/pages/kd/a/acl', { read: [], write: [] });
    expect(await keys(bob, 'kd')).toEqual({ color: { types: ['list', 'string'], pages: 1 } });
    expect((await keys(srv.admin, 'kd')).size).toEqual({ types: ['number'], pages: 1 });
    await srv.admin.put('/pages/kd/a/acl', { read: [bob.id], write: [] });
    expect((await keys(bob, 'kd')).size).toEqual({ types: ['number'], pages: 1 });
    await srv.admin.del('/pages/kd/a/acl');
    await srv.admin.patch('/pages/kd/b/metadata', { set: { color: 'blue' } });
    expect((await keys(bob, 'kd')).color).toEqual({ types: ['string'], pages: 2 });
    await srv.admin.del('/pages/kd/a');
    expect(await keys(bob, 'kd')).toEqual({ color: { types: ['string'], pages: 1 } });
    await bob.put('/pages/~bob/mine', { title: 'Mine', metadata: { secretkey: 1 } });
    expect((await keys(bob)).secretkey).toEqual({ types: ['number'], pages: 1 });
    expect((await keys(srv.admin)).secretkey).toBeUndefined();
    expect((await srv.admin.get('/search/metadata/keys?space=~bob')).status).toBe(404);
  });
});

describe('key counts under concurrent writes', () => {
  // Writes that arrive together share one transaction (group commit); their key counts are summed
  // and written once before its COMMIT (store/key-stats.ts). A write that fails in the batch must
  // leave no count behind, and the counts must equal a recount from the metadata index.
  it('equal a recount after a burst of creates, updates, patches, deletes and refused writes', async () => {
    await srv.admin.post('/spaces', { slug: 'burst', name: 'Burst' });
    const ops: Array<Promise<{ status: number }>> = [];
    for (let i = 0; i < 40; i++)
      ops.push(srv.admin.put(`/pages/burst/b${i}`, { title: `B${i}`, metadata: { k: i, even: i % 2 === 0, tag: [`t${i % 3}`] } }));
    for (let i = 0; i < 10; i++) ops.push(srv.admin.put(`/pages/burst/bad${i}`, { title: `Bad${i}`, metadata: { k: { nested: true } } })); // 400
    for (let i = 0; i < 10; i++) ops.push(srv.admin.put(`/pages/burst/c${i}`, { title: `C${i}`, metadata: { k: 'x' }, baseVersion: 3 })); // 409
    const first = await Promise.all(ops);
    expect(first.filter((r) => r.status === 201)).toHaveLength(40);
    expect(first.filter((r) => r.status >= 400)).toHaveLength(20);
    const second = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => srv.admin.del(`/pages/burst/b${i}`)),
      ...Array.from({ length: 10 }, (_, i) => srv.admin.patch(`/pages/burst/b${10 + i}/metadata`, { set: { k: null, extra: 'e' } })),
      ...Array.from({ length: 10 }, (_, i) => srv.admin.put(`/pages/burst/b${20 + i}`, { title: `B${20 + i}`, metadata: { even: 'no' } })),
      ...Array.from({ length: 5 }, (_, i) => srv.admin.patch(`/pages/burst/b${30 + i}/metadata`, { set: { k: [{}] } })), // 400
    ]);
    expect(second.filter((r) => r.status >= 400)).toHaveLength(5);
    const counted = await keys(srv.admin, 'burst');
    expect(counted).toEqual({
      k: { types: ['number'], pages: 10 }, // b30…b39 kept theirs; b10…b19 lost it; b20…b29 were replaced without
      even: { types: ['boolean', 'string'], pages: 30 },
      tag: { types: ['list', 'string'], pages: 20 },
      extra: { types: ['string'], pages: 10 },
    });
    expect((await srv.admin.post('/links/rebuild', {})).status).toBe(200);
    expect(await keys(srv.admin, 'burst')).toEqual(counted);
  });
});

describe('GET /search/metadata right after writes', () => {
  // The planner's counts are kept for a second; a plan chosen on a stale count must still
  // return exactly the pages that match now.
  it('finds pages written after the same query counted none, and drops pages that stopped matching', async () => {
    await srv.admin.post('/spaces', { slug: 'fresh', name: 'Fresh' });
    const q = { space: 'fresh', filters: [f('phase', 'eq', 'late'), f('rank', 'gte', 1)], orderBy: 'rank' };
    expect(await all(srv.admin, q)).toEqual([]);
    for (let i = 0; i < 5; i++) await srv.admin.put(`/pages/fresh/f${i}`, { title: `F${i}`, metadata: { phase: 'late', rank: i } });
    expect(await all(srv.admin, q)).toEqual(['fresh/f1', 'fresh/f2', 'fresh/f3', 'fresh/f4']);
    await srv.admin.patch('/pages/fresh/f2/metadata', { set: { phase: 'early' } });
    expect(await all(srv.admin, q)).toEqual(['fresh/f1', 'fresh/f3', 'fresh/f4']);
  });
});
