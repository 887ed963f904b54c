import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.ts';

// Page paths are stored in NFC; zero-width and bidi control characters are refused; `files`
// is a reserved last segment (contract: Pages; issue 18 finding 7).

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
  await srv.admin.post('/spaces', { slug: 'kb', name: 'KB' });
});
afterAll(() => srv.close());

const NFC = 'caf\u00e9/r\u00e9sum\u00e9';
const NFD = NFC.normalize('NFD');
const url = (path: string) => `/pages/kb/${path.split('/').map(encodeURIComponent).join('/')}`;

describe('page paths', () => {
  it('are one page whatever the normalisation form they are written in', async () => {
    expect(NFD).not.toBe(NFC);
    const created = await srv.admin.put(url(NFD), { title: 'R', content: 'first' });
    expect(created.status).toBe(201);
    expect(created.body.path).toBe(NFC);
    const again = await srv.admin.put(url(NFC), { title: 'R', content: 'second' });
    expect(again.status).toBe(200);
    expect(again.body.version).toBe(2);
    expect((await srv.admin.get(url(NFD))).body).toMatchObject({ path: NFC, content: 'second' });
    expect((await srv.admin.get(url(NFD) + '/revisions/1')).body.content).toBe('first');
    expect((await srv.admin.patch(url(NFD) + '/metadata', { set: { k: 1 } })).status).toBe(200);
    const listed = (await srv.admin.get('/spaces/kb/pages')).body.pages.map((p: { path: string }) => p.path);
    expect(listed.filter((p: string) => p.startsWith('caf'))).toEqual([NFC]);
    expect((await srv.admin.get(`/spaces/kb/pages?prefix=${encodeURIComponent('cafe\u0301/')}`)).body.pages.length).toBe(1);
  });

  it('link to the NFC page from a link written in another form', async () => {
    await srv.admin.put('/pages/kb/links-from', { title: 'L', content: `[r](/pages/kb/${encodeURI(NFD)})` });
    expect((await srv.admin.get('/pages/kb/links-from/links')).body.outbound).toEqual([{ space: 'kb', path: NFC, exists: true }]);
    expect((await srv.admin.get('/spaces/kb/links/broken')).body).toEqual([]);
  });

  it('are normalised on import too (two spellings of one path are one page)', async () => {
    const r = await srv.admin.post('/spaces/imp/import', {
      format: 'service-space-export',
      formatVersion: 1,
      exportedAt: '2026-01-01T00:00:00.000Z',
      space: { slug: 'imp', name: 'Imp', description: '' },
      pages: [
        { path: NFD, title: 'D' },
        { path: NFC, title: 'C' },
      ],
    });
    expect(r.body.created).toBe(1);
    expect(r.body.errors).toEqual([expect.objectContaining({ path: NFC, code: 'duplicate_path' })]);
  });

  it.each([
    ['zero-width space', 'a\u200bb'],
    ['zero-width joiner', 'a\u200db'],
    ['byte order mark', '\ufeffa'],
    ['right-to-left override', 'invoice\u202efdp.exe'],
    ['first-strong isolate', 'a\u2068b'],
    ['soft hyphen', 'soft\u00adhyphen'],
    ['Arabic letter mark', 'a\u061cb'],
    ['Mongolian vowel separator', 'a\u180eb'],
    ['invisible plus', 'a\u2064b'],
    ['Hangul filler', '\u3164'],
    ['tag character', 'a\u{e0041}b'],
    ['backslash', 'a\\..\\b'],
    ['colon', 'notes/10:30'],
  ])('refuse a %s with 400 naming path', async (_name, path) => {
    const r = await srv.admin.put(url(path), { title: 'X' });
    expect(r.status).toBe(400);
    expect(r.body.issues[0]).toMatchObject({ key: 'path', code: 'format' });
  });

  it('refuse invisible characters and Windows separators in a move target, and in a bundle page', async () => {
    await srv.admin.put('/pages/kb/plain', { title: 'Plain' });
    const m = await srv.admin.post('/spaces/kb/moves', { from: 'plain', to: 'a:b' });
    expect(m.status).toBe(400);
    expect(m.body.issues[0]).toMatchObject({ key: 'to', code: 'format' });
    const r = await srv.admin.post('/spaces/kb/import', {
      format: 'service-space-export',
      formatVersion: 1,
      space: { slug: 'kb', name: 'KB' },
      pages: [
        { path: 'x:y', title: 'X' },
        { path: 'shy\u00ad', title: 'S' },
        { path: 'ok', title: 'OK' },
      ],
    });
    expect(r.body.created).toBe(1);
    expect(r.body.errors.map((e: { path: string; code: string }) => [e.path, e.code])).toEqual([
      ['x:y', 'validation_failed'],
      ['shy\u00ad', 'validation_failed'],
    ]);
  });

  it("refuse invisible characters in space names (400 naming name); a bundle's space name loses them", async () => {
    const c = await srv.admin.post('/spaces', { slug: 'shy', name: 'Wi\u00adki' });
    expect(c.status).toBe(400);
    expect(c.body.issues[0]).toMatchObject({ key: 'name' });
    expect(c.body.issues[0].message).toContain('U+00AD');
    expect((await srv.admin.patch('/spaces/kb', { name: 'K\u{e0041}B' })).status).toBe(400);
    expect((await srv.admin.post('/spaces', { slug: 'braille', name: 'a\u2800b' })).status).toBe(201);
    const imported = await srv.admin.post('/spaces/from-bundle/import', {
      format: 'service-space-export',
      formatVersion: 1,
      space: { slug: 'x', name: 'Hid\u200bden\u3164' },
      pages: [],
    });
    expect(imported.status).toBe(200);
    expect((await srv.admin.get('/spaces/from-bundle')).body.name).toBe('Hidden');
  });

  it('refuse files as a last segment (a PUT there is a 405: the sub-resource has no PUT; a move there a 400)', async () => {
    const r = await srv.admin.put('/pages/kb/doc/files', { title: 'X' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, HEAD');
    expect((await srv.admin.put(url('doc'), { title: 'Doc' })).status).toBe(201);
    const m = await srv.admin.post('/spaces/kb/moves', { from: 'doc', to: 'doc/files' });
    expect(m.status).toBe(400);
    expect(m.body.issues[0]).toMatchObject({ key: 'to', code: 'reserved' });
  });

  it('name a template in any normalisation form', async () => {
    await srv.admin.put(url('templates/r\u00e9union'), { title: 'Meeting', content: 'agenda' });
    const r = await srv.admin.put('/pages/kb/m1', { template: 're\u0301union' });
    expect(r.status).toBe(201);
    expect(r.body.content).toBe('agenda');
  });
});
