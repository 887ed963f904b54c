import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAgent, startServer, type Client, type TestServer } from '../support/server.ts';
import { putTemplate, traces } from '../support/records.ts';
import { subscribeOutbox, WEBHOOK_ENV, type OutboxSubscription } from '../support/outbox.ts';

let srv: TestServer;
let bob: Client & { id: string };

let outbox: OutboxSubscription;
beforeAll(async () => {
  srv = await startServer(WEBHOOK_ENV);
  outbox = await subscribeOutbox(srv); // so that writes record events, and a refused one could
  bob = await newAgent(srv, 'bob');
  for (const [slug, defaultAccess] of [
    ['wiki', 'write'],
    ['hr', 'none'],
  ] as const) {
    expect((await srv.admin.post('/spaces', { slug, name: slug.toUpperCase(), defaultAccess })).status).toBe(201);
  }
  await srv.admin.put('/pages/wiki/templates/meeting', {
    title: 'Meeting notes',
    content: '# Agenda\n\n# Decisions\n',
    frontmatter: {
      description: 'Notes of one meeting',
      metadataDefaults: { kind: 'meeting', attendees: [] },
      defaultPathPrefix: 'meetings/',
    },
  });
  await putTemplate(srv.admin, 'wiki', 'task', {
    description: 'A task',
    metadataSchema: { fields: [{ key: 'stage', type: 'select', options: ['todo', 'done'], default: 'todo' }] },
  });
  await putTemplate(srv.admin, 'hr', 'review', { description: 'Performance review' });
  await putTemplate(srv.admin, 'wiki', 'restricted', { description: 'Admins only' });
  await srv.admin.put('/pages/wiki/templates/restricted/acl', { read: [], write: [] });
  // Deeper pages under templates/ are ordinary pages, not templates.
  await srv.admin.put('/pages/wiki/templates/meeting/example', { title: 'Example', frontmatter: { metadataSchema: 'not a schema' } });
});
afterAll(async () => {
  await outbox.close();
  await srv.close();
});

