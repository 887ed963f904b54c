import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { openSnapshotCount } from '../../src/store/db/connection.ts';
import { newAgent, startServer, type Client, type TestServer } from '../support/server.ts';
import { subscribeOutbox, WEBHOOK_ENV } from '../support/outbox.ts';
import { useServer } from '../support/fixture.ts';

let srv: TestServer;
let bob: Client & { id: string };

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SOURCE_PAGES = [
  {
    path: 'home',
    title: 'Home',
    content: '# Home\n\nSee [guide](./guide/start).',
    frontmatter: { pinned: true, tags: ['a', 'b'] },
    metadata: { owner: 'ops' },
  },
  {
    path: 'guide/start',
    title: 'Start "here" ✓',
    content: 'Ünïcode ✓ 😀 "quotes" \\ back\nslash\t\u0000\u0001\u2028 </script>',
    frontmatter: {},
    metadata: { stage: 'draft', points: 3, due: '2026-05-01', done: false, tags: ['x', 'y'] },
  },
  {
    path: 'templates/note',
    title: 'Note',
    content: '## Notes',
    frontmatter: { description: 'A note', metadataDefaults: { kind: 'note' } },
    metadata: {},
  },
];

beforeAll(async () => {
  srv = await startServer(WEBHOOK_ENV);
  bob = await newAgent(srv, 'bob');
  expect((await srv.admin.post('/spaces', { slug: 'src', name: 'Source space', description: 'Where it starts' })).status).toBe(201);
  for (const p of SOURCE_PAGES) {
    const { path, ...body } = p;
    expect((await srv.admin.put(`/pages/src/${path}`, body)).status).toBe(201);
  }
});
afterAll(() => srv.close());

const strip = (pages: any[]) =>
  pages.map(({ path, title, content, frontmatter, metadata }) => ({ path, title, content, frontmatter, metadata }));
const sortByPath = <T extends { path: string }>(xs: T[]) => [...xs].sort((a, b) => (a.path < b.path ? -1 : 1));
const bundleOf = (pages: any[], extra: Record<string, unknown> = {}) => ({
  format: 'service-space-export',
  formatVersion: 1,
  exportedAt: new Date().toISOString(),
  space: { slug: 'x', name: 'X space', description: 'from a bundle' },
  pages,
  ...extra,
});
const countPages = async (slug: string) => (await srv.admin.get(`/spaces/${slug}/pages?limit=200`)).body.pages?.length ?? 0;

