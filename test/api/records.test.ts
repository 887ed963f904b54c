import { describe, expect, it } from 'vitest';
import { useServer } from '../support/fixture.ts';
import { putTemplate, TASK_FIELDS, traces } from '../support/records.ts';

const TASK = {
  description: 'Work to do',
  defaultPathPrefix: 'tasks/',
  metadataDefaults: { labels: ['a'] },
  metadataSchema: {
    additionalKeys: 'reject',
    fields: [
      ...TASK_FIELDS,
      { key: 'due', type: 'date' },
      { key: 'link', type: 'url' },
      { key: 'labels', type: 'multiselect', options: ['a', 'b'] },
      { key: 'done', type: 'boolean' },
    ],
  },
};

const { srv, bob } = useServer({
  agents: ['bob'],
  spaces: [
    { slug: 'crm', defaultAccess: 'write' },
    { slug: 'shared', defaultAccess: 'read' },
    { slug: 'secret', defaultAccess: 'none' },
  ],
  outbox: {}, // so that writes record events, and a refused one could
  async setup(srv) {
    await putTemplate(srv.admin, 'crm', 'task', TASK);
    await putTemplate(srv.admin, 'crm', 'note', {
      metadataSchema: { additionalKeys: 'allow', fields: [{ key: 'topic', type: 'string', required: true }] },
    });
    await putTemplate(srv.admin, 'shared', 'bug', {
      metadataSchema: { fields: [{ key: 'severity', type: 'select', options: ['low', 'high'], required: true }] },
    });
    await putTemplate(srv.admin, 'secret', 'hidden', { metadataSchema: { fields: [{ key: 'x', type: 'string' }] } });
  },
});