describe('writing a template page', () => {
  it.each([
    [
      'unknown field type',
      {
        fields: [
          { key: 'a', type: 'string' },
          { key: 'b', type: 'number' },
          { key: 'c', type: 'integer' },
        ],
      },
      'frontmatter.metadataSchema.fields[2].type',
      'option',
    ],
    ['select without options', { fields: [{ key: 's', type: 'select' }] }, 'frontmatter.metadataSchema.fields[0].options', 'required'],
    ['min greater than max', { fields: [{ key: 'n', type: 'number', min: 5, max: 1 }] }, 'frontmatter.metadataSchema.fields[0].min', 'min'],
    [
      'duplicate key',
      {
        fields: [
          { key: 'k', type: 'string' },
          { key: 'k', type: 'text' },
        ],
      },
      'frontmatter.metadataSchema.fields[1].key',
      'duplicate',
    ],
    ['bad additionalKeys', { additionalKeys: 'maybe', fields: [] }, 'frontmatter.metadataSchema.additionalKeys', 'option'],
    [
      'default outside the options',
      { fields: [{ key: 's', type: 'select', options: ['a'], default: 'b' }] },
      'frontmatter.metadataSchema.fields[0].default',
      'option',
    ],
    ['schema not an object', 'fields: []', 'frontmatter.metadataSchema', 'type'],
  ])('refuses a malformed schema (%s) with 400 and writes nothing', async (_label, schema, key, code) => {
    const r = await srv.admin.put('/pages/wiki/templates/broken', { title: 'Broken', frontmatter: { metadataSchema: schema } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('validation_failed');
    expect(r.body.issues).toContainEqual({ key, code, message: expect.any(String) });
    expect(await traces(srv, srv.admin, 'wiki', 'templates/broken')).toEqual({ page: 404, version: null, revisions: 404, events: 0 });
  });

  it('refuses metadataDefaults that its own schema would refuse', async () => {
    const r = await srv.admin.put('/pages/wiki/templates/closed', {
      title: 'Closed',
      frontmatter: {
        metadataDefaults: { colour: 'red', n: 'x' },
        metadataSchema: { additionalKeys: 'reject', fields: [{ key: 'n', type: 'number' }] },
      },
    });
    expect(r.status).toBe(400);
    expect(r.body.issues.map((i: any) => `${i.key}:${i.code}`)).toEqual([
      'frontmatter.metadataDefaults.n:type',
      'frontmatter.metadataDefaults.colour:undeclared',
    ]);
  });

  it('refuses breaking an existing record type, keeping the good version', async () => {
    const r = await srv.admin.put('/pages/wiki/templates/task', {
      title: 'task',
      frontmatter: { metadataSchema: { fields: [{ key: 'x', type: 'nope' }] } },
    });
    expect(r.status).toBe(400);
    expect((await srv.admin.get('/pages/wiki/templates/task')).body.version).toBe(1);
  });

  it('accepts a malformed-looking schema on a page deeper than templates/<name>', async () => {
    expect((await srv.admin.get('/pages/wiki/templates/meeting/example')).status).toBe(200);
  });
});

describe('creating a page from a plain template', () => {
  it('pre-fills title and content and applies metadataDefaults', async () => {
    const r = await bob.put('/pages/wiki/meetings/m1', { template: 'meeting' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      title: 'Meeting notes',
      content: '# Agenda\n\n# Decisions\n',
      metadata: { kind: 'meeting', attendees: [] },
      template: null,
    });
  });

  it('keeps what the request gives: title, content and metadata win', async () => {
    const r = await bob.put('/pages/wiki/meetings/m2', {
      template: 'meeting',
      title: 'Retro',
      content: 'x',
      metadata: { kind: 'retro', room: 4 },
    });
    expect(r.body).toMatchObject({ title: 'Retro', content: 'x', metadata: { kind: 'retro', attendees: [], room: 4 } });
    expect(r.body.metadata.template).toBeUndefined();
  });

  it('keeps the current title when the page exists already and the request gives none', async () => {
    const before = await bob.get('/pages/wiki/meetings/m1');
    const r = await bob.put('/pages/wiki/meetings/m1', { template: 'meeting' });
    expect(r.status).toBe(200);
    expect(r.body.title).toBe(before.body.title);
  });

  it('pre-fills from a record type too, and stamps it', async () => {
    const r = await bob.put('/pages/wiki/tasks/t1', { template: 'task' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ title: 'task', metadata: { stage: 'todo', template: 'task' }, template: 'task' });
  });
});

describe('GET /templates', () => {
  it('lists every template the caller can read, across spaces', async () => {
    const admin = await srv.admin.get('/templates');
    expect(admin.status).toBe(200);
    expect(admin.body.map((t: any) => `${t.space}:${t.name}`)).toEqual(['hr:review', 'wiki:meeting', 'wiki:restricted', 'wiki:task']);
    const mine = await bob.get('/templates');
    expect(mine.body.map((t: any) => `${t.space}:${t.name}`)).toEqual(['wiki:meeting', 'wiki:task']);
    expect(mine.body[0]).toEqual({
      space: 'wiki',
      name: 'meeting',
      path: 'templates/meeting',
      title: 'Meeting notes',
      description: 'Notes of one meeting',
      recordType: false,
      metadataDefaults: { kind: 'meeting', attendees: [] },
      defaultPathPrefix: 'meetings/',
    });
    expect(mine.body[1]).toMatchObject({
      name: 'task',
      recordType: true,
      fields: [{ key: 'stage', type: 'select', options: ['todo', 'done'], default: 'todo' }],
    });
  });

  it('filters by space and includes content on request', async () => {
    const r = await bob.get('/templates?space=wiki&includeContent=true');
    expect(r.body.map((t: any) => t.name)).toEqual(['meeting', 'task']);
    expect(r.body[0].content).toBe('# Agenda\n\n# Decisions\n');
    expect((await bob.get('/templates?space=hr')).status).toBe(404);
    expect((await bob.get('/templates?includeContent=maybe')).status).toBe(400);
  });

  it("includes templates of the caller's personal space only for its owner", async () => {
    await bob.put('/pages/~bob/templates/journal', { title: 'Journal', content: 'Dear diary' });
    expect((await bob.get('/templates')).body.map((t: any) => `${t.space}:${t.name}`)).toContain('~bob:journal');
    expect((await srv.admin.get('/templates')).body.map((t: any) => t.space)).not.toContain('~bob');
  });
});