describe('GET /spaces/:slug/export', () => {
  it('answers the bundle exactly as specified', async () => {
    const r = await srv.admin.get('/spaces/src/export');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    const b = r.body;
    expect(Object.keys(b)).toEqual(['format', 'formatVersion', 'exportedAt', 'space', 'pages']);
    expect(b.format).toBe('service-space-export');
    expect(b.formatVersion).toBe(1);
    expect(b.exportedAt).toMatch(ISO);
    expect(b.space).toEqual({ slug: 'src', name: 'Source space', description: 'Where it starts' });
    expect(b.pages.map((p: any) => p.path)).toEqual(['guide/start', 'home', 'templates/note']);
    for (const p of b.pages) {
      expect(Object.keys(p)).toEqual(['path', 'title', 'frontmatter', 'content', 'version', 'updatedAt', 'metadata']);
      expect(p.version).toBe(1);
      expect(p.updatedAt).toMatch(ISO);
    }
    expect(strip(b.pages)).toEqual(
      strip(sortByPath(SOURCE_PAGES)).map((p) => ({ ...p, metadata: Object.fromEntries(Object.entries(p.metadata).sort()) })),
    );
  });

  it('leaves out pages the caller may not read, and hides spaces it may not see', async () => {
    await srv.admin.post('/spaces', { slug: 'mixed', name: 'Mixed' });
    await srv.admin.put('/pages/mixed/open', { title: 'Open' });
    await srv.admin.put('/pages/mixed/secret', { title: 'Secret', content: 'classified' });
    expect((await srv.admin.put('/pages/mixed/secret/acl', { read: [], write: [] })).status).toBe(200);
    const asBob = await bob.get('/spaces/mixed/export');
    expect(asBob.status).toBe(200);
    expect(asBob.body.pages.map((p: any) => p.path)).toEqual(['open']);
    expect(asBob.text).not.toContain('classified');
    expect((await srv.admin.get('/spaces/mixed/export')).body.pages.map((p: any) => p.path)).toEqual(['open', 'secret']);

    await srv.admin.post('/spaces', { slug: 'closed', name: 'Closed', defaultAccess: 'none' });
    expect((await bob.get('/spaces/closed/export')).status).toBe(404);
    expect((await bob.get('/spaces/nope/export')).status).toBe(404);
    expect((await bob.get('/spaces/~admin/export')).status).toBe(404);
  });

  it('exports an empty space as a valid bundle and streams a large one in many chunks', async () => {
    await srv.admin.post('/spaces', { slug: 'empty', name: 'Empty' });
    expect((await srv.admin.get('/spaces/empty/export')).body.pages).toEqual([]);
    const pages = Array.from({ length: 1203 }, (_, i) => ({
      path: `p/${String(i).padStart(5, '0')}`,
      title: `P ${i}`,
      content: 'x'.repeat(100),
    }));
    expect((await srv.admin.post('/spaces/big/import', bundleOf(pages))).body).toMatchObject({ created: 1203, errors: [] });
    const b = (await srv.admin.get('/spaces/big/export')).body;
    expect(b.pages.map((p: any) => p.path)).toEqual(pages.map((p) => p.path));
  });

  it('releases its snapshot when the client goes away mid-export', async () => {
    // Larger than what the server's stream and the loopback socket buffers hold.
    const pages = Array.from({ length: 2000 }, (_, i) => ({ path: `p${i}`, title: `P ${i}`, content: 'z'.repeat(10_000) }));
    expect((await srv.admin.post('/spaces/aborted/import', bundleOf(pages))).body.created).toBe(2000);
    const controller = new AbortController();
    const r = await fetch(`${srv.url}/spaces/aborted/export`, {
      headers: { authorization: `Bearer ${srv.admin.key}` },
      signal: controller.signal,
    });
    const reader = r.body!.getReader();
    await reader.read();
    controller.abort();
    await reader.read().catch(() => {});
    for (let i = 0; i < 100 && openSnapshotCount() > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(openSnapshotCount()).toBe(0);
    // Nothing pins the WAL any more: a checkpoint completes.
    await srv.admin.put('/pages/aborted/after-abort', { title: 'After' });
    expect((srv.svc.db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>)[0].busy).toBe(0);
  });

  it('exports pages of very different sizes intact (the batch size follows the page size)', async () => {
    const sizes = [10, 300_000, 5, 150_000, 1, 1, 400_000, 20];
    const pages = sizes.map((n, i) => ({ path: `s/${i}`, title: `S ${i}`, content: `é${'ü'.repeat(n)}` }));
    expect((await srv.admin.post('/spaces/sizes/import', bundleOf(pages))).body).toMatchObject({ created: sizes.length, errors: [] });
    const b = (await srv.admin.get('/spaces/sizes/export')).body;
    expect(b.pages.map((p: any) => p.content)).toEqual(pages.map((p) => p.content));
  });
});

describe('POST /spaces/:slug/import', () => {
  it('round-trips into a different slug, creating the space with the bundle name', async () => {
    const exported = (await srv.admin.get('/spaces/src/export')).body;
    const r = await srv.admin.post('/spaces/copy/import', exported);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ created: 3, updated: 0, skipped: 0, errors: [] });
    const space = (await srv.admin.get('/spaces/copy')).body;
    expect(space).toMatchObject({ slug: 'copy', name: 'Source space', description: 'Where it starts' });
    const again = (await srv.admin.get('/spaces/copy/export')).body;
    expect(strip(again.pages)).toEqual(strip(exported.pages));
    expect(again.space.slug).toBe('copy');
  });

  it('skip leaves existing pages alone; overwrite adds revisions and counts identical pages as skipped', async () => {
    const exported = (await srv.admin.get('/spaces/src/export')).body;
    expect((await srv.admin.post('/spaces/modes/import', exported)).body).toMatchObject({ created: 3 });
    expect((await srv.admin.post('/spaces/modes/import?mode=skip', exported)).body).toEqual({
      created: 0,
      updated: 0,
      skipped: 3,
      errors: [],
    });

    const changed = structuredClone(exported);
    changed.pages[1].content = 'new home';
    changed.pages[1].metadata = { owner: 'dev' };
    changed.pages.push({ path: 'extra', title: 'Extra', content: '', frontmatter: {}, metadata: {} });
    expect((await srv.admin.post('/spaces/modes/import', changed)).body).toEqual({ created: 1, updated: 0, skipped: 3, errors: [] });
    expect((await srv.admin.get('/pages/modes/home')).body.content).toBe(exported.pages[1].content);

    const over = await srv.admin.post('/spaces/modes/import?mode=overwrite', changed);
    expect(over.body).toEqual({ created: 0, updated: 1, skipped: 3, errors: [] });
    const home = (await srv.admin.get('/pages/modes/home')).body;
    expect(home).toMatchObject({ content: 'new home', metadata: { owner: 'dev' }, version: 2 });
    const revs = (await srv.admin.get('/pages/modes/home/revisions')).body.revisions;
    expect(revs.map((r: any) => r.version)).toEqual([2, 1]);
    expect((await srv.admin.get('/pages/modes/home/revisions/1')).body.content).toBe(exported.pages[1].content);
    expect((await srv.admin.post('/spaces/modes/import?mode=overwrite', changed)).body).toEqual({
      created: 0,
      updated: 0,
      skipped: 4,
      errors: [],
    });
    expect((await srv.admin.get('/pages/modes/home')).body.version).toBe(2);
  });

  it('lists per-page problems and imports the rest', async () => {
    await srv.admin.post('/spaces', { slug: 'guarded', name: 'Guarded' });
    await srv.admin.put('/pages/guarded/locked', { title: 'Locked', content: 'v1' });
    expect((await srv.admin.put('/pages/guarded/locked/acl', { read: [bob.id], write: [] })).status).toBe(200);
    const bundle = bundleOf([
      { path: 'ok-1', title: 'One', content: 'fine' },
      { path: 'a//b', title: 'Bad path' },
      { path: 'x/acl', title: 'Reserved' },
      { path: 'no-title' },
      { path: 'bad-meta', title: 'M', metadata: { nested: { no: 1 } } },
      'not a page',
      { path: 'ok-1', title: 'Duplicate' },
      { path: 'locked', title: 'Locked', content: 'changed by bob' },
      { path: 'ok-2', title: 'Two' },
    ]);
    const r = await bob.post('/spaces/guarded/import?mode=overwrite', bundle);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ created: 2, updated: 0, skipped: 0 });
    const byPath = Object.fromEntries(r.body.errors.map((e: any) => [e.path, e]));
    expect(Object.keys(byPath).sort()).toEqual(['a//b', 'bad-meta', 'locked', 'no-title', 'ok-1', 'pages[5]', 'x/acl'].sort());
    for (const e of r.body.errors) expect(typeof e.message).toBe('string');
    expect(byPath['a//b'].code).toBe('validation_failed');
    expect(byPath['a//b'].issues[0]).toMatchObject({ key: 'path', code: 'format' });
    expect(byPath['x/acl'].issues[0]).toMatchObject({ key: 'path', code: 'reserved' });
    expect(byPath['no-title'].issues[0]).toMatchObject({ key: 'title', code: 'required' });
    expect(byPath['bad-meta'].issues[0]).toMatchObject({ key: 'metadata.nested', code: 'type' });
    expect(byPath['ok-1'].code).toBe('duplicate_path');
    expect(byPath.locked.code).toBe('forbidden');
    expect((await srv.admin.get('/pages/guarded/locked')).body).toMatchObject({ content: 'v1', version: 1 });
    expect((await srv.admin.get('/pages/guarded/ok-1')).body.title).toBe('One');
    expect((await srv.admin.get('/pages/guarded/ok-2')).status).toBe(200);
  });

  it('lists a record that violates its type (imported with the type) and imports the rest', async () => {
    const schema = {
      metadataSchema: {
        additionalKeys: 'reject',
        fields: [
          { key: 'stage', type: 'select', options: ['todo', 'done'], required: true },
          { key: 'points', type: 'number', min: 0, max: 13 },
        ],
      },
    };
    const bundle = bundleOf([
      { path: 'tasks/good', title: 'Good', metadata: { template: 'task', stage: 'todo', points: 3 } },
      { path: 'tasks/bad-option', title: 'Bad', metadata: { template: 'task', stage: 'someday' } },
      { path: 'tasks/too-big', title: 'Big', metadata: { template: 'task', stage: 'done', points: 99 } },
      { path: 'tasks/undeclared', title: 'Extra', metadata: { template: 'task', stage: 'done', colour: 'red' } },
      { path: 'templates/task', title: 'Task', frontmatter: schema },
    ]);
    const r = await srv.admin.post('/spaces/typed-import/import', bundle);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ created: 2, updated: 0, skipped: 0 });
    const byPath = Object.fromEntries(r.body.errors.map((e: any) => [e.path, e]));
    expect(Object.keys(byPath).sort()).toEqual(['tasks/bad-option', 'tasks/too-big', 'tasks/undeclared']);
    expect(byPath['tasks/bad-option'].issues).toContainEqual(expect.objectContaining({ key: 'metadata.stage', code: 'option' }));
    expect(byPath['tasks/too-big'].issues).toContainEqual(expect.objectContaining({ key: 'metadata.points', code: 'max' }));
    expect(byPath['tasks/undeclared'].issues).toContainEqual(expect.objectContaining({ key: 'metadata.colour', code: 'undeclared' }));
    expect((await srv.admin.get('/pages/typed-import/tasks/good')).body).toMatchObject({
      template: 'task',
      metadata: { template: 'task', stage: 'todo', points: 3 },
    });
    expect((await srv.admin.get('/pages/typed-import/tasks/bad-option')).status).toBe(404);
  });

  it('records the importer as revision author and writes page events in the outbox', async () => {
    const outbox = await subscribeOutbox(srv); // events are recorded while a subscription can receive them
    onTestFinished(() => outbox.close());
    const r = await bob.post(
      '/spaces/bobs/import',
      bundleOf([
        { path: 'templates/t', title: 'T' },
        { path: 'a', title: 'A' },
      ]),
    );
    expect(r.body).toMatchObject({ created: 2 });
    const rev = (await bob.get('/pages/bobs/a/revisions')).body.revisions[0];
    expect(rev.author).toMatchObject({ id: bob.id, name: 'bob', kind: 'agent' });
    const events = srv.svc.db
      .prepare('SELECT event, payload FROM events WHERE payload LIKE \'%"space":"bobs"%\' ORDER BY id')
      .all() as any[];
    expect(events.map((e) => [e.event, JSON.parse(e.payload).page.path, JSON.parse(e.payload).actor.id])).toEqual([
      ['page.created', 'templates/t', bob.id],
      ['page.created', 'a', bob.id],
    ]);
    const over = await bob.post('/spaces/bobs/import?mode=overwrite', bundleOf([{ path: 'a', title: 'A2' }]));
    expect(over.body.updated).toBe(1);
    const last = srv.svc.db.prepare('SELECT event FROM events ORDER BY id DESC LIMIT 1').get() as any;
    expect(last.event).toBe('page.updated');
  });

  it('lets two concurrent imports into the same new slug both finish, together creating every page once', async () => {
    const pages = Array.from({ length: 1500 }, (_, i) => ({ path: `c/${i}`, title: `C ${i}` }));
    const [a, b] = await Promise.all([
      srv.admin.post('/spaces/racing/import', bundleOf(pages)),
      bob.post('/spaces/racing/import', bundleOf(pages)),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.created + b.body.created).toBe(1500);
    expect(a.body.created + a.body.skipped).toBe(1500);
    expect(b.body.created + b.body.skipped).toBe(1500);
    const exported = (await srv.admin.get('/spaces/racing/export')).body;
    expect(exported.pages.length).toBe(1500);
    expect(exported.pages.every((p: any) => p.version === 1)).toBe(true);
  });

  it('imports templates before other pages, whatever the bundle order', async () => {
    const r = await srv.admin.post(
      '/spaces/ordered/import',
      bundleOf([
        { path: 'tasks/one', title: 'One', metadata: { template: 'task' } },
        { path: 'templates/task', title: 'Task', frontmatter: { description: 'A task' } },
        { path: 'templates/deeper/not-a-template', title: 'Deep' },
      ]),
    );
    expect(r.body.created).toBe(3);
    const order = srv.svc.db
      .prepare(`SELECT p.path FROM pages p JOIN spaces s ON s.id = p.space_id WHERE s.slug = 'ordered' ORDER BY p.id`)
      .all() as any[];
    expect(order.map((o) => o.path)).toEqual(['templates/task', 'tasks/one', 'templates/deeper/not-a-template']);
  });

  it("imports into the caller's personal space and refuses hidden or read-only spaces", async () => {
    expect((await bob.post('/spaces/~bob/import', bundleOf([{ path: 'mine', title: 'Mine' }]))).body.created).toBe(1);
    expect((await bob.post('/spaces/~admin/import', bundleOf([{ path: 'x', title: 'X' }]))).status).toBe(404);
    expect((await bob.post('/spaces/closed/import', bundleOf([{ path: 'x', title: 'X' }]))).status).toBe(404);
    await srv.admin.post('/spaces', { slug: 'readonly', name: 'RO', defaultAccess: 'read' });
    const ro = await bob.post('/spaces/readonly/import', bundleOf([{ path: 'x', title: 'X' }]));
    expect(ro.body).toMatchObject({ created: 0, errors: [{ path: 'x', code: 'forbidden' }] });
    expect((await bob.post('/spaces/Bad_Slug/import', bundleOf([]))).status).toBe(400);
  });

  it.each([
    ['invalid JSON', '{"format": "service-space-export", ', 'invalid_json', undefined],
    ['not an object', '[1, 2]', 'validation_failed', 'body'],
    ['another format', JSON.stringify({ ...bundleOf([{ path: 'a', title: 'A' }]), format: 'other' }), 'validation_failed', 'format'],
    ['no format', JSON.stringify({ formatVersion: 1, space: {}, pages: [] }), 'validation_failed', 'format'],
    [
      'formatVersion 3',
      JSON.stringify({ ...bundleOf([{ path: 'a', title: 'A' }]), formatVersion: 3 }),
      'validation_failed',
      'formatVersion',
    ],
    ['pages not a list', JSON.stringify({ ...bundleOf([]), pages: { a: 1 } }), 'validation_failed', 'pages'],
    ['space not an object', JSON.stringify({ ...bundleOf([]), space: 'x' }), 'validation_failed', 'space'],
  ])('refuses %s with 400 and writes nothing', async (_name, body, code, key) => {
    const r = await srv.admin.req('POST', '/spaces/never/import', body, { 'content-type': 'application/json' });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(code);
    if (key) expect(r.body.issues[0].key).toBe(key);
    expect((await srv.admin.get('/spaces/never')).status).toBe(404);
  });

  it('refuses an unknown mode and a non-JSON body before reading the bundle', async () => {
    const r = await srv.admin.post('/spaces/never/import?mode=merge', bundleOf([{ path: 'a', title: 'A' }]));
    expect(r.status).toBe(400);
    expect(r.body.issues[0]).toMatchObject({ key: 'mode', code: 'option' });
    const t = await srv.admin.req('POST', '/spaces/never/import', 'hello', { 'content-type': 'text/plain' });
    expect(t.status).toBe(415);
    expect((await srv.admin.get('/spaces/never')).status).toBe(404);
  });
});