describe('creating a record', () => {
  it('applies field defaults and metadataDefaults, and stamps the type', async () => {
    const r = await bob.put('/pages/crm/tasks/t1', { title: 'T1', template: 'task', metadata: { owner: 'ann' } });
    expect(r.status).toBe(201);
    expect(r.body.metadata).toEqual({ owner: 'ann', stage: 'todo', labels: ['a'], template: 'task' });
    expect(r.body.template).toBe('task');
    const listed = await bob.get('/spaces/crm/pages?prefix=tasks/');
    expect(listed.body.pages).toEqual([expect.objectContaining({ path: 'tasks/t1', template: 'task' })]);
  });

  it('lets given metadata win over defaults', async () => {
    const r = await bob.put('/pages/crm/tasks/t2', {
      title: 'T2',
      template: 'task',
      metadata: { owner: 'ann', stage: 'done', labels: ['b'] },
    });
    expect(r.body.metadata).toEqual({ owner: 'ann', stage: 'done', labels: ['b'], template: 'task' });
  });

  it.each([
    ['required', { stage: 'todo' }, 'metadata.owner'],
    ['required (empty string)', { owner: '' }, 'metadata.owner'],
    ['type', { owner: 'a', points: '3' }, 'metadata.points'],
    ['type', { owner: 'a', done: 'yes' }, 'metadata.done'],
    ['option', { owner: 'a', stage: 'blocked' }, 'metadata.stage'],
    ['option', { owner: 'a', labels: ['a', 'z'] }, 'metadata.labels'],
    ['min', { owner: 'a', points: 0 }, 'metadata.points'],
    ['max', { owner: 'a', points: 13.5 }, 'metadata.points'],
    ['undeclared', { owner: 'a', colour: 'red' }, 'metadata.colour'],
    ['format', { owner: 'a', due: '2026-02-30' }, 'metadata.due'],
    ['format', { owner: 'a', link: 'javascript:alert(1)' }, 'metadata.link'],
    ['format', { owner: 'a', link: '/relative/path' }, 'metadata.link'],
  ])('refuses a %s violation (%j) with 400 and writes nothing', async (code, metadata, key) => {
    const path = `tasks/bad-${code}-${key.slice(9)}`.replace(/[^a-z/-]/g, '');
    const r = await bob.put(`/pages/crm/${path}`, { title: 'Bad', template: 'task', metadata });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('validation_failed');
    expect(r.body.issues).toContainEqual({ key, code: code.split(' ')[0], message: expect.any(String) });
    expect(await traces(srv, bob, 'crm', path)).toEqual({ page: 404, version: null, revisions: 404, events: 0 });
  });

  it('accepts values exactly at min and max', async () => {
    expect((await bob.put('/pages/crm/tasks/lo', { title: 'L', template: 'task', metadata: { owner: 'a', points: 1 } })).status).toBe(201);
    expect((await bob.put('/pages/crm/tasks/hi', { title: 'H', template: 'task', metadata: { owner: 'a', points: 13 } })).status).toBe(201);
  });

  it('reports every violation at once', async () => {
    const r = await bob.put('/pages/crm/tasks/many', { title: 'M', template: 'task', metadata: { stage: 'x', points: 99, extra: 1 } });
    expect(r.body.issues.map((i: any) => `${i.key}:${i.code}`)).toEqual([
      'metadata.stage:option',
      'metadata.owner:required',
      'metadata.points:max',
      'metadata.extra:undeclared',
    ]);
  });

  it('allows undeclared keys when additionalKeys is allow, refuses them under reject', async () => {
    const ok = await bob.put('/pages/crm/notes/n1', { title: 'N', template: 'note', metadata: { topic: 'x', anything: 5 } });
    expect(ok.status).toBe(201);
    expect(ok.body.metadata).toEqual({ topic: 'x', anything: 5, template: 'note' });
    const no = await bob.put('/pages/crm/tasks/closed', { title: 'C', template: 'task', metadata: { owner: 'a', anything: 5 } });
    expect(no.status).toBe(400);
  });

  it('refuses an unknown template and a malformed reference', async () => {
    const refused = { unknown: ['nope', 'no-space:task'], format: ['Bad Slug:task', 'a/b'] };
    for (const [code, template] of Object.entries(refused).flatMap(([c, ts]) => ts.map((t) => [c, t]))) {
      const r = await bob.put('/pages/crm/x1', { title: 'X', template, metadata: { owner: 'a' } });
      expect(r.status, template).toBe(400);
      expect(r.body.issues[0]).toMatchObject({ key: 'template', code });
    }
    expect(await traces(srv, bob, 'crm', 'x1')).toMatchObject({ page: 404, events: 0 });
  });

  it('makes a page a record when its metadata carries a record type stamp (as an imported record does)', async () => {
    const bad = await bob.put('/pages/crm/stamped', { title: 'S', metadata: { template: 'task' } });
    expect(bad.status).toBe(400);
    expect(bad.body.issues).toEqual([{ key: 'metadata.owner', code: 'required', message: expect.any(String) }]);
    expect(await traces(srv, bob, 'crm', 'stamped')).toMatchObject({ page: 404, events: 0 });
    const ok = await bob.put('/pages/crm/stamped', { title: 'S', metadata: { template: 'task', owner: 'a' } });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ template: 'task', metadata: { template: 'task', owner: 'a', stage: 'todo' } });
    const cross = await bob.put('/pages/crm/stamped-bug', { title: 'B', metadata: { template: 'shared:bug', severity: 'low' } });
    expect(cross.body).toMatchObject({ template: 'shared:bug', metadata: { template: 'bug' } });
    // A stamp naming no record type the caller can read is ordinary metadata.
    for (const value of ['nope', 'secret:hidden', 'not a ref:x']) {
      const plain = await bob.put(`/pages/crm/plain-${value.length}`, { title: 'P', metadata: { template: value } });
      expect(plain.status, value).toBe(201);
      expect(plain.body).toMatchObject({ template: null, metadata: { template: value } });
    }
  });
});

