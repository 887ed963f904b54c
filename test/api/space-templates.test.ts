import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createPrincipal } from '../../src/domain/principals.ts';
import { extractLinks } from '../../src/domain/links/extract.ts';
import { parseTemplateFrontmatter, validateRecord } from '../../src/domain/records/schema.ts';
import { insertOrg } from '../../src/store/principals.ts';
import { client, newAgent, startServer, type Client, type TestServer } from '../support/server.ts';

let srv: TestServer;
let member: Client & { id: string };
let outsider: Client; // org admin of another organisation

beforeAll(async () => {
  srv = await startServer();
  member = await newAgent(srv, 'member');
  const orgId = insertOrg(srv.svc.db, 'other', 'Other org', srv.svc.now());
  createPrincipal(srv.svc, { name: 'outsider', kind: 'agent', orgAdmin: true }, orgId);
  outsider = client(srv.url, createKey(srv.svc, 'outsider').key);
});
afterAll(() => srv.close());

const builtinRoot = JSON.parse(fs.readFileSync('templates/space/root.json', 'utf8'));

describe('built-in gallery', () => {
  it('lists at least four built-in templates with their page counts', async () => {
    const r = await member.get('/space-templates');
    expect(r.status).toBe(200);
    const builtin = r.body.filter((t: any) => t.source === 'built-in');
    expect(builtin.length).toBeGreaterThanOrEqual(4);
    expect(builtin.map((t: any) => t.id)).toEqual(builtinRoot.templates.map((t: any) => t.id));
    for (const t of builtin) {
      expect(Object.keys(t)).toEqual(['source', 'id', 'name', 'description', 'pages']);
      expect(t.description.length).toBeGreaterThan(20);
      const file = builtinRoot.templates.find((x: any) => x.id === t.id).bundle;
      expect(t.pages).toBe(JSON.parse(fs.readFileSync(`templates/space/${file}`, 'utf8')).pages.length);
    }
    expect(srv.errors).toEqual([]);
  });

  it('ships at least one template with record types and one with page templates', async () => {
    const kinds = builtinRoot.templates.map((t: any) => {
      const b = JSON.parse(fs.readFileSync(`templates/space/${t.bundle}`, 'utf8'));
      const templates = b.pages.filter((p: any) => /^templates\/[^/]+$/.test(p.path));
      return {
        records: templates.filter((p: any) => p.frontmatter.metadataSchema).length,
        plain: templates.filter((p: any) => !p.frontmatter.metadataSchema).length,
      };
    });
    expect(kinds.filter((k: any) => k.records > 0).length).toBeGreaterThanOrEqual(2);
    expect(kinds.filter((k: any) => k.plain > 0).length).toBeGreaterThanOrEqual(2);
  });

  it.each<[string]>(builtinRoot.templates.map((t: any) => [t.id]))(
    '%s creates a space whose pages validate and whose links resolve',
    async (id) => {
      const slug = `from-${id}`;
      const r = await member.post(`/space-templates/built-in/${id}/spaces`, { slug });
      expect(r.status).toBe(201);
      expect(r.body.space).toMatchObject({ slug, personal: false });
      expect(r.body.import.errors).toEqual([]);
      expect(r.body.import.created).toBeGreaterThan(3);
      const bundle = (await member.get(`/spaces/${slug}/export`)).body;
      expect(bundle.pages).toHaveLength(r.body.import.created);
      const paths = new Set(bundle.pages.map((p: any) => p.path));
      const types = new Map<string, any>();
      for (const p of bundle.pages) {
        if (!/^templates\/[^/]+$/.test(p.path)) continue;
        const { type, issues } = parseTemplateFrontmatter(p.path.slice(10), p.frontmatter);
        expect(issues).toEqual([]);
        if (type) types.set(type.name, type);
      }
      for (const p of bundle.pages) {
        const revs = (await member.get(`/pages/${slug}/${p.path}/revisions`)).body.revisions;
        expect(revs[0].author.id).toBe(member.id);
        if (p.metadata.template !== undefined) {
          expect(types.has(p.metadata.template)).toBe(true);
          expect(validateRecord(types.get(p.metadata.template), p.metadata).issues).toEqual([]);
        }
        if (p.path.startsWith('templates/')) continue; // template bodies are skeletons
        for (const link of extractLinks(p.content, { space: slug, path: p.path })) {
          expect({ from: p.path, to: link.path, exists: paths.has(link.path) }).toMatchObject({ exists: true });
        }
      }
    },
  );

  it('takes name and description from the request, else from the bundle', async () => {
    const a = await member.post('/space-templates/built-in/team-wiki/spaces', {
      slug: 'named',
      name: 'Platform team',
      description: 'Ours',
    });
    expect(a.body.space).toMatchObject({ name: 'Platform team', description: 'Ours' });
    const b = await member.post('/space-templates/built-in/team-wiki/spaces', { slug: 'unnamed' });
    expect(b.body.space.name).toBe('Team wiki');
  });

  it('refuses an existing slug (409), a bad slug (400) and unknown templates (404), writing nothing', async () => {
    await srv.admin.post('/spaces', { slug: 'taken', name: 'Taken' });
    const before = (await srv.admin.get('/spaces/taken/pages')).body.pages.length;
    expect((await member.post('/space-templates/built-in/team-wiki/spaces', { slug: 'taken' })).status).toBe(409);
    expect((await srv.admin.get('/spaces/taken/pages')).body.pages.length).toBe(before);
    const bad = await member.post('/space-templates/built-in/team-wiki/spaces', { slug: 'Not OK' });
    expect(bad.status).toBe(400);
    expect(bad.body.issues[0].key).toBe('slug');
    expect((await member.post('/space-templates/built-in/team-wiki/spaces', { slug: '~member' })).status).toBe(400);
    expect((await member.post('/space-templates/built-in/nope/spaces', { slug: 'x1' })).status).toBe(404);
    expect((await member.post('/space-templates/remote/team-wiki/spaces', { slug: 'x1' })).status).toBe(404);
    expect((await member.post('/space-templates/elsewhere/team-wiki/spaces', { slug: 'x1' })).status).toBe(404);
    expect((await member.post('/space-templates/built-in/team-wiki/spaces', { name: 'no slug' })).status).toBe(400);
    expect((await srv.admin.get('/spaces/x1')).status).toBe(404);
  });
});