describe('import size cap', () => {
  // A server of its own with the cap, over the port (its chunked upload is a matter of the socket).
  const { srv: small } = useServer({ env: { SERVICE_MAX_IMPORT_BYTES: '4096' }, transport: 'port' });

  it('answers 413 past SERVICE_MAX_IMPORT_BYTES and writes nothing', async () => {
    const big = bundleOf([{ path: 'a', title: 'A', content: 'x'.repeat(5000) }]);
    const r = await small.admin.post('/spaces/capped/import', big);
    expect(r.status).toBe(413);
    expect(r.body.code).toBe('payload_too_large');
    expect((await small.admin.get('/spaces/capped')).status).toBe(404);
    // Counted while reading: a chunked body without Content-Length is cut off too.
    const text = JSON.stringify(big);
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(text));
        c.close();
      },
    });
    const chunked = await fetch(`${small.url}/spaces/capped/import`, {
      method: 'POST',
      body: stream,
      duplex: 'half',
      headers: { authorization: `Bearer ${small.admin.key}`, 'content-type': 'application/json' },
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect((await small.admin.get('/spaces/capped')).status).toBe(404);
    // The import cap, not the general body cap, applies: a bundle under it imports.
    expect((await small.admin.post('/spaces/capped/import', bundleOf([{ path: 'a', title: 'A' }]))).body.created).toBe(1);
  });
});