describe('a record on later writes', () => {
  it('keeps and re-validates its stamp on a PUT without template', async () => {
    await bob.put('/pages/crm/tasks/k', { title: 'K', template: 'task', metadata: { owner: 'ann', points: 3 } });
    const before = await traces(srv, bob, 'crm', 'tasks/k');
    const bad = await bob.put('/pages/crm/tasks/k', { title: 'K', metadata: { owner: 'ann', stage: 'nope' } });
    expect(bad.status).toBe(400);
    expect(bad.body.issues).toEqual([{ key: 'metadata.stage', code: 'option', message: expect.any(String) }]);
    expect(await traces(srv, bob, 'crm', 'tasks/k')).toEqual(before);
    const ok = await bob.put('/pages/crm/tasks/k', { title: 'K', metadata: { owner: 'bea' } });
    expect(ok.status).toBe(200);
    expect(ok.body.metadata).toEqual({ owner: 'bea', stage: 'todo', template: 'task' });
    expect(ok.body.template).toBe('task');
    const content = await bob.put('/pages/crm/tasks/k', { title: 'K2', content: 'body' });
    expect(content.body.metadata).toEqual({ owner: 'bea', stage: 'todo', template: 'task' });
    const wrongStamp = await bob.put('/pages/crm/tasks/k', { title: 'K', metadata: { owner: 'bea', template: 'note' } });
    expect(wrongStamp.body.issues[0]).toMatchObject({ key: 'metadata.template', code: 'format' });
    const sameStamp = await bob.put('/pages/crm/tasks/k', {
      title: 'K2',
      content: 'body',
      metadata: { owner: 'bea', stage: 'todo', template: 'task' },
    });
    expect(sameStamp.status).toBe(200);
    expect(sameStamp.body.version).toBe(content.body.version); // identical: nothing written
  });

  it('validates a metadata patch like a write; the stamp cannot be patched', async () => {
    await bob.put('/pages/crm/tasks/p', { title: 'P', template: 'task', metadata: { owner: 'ann' } });
    const before = await traces(srv, bob, 'crm', 'tasks/p');
    for (const [patch, key, code] of [
      [{ set: { stage: 'later' } }, 'set.stage', 'option'],
      [{ set: { owner: null } }, 'set.owner', 'required'],
      [{ set: { points: 20 } }, 'set.points', 'max'],
      [{ set: { colour: 'red' } }, 'set.colour', 'undeclared'],
      [{ appendUnique: { labels: ['z'] } }, 'appendUnique.labels', 'option'],
      [{ set: { template: 'note' } }, 'template', 'format'],
    ] as const) {
      const r = await bob.patch('/pages/crm/tasks/p/metadata', patch);
      expect(r.status, JSON.stringify(patch)).toBe(400);
      expect(r.body.issues).toContainEqual(expect.objectContaining({ key, code }));
    }
    expect(await traces(srv, bob, 'crm', 'tasks/p')).toEqual(before);
    const ok = await bob.patch('/pages/crm/tasks/p/metadata', { set: { stage: 'doing' }, appendUnique: { labels: ['b'] } });
    expect(ok.status).toBe(200);
    expect(ok.body.metadata).toEqual({ owner: 'ann', stage: 'doing', labels: ['a', 'b'], template: 'task' });
  });

  it('switches type when a write names another type', async () => {
    await bob.put('/pages/crm/tasks/sw', { title: 'S', template: 'task', metadata: { owner: 'a' } });
    const r = await bob.put('/pages/crm/tasks/sw', { title: 'S', template: 'note', metadata: { topic: 't' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ template: 'note', metadata: { topic: 't', template: 'note' } });
  });
});

describe('cross-space templates', () => {
  it('creates a record of a type in another readable space', async () => {
    const r = await bob.put('/pages/crm/bugs/b1', { title: 'B1', template: 'shared:bug', metadata: { severity: 'high' } });
    expect(r.status).toBe(201);
    expect(r.body.metadata).toEqual({ severity: 'high', template: 'bug' });
    expect(r.body.template).toBe('shared:bug');
    // Later writes validate against the other space's type.
    const bad = await bob.put('/pages/crm/bugs/b1', { title: 'B1', metadata: { severity: 'urgent' } });
    expect(bad.status).toBe(400);
    expect(bad.body.issues[0]).toMatchObject({ key: 'metadata.severity', code: 'option' });
    const rows = await bob.get(`/spaces/crm/records/${encodeURIComponent('shared:bug')}`);
    const listed = rows.body.pages.map((p: any) => p.path);
    expect(listed).toContain('bugs/b1');
    expect(listed.every((p: string) => p === 'bugs/b1' || p === 'stamped-bug')).toBe(true);
  });

  it('names its own space the same as a bare name', async () => {
    const r = await bob.put('/pages/crm/tasks/own', { title: 'O', template: 'crm:task', metadata: { owner: 'a' } });
    expect(r.body.template).toBe('task');
  });

  it('refuses a template in a space the caller cannot read, like a missing one', async () => {
    const hidden = await bob.put('/pages/crm/h1', { title: 'H', template: 'secret:hidden', metadata: {} });
    const missing = await bob.put('/pages/crm/h1', { title: 'H', template: 'secret:absent', metadata: {} });
    expect(hidden.status).toBe(400);
    expect(hidden.body.issues).toEqual([{ key: 'template', code: 'unknown', message: expect.any(String) }]);
    expect(missing.body.issues[0].message.replace('absent', 'hidden')).toBe(hidden.body.issues[0].message);
    expect(await traces(srv, bob, 'crm', 'h1')).toMatchObject({ page: 404, events: 0 });
    // The admin can read it, so the same write works for them.
    expect((await srv.admin.put('/pages/crm/h1', { title: 'H', template: 'secret:hidden' })).status).toBe(201);
  });

  it('refuses a template page hidden by its own ACL', async () => {
    await putTemplate(srv.admin, 'crm', 'private', { metadataSchema: { fields: [] } });
    expect((await srv.admin.put('/pages/crm/templates/private/acl', { read: [], write: [] })).status).toBe(200);
    const r = await bob.put('/pages/crm/pv', { title: 'P', template: 'private' });
    expect(r.body.issues[0]).toMatchObject({ key: 'template', code: 'unknown' });
  });

  it('has no template whose name holds a colon: a page path may not hold one (docs/api.md), and such a reference names none', async () => {
    const made = await srv.admin.put('/pages/crm/templates/kind:a', {
      title: 'kind:a',
      content: '',
      frontmatter: { metadataSchema: { fields: [] } },
    });
    expect(made.status).toBe(400);
    expect(made.body.issues[0]).toMatchObject({ key: 'path' });
    const r = await bob.put('/pages/crm/colon', { title: 'C', template: 'crm:kind:a', metadata: { n: 1 } });
    expect(r.status).toBe(400);
    expect(r.body.issues[0]).toMatchObject({ key: 'template' });
  });
});

describe('a record whose type is deleted', () => {
  it('stays writable and keeps its stamp', async () => {
    await putTemplate(srv.admin, 'crm', 'gone', { metadataSchema: { fields: [{ key: 'a', type: 'number' }] } });
    await bob.put('/pages/crm/orphan', { title: 'O', template: 'gone', metadata: { a: 1 } });
    expect((await srv.admin.del('/pages/crm/templates/gone')).status).toBe(204);
    const r = await bob.put('/pages/crm/orphan', { title: 'O', metadata: { a: 'now a string' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ template: 'gone', metadata: { a: 'now a string', template: 'gone' } });
    expect((await bob.put('/pages/crm/orphan2', { title: 'O', template: 'gone' })).status).toBe(400);
  });
});

describe('records through export and import', () => {
  it('stay records of the imported type, and an invalid record is refused with its issues', async () => {
    await srv.admin.post('/spaces', { slug: 'src', name: 'Src' });
    await putTemplate(srv.admin, 'src', 'task', TASK);
    await srv.admin.put('/pages/src/tasks/a', { title: 'A', template: 'task', metadata: { owner: 'ann', points: 3 } });
    const bundle = (await srv.admin.get('/spaces/src/export')).body;
    bundle.pages.push({
      path: 'tasks/broken',
      title: 'Broken',
      content: '',
      frontmatter: {},
      metadata: { template: 'task', owner: 'x', points: 99 },
    });
    const r = await srv.admin.post('/spaces/dst/import', bundle);
    expect(r.status).toBe(200);
    expect(r.body.created).toBe(2);
    expect(r.body.errors).toEqual([expect.objectContaining({ path: 'tasks/broken', code: 'validation_failed' })]);
    const rows = await srv.admin.get('/spaces/dst/records/task');
    expect(rows.body.pages).toEqual([
      expect.objectContaining({ path: 'tasks/a', metadata: { owner: 'ann', points: 3, stage: 'todo', labels: ['a'], template: 'task' } }),
    ]);
    expect((await srv.admin.get('/pages/dst/tasks/a')).body.template).toBe('task');
  });
});