describe('org templates', () => {
  beforeAll(async () => {
    await srv.admin.post('/spaces', { slug: 'handbook', name: 'Handbook', description: 'How we do things' });
    await srv.admin.put('/pages/handbook/intro', { title: 'Intro', content: 'Hello', metadata: { owner: 'hr' } });
    await srv.admin.put('/pages/handbook/salaries', { title: 'Salaries', content: 'confidential numbers' });
    await srv.admin.put('/pages/handbook/salaries/acl', { read: [], write: [] });
  });

  it('saves a snapshot (org admin), lists it inside the organisation and creates spaces from it', async () => {
    const saved = await srv.admin.post('/space-templates/org', { space: 'handbook', name: 'Company handbook', description: 'Start here' });
    expect(saved.status).toBe(201);
    // Pages with their own ACL are not published into an org-wide template.
    expect(saved.body).toEqual({ source: 'org', id: 'company-handbook', name: 'Company handbook', description: 'Start here', pages: 1 });
    const gallery = (await member.get('/space-templates')).body;
    expect(gallery.filter((t: any) => t.source === 'org')).toEqual([saved.body]);
    expect((await outsider.get('/space-templates')).body.filter((t: any) => t.source === 'org')).toEqual([]);

    const made = await member.post('/space-templates/org/company-handbook/spaces', { slug: 'handbook-copy' });
    expect(made.status).toBe(201);
    expect(made.body.import).toEqual({ created: 1, updated: 0, skipped: 0, errors: [] });
    expect(made.body.space).toMatchObject({ name: 'Handbook', description: 'How we do things' });
    expect((await member.get('/pages/handbook-copy/intro')).body).toMatchObject({ content: 'Hello', metadata: { owner: 'hr' } });
    expect((await outsider.post('/space-templates/org/company-handbook/spaces', { slug: 'stolen' })).status).toBe(404);

    // A later edit of the source space does not change the snapshot.
    await srv.admin.put('/pages/handbook/intro', { title: 'Intro', content: 'Changed' });
    await member.post('/space-templates/org/company-handbook/spaces', { slug: 'handbook-copy-2' });
    expect((await member.get('/pages/handbook-copy-2/intro')).body.content).toBe('Hello');
  });

  it('refuses a personal space and a space members cannot read, saying why (issue 18 finding 7)', async () => {
    await srv.admin.put('/pages/~admin/diary', { title: 'Diary', content: 'private' });
    const personal = await srv.admin.post('/space-templates/org', { space: '~admin', name: 'Mine' });
    expect(personal.status).toBe(400);
    expect(personal.body.issues[0]).toMatchObject({ key: 'space', code: 'format' });
    expect(personal.body.issues[0].message).toContain('personal');
    await srv.admin.post('/spaces', { slug: 'board', name: 'Board', defaultAccess: 'none' });
    await srv.admin.put('/pages/board/minutes', { title: 'Minutes', content: 'closed session' });
    const closed = await srv.admin.post('/space-templates/org', { space: 'board', name: 'Board' });
    expect(closed.status).toBe(400);
    expect(closed.body.issues[0]).toMatchObject({ key: 'space', code: 'format' });
    expect(closed.body.issues[0].message).toContain('defaultAccess');
    const names = (await member.get('/space-templates')).body.map((t: any) => t.name);
    expect(names).not.toContain('Mine');
    expect(names).not.toContain('Board');
  });

  it('makes ids unique, refuses a taken or malformed id, and is for org admins only', async () => {
    const a = await srv.admin.post('/space-templates/org', { space: 'handbook', name: 'Company handbook' });
    expect(a.body.id).toBe('company-handbook-2');
    expect((await srv.admin.post('/space-templates/org', { space: 'handbook', name: 'X', id: 'company-handbook' })).status).toBe(409);
    const bad = await srv.admin.post('/space-templates/org', { space: 'handbook', name: 'X', id: 'Bad Id' });
    expect(bad.status).toBe(400);
    expect(bad.body.issues[0].key).toBe('id');
    expect((await srv.admin.post('/space-templates/org', { space: 'nowhere', name: 'X' })).status).toBe(404);
    expect((await srv.admin.post('/space-templates/org', { space: 'handbook' })).status).toBe(400);
    expect((await member.post('/space-templates/org', { space: 'handbook', name: 'Mine' })).status).toBe(403);
    const explicit = await srv.admin.post('/space-templates/org', { space: 'handbook', name: 'Explicit', id: 'hb' });
    expect(explicit.status).toBe(201);
    expect(explicit.body.id).toBe('hb');
  });

  it('deletes (org admin of the same organisation only)', async () => {
    await srv.admin.post('/space-templates/org', { space: 'handbook', name: 'Doomed', id: 'doomed' });
    expect((await member.del('/space-templates/org/doomed')).status).toBe(403);
    expect((await outsider.del('/space-templates/org/doomed')).status).toBe(404);
    expect((await srv.admin.del('/space-templates/org/doomed')).status).toBe(204);
    expect((await srv.admin.del('/space-templates/org/doomed')).status).toBe(404);
    expect((await member.get('/space-templates')).body.some((t: any) => t.id === 'doomed')).toBe(false);
    expect((await member.post('/space-templates/org/doomed/spaces', { slug: 'too-late' })).status).toBe(404);
  });
});

