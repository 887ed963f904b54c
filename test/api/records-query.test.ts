import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAgent, startServer, type Client, type TestServer } from '../support/server.ts';
import { putTemplate } from '../support/records.ts';

let srv: TestServer;
let bob: Client & { id: string };

const STORY = {
  description: 'A user story',
  defaultPathPrefix: 'stories/',
  metadataSchema: {
    additionalKeys: 'allow',
    fields: [
      { key: 'stage', type: 'select', options: ['todo', 'doing', 'review', 'done'], required: true },
      { key: 'points', type: 'number' },
      { key: 'due', type: 'date' },
      { key: 'tags', type: 'list' },
    ],
  },
};
// path, stage, points, due, tags
const ROWS: Array<[string, string, number | null, string, string[]]> = [
  ['s01', 'todo', 5, '2026-03-01', ['ui']],
  ['s02', 'doing', 3, '2026-01-15T10:00:00Z', ['api']],
  ['s03', 'done', 8, '2026-02-01', ['ui', 'api']],
  ['s04', 'todo', 1, '2025-12-31', []],
  ['s05', 'review', 13, '2026-06-01', ['ops']],
  ['s06', 'doing', null, '2026-04-01', ['ui']],
  ['s07', 'todo', 3, '2026-01-01T00:00:00+02:00', ['api']],
  ['s08', 'doing', 2, '2026-05-05', []],
];

beforeAll(async () => {
  srv = await startServer();
  bob = await newAgent(srv, 'bob');
  await srv.admin.post('/spaces', { slug: 'pm', name: 'PM' });
  await putTemplate(srv.admin, 'pm', 'story', STORY);
  await putTemplate(srv.admin, 'pm', 'epic', { metadataSchema: { fields: [{ key: 'stage', type: 'string' }] } });
  for (const [path, stage, points, due, tags] of ROWS) {
    const metadata = { stage, due, tags, ...(points === null ? {} : { points }) };
    expect((await srv.admin.put(`/pages/pm/stories/${path}`, { title: path.toUpperCase(), template: 'story', metadata })).status).toBe(201);
  }
  // Same metadata, other type or no type: never listed as stories.
  await srv.admin.put('/pages/pm/epics/e1', { title: 'E1', template: 'epic', metadata: { stage: 'todo' } });
  await srv.admin.put('/pages/pm/plain', { title: 'Plain', metadata: { stage: 'todo', points: 5 } });
  // A story that bob may not read.
  await srv.admin.put('/pages/pm/stories/s09', { title: 'S09', template: 'story', metadata: { stage: 'todo', points: 4 } });
  await srv.admin.put('/pages/pm/stories/s09/acl', { read: [], write: [] });
});
afterAll(() => srv.close());

const q = (params: Record<string, unknown>, type = 'story', who: Client = bob) => {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) sp.set(k, typeof v === 'string' || typeof v === 'number' ? String(v) : JSON.stringify(v));
  return who.get(`/spaces/pm/records/${type}?${sp}`);
};
const paths = (r: { body: any }) => r.body.pages.map((p: any) => p.path.slice(8));

/** Follows nextCursor to the end, collecting paths. */
async function collect(params: Record<string, unknown>): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 20; i++) {
    const r = await q({ ...params, ...(cursor ? { cursor } : {}) });
    expect(r.status).toBe(200);
    out.push(...paths(r));
    cursor = r.body.nextCursor;
    if (!cursor) return out;
  }
  throw new Error('cursor never ended');
}

