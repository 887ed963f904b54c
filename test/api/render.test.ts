import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { footnoteDocId } from '../../src/domain/links/footnotes.ts';
import { newAgent, startServer, type Client, type TestServer } from '../support/server.ts';

// The rendered forms for the web app: ?render=html on pages and revisions, and POST /render.

let srv: TestServer;
let bob: Client & { id: string };
beforeAll(async () => {
  srv = await startServer();
  bob = await newAgent(srv, 'bob');
  await srv.admin.post('/spaces', { slug: 'team', name: 'Team' });
  await srv.admin.put('/pages/team/notes/exists', { title: 'Exists', content: 'x' });
  await srv.admin.put('/pages/team/notes/secret', { title: 'Secret', content: 'x' });
  await srv.admin.put('/pages/team/notes/secret/acl', { read: [], write: [] });
  await srv.admin.put('/pages/team/notes/home', {
    title: 'Home',
    content: '# Welcome\n\n[e](exists) [s](secret) [m](missing) <script>alert(1)</script> [j](javascript:alert(1))',
  });
});
afterAll(() => srv.close());

describe('?render=html', () => {
  it('adds html to the page: app links, broken ones marked, no script', async () => {
    const r = await bob.get('/pages/team/notes/home?render=html');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ space: 'team', path: 'notes/home', title: 'Home', version: 1 });
    const html: string = r.body.html;
    expect(html).toContain('<h1 id="h-welcome">Welcome</h1>');
    expect(html).toContain('<a href="/app/p/team/notes/exists" class="internal">e</a>');
    expect(html).toContain(
      '<a href="/app/p/team/notes/missing" class="internal broken" data-create="/app/new?space=team&amp;path=notes%2Fmissing">m</a>',
    );
    expect(html).not.toContain('<script');
    expect(html).not.toContain('href="javascript');
  });

  it('marks a link to a page the caller cannot read as broken (never reveals it); the admin sees it', async () => {
    const forBob: string = (await bob.get('/pages/team/notes/home?render=html')).body.html;
    expect(forBob).toContain('href="/app/p/team/notes/secret" class="internal broken"');
    const forAdmin: string = (await srv.admin.get('/pages/team/notes/home?render=html')).body.html;
    expect(forAdmin).toContain('<a href="/app/p/team/notes/secret" class="internal">s</a>');
  });

  it("keeps each reader's HTML apart when it is served again (the render cache), and follows pages created later", async () => {
    await srv.admin.put('/pages/team/notes/again', { title: 'Again', content: '[s](secret) [l](later)' });
    for (let round = 0; round < 2; round++) {
      const forAdmin: string = (await srv.admin.get('/pages/team/notes/again?render=html')).body.html;
      const forBob: string = (await bob.get('/pages/team/notes/again?render=html')).body.html;
      expect(forAdmin).toContain('<a href="/app/p/team/notes/secret" class="internal">s</a>');
      expect(forBob).toContain('href="/app/p/team/notes/secret" class="internal broken"');
      expect(forBob).toContain('href="/app/p/team/notes/later" class="internal broken"');
    }
    await srv.admin.put('/pages/team/notes/later', { title: 'Later', content: 'x' });
    const after: string = (await bob.get('/pages/team/notes/again?render=html')).body.html;
    expect(after).toContain('<a href="/app/p/team/notes/later" class="internal">l</a>');
    expect(after).toContain('href="/app/p/team/notes/secret" class="internal broken"');
  });

  it('renders an old revision', async () => {
    await srv.admin.put('/pages/team/notes/rev', { title: 'R', content: '**one**' });
    await srv.admin.put('/pages/team/notes/rev', { title: 'R', content: '**two**' });
    const r = await bob.get('/pages/team/notes/rev/revisions/1?render=html');
    expect(r.status).toBe(200);
    expect(r.body.html).toBe('<p><strong>one</strong></p>\n');
    expect((await bob.get('/pages/team/notes/rev/revisions/1')).body.html).toBeUndefined();
  });

  it('answers 400 for another render value and 404 for a page the caller cannot read', async () => {
    const bad = await bob.get('/pages/team/notes/home?render=pdf');
    expect(bad.status).toBe(400);
    expect(bad.body.issues[0].key).toBe('render');
    expect((await bob.get('/pages/team/notes/secret?render=html')).status).toBe(404);
  });
});

describe('POST /render', () => {
  it('renders unsaved content as the page at path would be, with the same renderer', async () => {
    const r = await bob.post('/render', { space: 'team', path: 'notes/draft', content: '[e](exists) [m](missing)\n\n| a |\n|--:|\n| 1 |' });
    expect(r.status).toBe(200);
    expect(r.body.html).toContain('<a href="/app/p/team/notes/exists" class="internal">e</a>');
    expect(r.body.html).toContain('class="internal broken"');
    expect(r.body.html).toContain('<th class="align-right">a</th>');
    const page = (await bob.get('/pages/team/notes/home?render=html')).body;
    const same = await bob.post('/render', { space: 'team', path: 'notes/home', content: page.content });
    expect(same.body.html).toBe(page.html);
  });

  it("shows footnotes as the page view does (the editor's preview), an embedded page's with ids of their own", async () => {
    await srv.admin.put('/pages/team/notes/fn-embedded', { title: 'Fn embedded', content: 'E[^1]\n\n[^1]: the embedded note' });
    const content = 'H[^1]\n\n![[fn-embedded]]\n\n[^1]: the host note, see [[exists]]';
    const preview: string = (await bob.post('/render', { space: 'team', path: 'notes/fn-host', content })).body.html;
    const host = footnoteDocId({ space: 'team', path: 'notes/fn-host' });
    const embedded = footnoteDocId({ space: 'team', path: 'notes/fn-embedded' });
    expect(host).not.toBe(embedded);
    expect(preview).toContain(
      `<li id="fn-${host}-1" class="footnote-item"><p>the host note, see <a href="/app/p/team/notes/exists" class="internal">exists</a>`,
    );
    expect(preview).toContain(`<li id="fn-${embedded}-1" class="footnote-item"><p>the embedded note`);
    await srv.admin.put('/pages/team/notes/fn-host', { title: 'Fn host', content });
    expect((await bob.get('/pages/team/notes/fn-host?render=html')).body.html).toBe(preview);
  });

  it('needs a space the caller can see and names bad fields', async () => {
    await srv.admin.post('/spaces', { slug: 'closed', name: 'Closed', defaultAccess: 'none' });
    expect((await bob.post('/render', { space: 'closed', path: 'a', content: 'x' })).status).toBe(404);
    const bad = await bob.post('/render', { space: 'team', content: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.issues.map((i: { key: string }) => i.key).sort()).toEqual(['content', 'path']);
  });
});