describe('SERVICE_SPACE_TEMPLATES_PATH', () => {
  let local: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-catalog-'));
    const bundle = {
      format: 'service-space-export',
      formatVersion: 1,
      exportedAt: '2026-01-01T00:00:00.000Z',
      space: { slug: 'k', name: 'Kiosk', description: '' },
      pages: [{ path: 'home', title: 'Home', content: 'local' }],
    };
    fs.writeFileSync(path.join(dir, 'kiosk.json'), JSON.stringify(bundle));
    fs.writeFileSync(path.join(dir, 'broken.json'), JSON.stringify({ ...bundle, formatVersion: 3 }));
    fs.writeFileSync(
      path.join(dir, 'root.json'),
      JSON.stringify({
        templates: [
          { id: 'kiosk', name: 'Kiosk', description: 'Air-gapped', bundle: 'kiosk.json' },
          { id: 'broken', name: 'Broken', bundle: 'broken.json' },
          { id: 'missing', name: 'Missing', bundle: 'missing.json' },
          { id: 'escape', name: 'Escape', bundle: '../kiosk.json' },
        ],
      }),
    );
    local = await startServer({ SERVICE_SPACE_TEMPLATES_PATH: dir });
  });
  afterAll(async () => {
    await local.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('replaces the built-in catalog; broken entries are left out', async () => {
    const r = await local.admin.get('/space-templates');
    expect(r.body).toEqual([{ source: 'built-in', id: 'kiosk', name: 'Kiosk', description: 'Air-gapped', pages: 1 }]);
    const made = await local.admin.post('/space-templates/built-in/kiosk/spaces', { slug: 'kiosk' });
    expect(made.status).toBe(201);
    expect((await local.admin.get('/pages/kiosk/home')).body.content).toBe('local');
    expect((await local.admin.post('/space-templates/built-in/team-wiki/spaces', { slug: 'wiki' })).status).toBe(404);
  });
});