describe('GET /spaces/:slug/records/:type', () => {
  it('lists readable records of the type only, by path, as rows', async () => {
    const r = await q({});
    expect(paths(r)).toEqual(['s01', 's02', 's03', 's04', 's05', 's06', 's07', 's08']);
    expect(r.body.pages[0]).toEqual({
      space: 'pm',
      path: 'stories/s01',
      title: 'S01',
      version: 1,
      updatedAt: expect.any(String),
      metadata: { stage: 'todo', points: 5, due: '2026-03-01', tags: ['ui'], template: 'story' },
    });
    expect(r.body.nextCursor).toBeNull();
    expect(paths(await q({}, 'story', srv.admin))).toContain('s09');
  });

  it('lists in creation order without orderBy, newest first with order=desc', async () => {
    await putTemplate(srv.admin, 'pm', 'log', { metadataSchema: { fields: [] } });
    for (const path of ['z-first', 'a-second', 'm-third']) await srv.admin.put(`/pages/pm/log/${path}`, { title: path, template: 'log' });
    const names = (r: { body: any }) => r.body.pages.map((p: any) => p.path.slice(4));
    expect(names(await q({}, 'log'))).toEqual(['z-first', 'a-second', 'm-third']);
    expect(names(await q({ order: 'desc' }, 'log'))).toEqual(['m-third', 'a-second', 'z-first']);
  });

  it('filters with in, eq, neq, comparisons, contains, exists and missing', async () => {
    const cases: Array<[unknown[], string[]]> = [
      [[{ key: 'stage', op: 'in', value: ['todo', 'review'] }], ['s01', 's04', 's05', 's07']],
      [[{ key: 'stage', op: 'eq', value: 'doing' }], ['s02', 's06', 's08']],
      [[{ key: 'stage', op: 'neq', value: 'doing' }], ['s01', 's03', 's04', 's05', 's07']],
      [
        [
          { key: 'points', op: 'gte', value: 3 },
          { key: 'points', op: 'lt', value: 8 },
        ],
        ['s01', 's02', 's07'],
      ],
      [[{ key: 'due', op: 'lt', value: '2026-01-01' }], ['s04', 's07']], // +02:00 is 2025-12-31T22:00Z
      [
        [
          { key: 'due', op: 'gt', value: '2026-01-15T09:59:59Z' },
          { key: 'due', op: 'lte', value: '2026-02-01' },
        ],
        ['s02', 's03'],
      ],
      [[{ key: 'tags', op: 'contains', value: 'api' }], ['s02', 's03', 's07']],
      [[{ key: 'points', op: 'missing' }], ['s06']],
      [
        [
          { key: 'points', op: 'exists' },
          { key: 'stage', op: 'in', value: ['doing'] },
        ],
        ['s02', 's08'],
      ],
      [[{ key: 'stage', op: 'in', value: ['nothing'] }], []],
    ];
    for (const [filters, expected] of cases) expect(paths(await q({ filters })), JSON.stringify(filters)).toEqual(expected);
  });

  it('orders by a metadata key both ways; records without it come last', async () => {
    expect(paths(await q({ orderBy: 'points' }))).toEqual(['s04', 's08', 's02', 's07', 's01', 's03', 's05', 's06']);
    expect(paths(await q({ orderBy: 'points', order: 'desc' }))).toEqual(['s05', 's03', 's01', 's07', 's02', 's08', 's04', 's06']);
    expect(paths(await q({ orderBy: 'due' }))).toEqual(['s04', 's07', 's02', 's03', 's01', 's06', 's08', 's05']);
    expect(paths(await q({ order: 'desc' }))).toEqual(['s08', 's07', 's06', 's05', 's04', 's03', 's02', 's01']);
  });

  it('pages with a cursor in every ordering, across the records lacking the key', async () => {
    expect(await collect({ orderBy: 'points', limit: 3 })).toEqual(['s04', 's08', 's02', 's07', 's01', 's03', 's05', 's06']);
    expect(await collect({ orderBy: 'points', order: 'desc', limit: 2 })).toEqual(['s05', 's03', 's01', 's07', 's02', 's08', 's04', 's06']);
    expect(await collect({ limit: 3 })).toEqual(['s01', 's02', 's03', 's04', 's05', 's06', 's07', 's08']);
    expect(await collect({ order: 'desc', limit: 5 })).toEqual(['s08', 's07', 's06', 's05', 's04', 's03', 's02', 's01']);
    const f = { filters: [{ key: 'stage', op: 'in', value: ['todo', 'doing'] }], orderBy: 'points', limit: 2 };
    expect(await collect(f)).toEqual(['s04', 's08', 's02', 's07', 's01', 's06']);
  });

  it.each([
    [{ filters: 'not json' }, 'filters', 'format'],
    [{ filters: { key: 'a' } }, 'filters', 'type'],
    [{ filters: [{ key: 'stage', op: 'like', value: 'x' }] }, 'filters[0].op', 'option'],
    [{ filters: [{ key: 'stage', op: 'in', value: 'todo' }] }, 'filters[0].value', 'type'],
    [{ filters: [{ key: 'stage', op: 'in', value: [] }] }, 'filters[0].value', 'type'],
    [{ filters: [{ key: 'points', op: 'gt', value: true }] }, 'filters[0].value', 'type'],
    [{ filters: [{ key: 'bad key', op: 'exists' }] }, 'filters[0].key', 'format'],
    [{ filters: Array(21).fill({ key: 'a', op: 'exists' }) }, 'filters', 'max'],
    [{ orderBy: 'no spaces' }, 'orderBy', 'format'],
    [{ order: 'up' }, 'order', 'option'],
    [{ limit: 0 }, 'limit', 'format'],
    [{ cursor: 'garbage' }, 'cursor', 'format'],
  ])('refuses %j with 400 naming %s', async (params, key, code) => {
    const r = await q(params);
    expect(r.status).toBe(400);
    expect(r.body.issues).toContainEqual(expect.objectContaining({ key, code }));
  });

  it('answers 404 for an unknown type, a plain template and a hidden space', async () => {
    await putTemplate(srv.admin, 'pm', 'plain-tmpl', { description: 'no schema' });
    expect((await q({}, 'nope')).status).toBe(404);
    expect((await q({}, 'plain-tmpl')).status).toBe(404);
    expect((await bob.get('/spaces/nowhere/records/story')).status).toBe(404);
  });
});

describe('GET /spaces/:slug/record-types', () => {
  it('lists the record types of the space with their fields', async () => {
    const r = await bob.get('/spaces/pm/record-types');
    expect(r.status).toBe(200);
    expect(r.body.map((t: any) => t.name)).toEqual(['epic', 'log', 'story']); // not plain-tmpl
    expect(r.body[2]).toEqual({
      name: 'story',
      description: 'A user story',
      defaultPathPrefix: 'stories/',
      additionalKeys: 'allow',
      fields: STORY.metadataSchema.fields,
    });
  });
});

describe('GET /spaces/:slug/records/:type/nonconforming', () => {
  it('lists records that an edited type no longer accepts, without rewriting them', async () => {
    await srv.admin.post('/spaces', { slug: 'ops', name: 'Ops' });
    await putTemplate(srv.admin, 'ops', 'incident', { metadataSchema: { fields: [{ key: 'title', type: 'string' }] } });
    await srv.admin.put('/pages/ops/i/1', { title: '1', template: 'incident', metadata: { title: 'disk full' } });
    await srv.admin.put('/pages/ops/i/2', { title: '2', template: 'incident', metadata: {} });
    expect((await srv.admin.get('/spaces/ops/records/incident/nonconforming')).body).toEqual([]);

    await putTemplate(srv.admin, 'ops', 'incident', {
      metadataSchema: {
        fields: [
          { key: 'title', type: 'string' },
          { key: 'severity', type: 'select', options: ['low', 'high'], required: true },
          { key: 'team', type: 'string', required: true, default: 'sre' },
        ],
      },
    });
    await srv.admin.put('/pages/ops/i/3', { title: '3', template: 'incident', metadata: { severity: 'low' } });
    const report = await srv.admin.get('/spaces/ops/records/incident/nonconforming');
    expect(report.status).toBe(200);
    expect(report.body).toEqual([
      { path: 'i/1', issues: [{ key: 'metadata.severity', code: 'required', message: expect.any(String) }] },
      { path: 'i/2', issues: [{ key: 'metadata.severity', code: 'required', message: expect.any(String) }] },
    ]);
    const old = await srv.admin.get('/pages/ops/i/1');
    expect(old.body).toMatchObject({ version: 1, metadata: { title: 'disk full', template: 'incident' } });
    // Fixing a record takes it off the report; its next write brings the defaults.
    const fixed = await srv.admin.patch('/pages/ops/i/1/metadata', { set: { severity: 'high' } });
    expect(fixed.status).toBe(200);
    expect((await srv.admin.get('/spaces/ops/records/incident/nonconforming')).body.map((x: any) => x.path)).toEqual(['i/2']);
    const rewritten = await srv.admin.put('/pages/ops/i/2', { title: '2', metadata: { severity: 'low' } });
    expect(rewritten.body.metadata).toEqual({ severity: 'low', team: 'sre', template: 'incident' });
  });

  it('is 404 for a type the caller cannot read', async () => {
    expect((await bob.get('/spaces/pm/records/nope/nonconforming')).status).toBe(404);
  });
});
