import Database from 'better-sqlite3';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { backupDatabase } from '../../src/store/backup.ts';
import { SCHEMA_VERSION, STEPS } from '../../src/store/migrations.ts';
import { restoreBackup } from '../../src/ops/restore.ts';
import { newAgent, startServer, type Client, type TestServer } from '../support/server.ts';

let srv: TestServer;
let bob: Client & { id: string };
let carol: Client & { id: string };
beforeAll(async () => {
  srv = await startServer({ SERVICE_MAX_ATTACHMENT_BYTES: String(8 * 1024 * 1024), SERVICE_SPACE_QUOTA_BYTES: String(12 * 1024 * 1024) });
  bob = await newAgent(srv, 'bob');
  carol = await newAgent(srv, 'carol');
  for (const slug of ['wiki', 'docs', 'tiny']) expect((await srv.admin.post('/spaces', { slug, name: slug })).status).toBe(201);
});
afterAll(() => srv.close());
afterEach(() => expect(srv.errors).toEqual([]));

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const png = (size: number) => Buffer.concat([PNG, randomBytes(size - PNG.length)]);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A raw request with the caller's key. */
function send(c: Client | null, method: string, p: string, body?: Buffer | string, headers: Record<string, string> = {}, base = srv.url) {
  const h: Record<string, string> = { ...headers };
  if (c?.key) h.authorization = `Bearer ${c.key}`;
  return fetch(base + p, { method, headers: h, body: body as BodyInit | undefined, redirect: 'manual' });
}
const upload = async (c: Client, p: string, data: Buffer | string, type = 'application/octet-stream') => {
  const r = await send(c, 'PUT', p, data, { 'content-type': type });
  return { status: r.status, body: await r.json() };
};
const page = async (at: string, content = 'x', c: Client = bob) => {
  const r = await c.put(`/pages/${at}`, { title: at, content });
  expect([200, 201], r.text).toContain(r.status);
};

describe('attachments', () => {
  it('stores a 5 MB image and serves it with ETag, 304, ranges, nosniff and a disposition', async () => {
    await page('wiki/guide/intro');
    const data = png(5 * 1024 * 1024);
    const put = await upload(bob, '/files/wiki/guide/intro/diagram.png', data, 'application/octet-stream');
    expect(put.status).toBe(201);
    expect(put.body).toEqual({ name: 'diagram.png', size: data.length, contentType: 'image/png', sha256: sha(data) });
    expect((await upload(bob, '/files/wiki/guide/intro/diagram.png', data)).status).toBe(200); // replaced

    const r = await send(bob, 'GET', '/files/wiki/guide/intro/diagram.png');
    expect(r.status).toBe(200);
    const got = Buffer.from(await r.arrayBuffer());
    expect(got.equals(data)).toBe(true);
    expect(r.headers.get('etag')).toBe(`"${sha(data)}"`);
    expect(r.headers.get('content-type')).toBe('image/png');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('accept-ranges')).toBe('bytes');
    expect(r.headers.get('content-disposition')).toBe(`inline; filename="diagram.png"; filename*=UTF-8''diagram.png`);
    expect(r.headers.get('content-security-policy')).toMatch(/sandbox/);

    const head = await send(bob, 'HEAD', '/files/wiki/guide/intro/diagram.png');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(data.length));
    expect(head.headers.get('etag')).toBe(`"${sha(data)}"`);
    expect((await head.arrayBuffer()).byteLength).toBe(0);

    const again = await send(bob, 'GET', '/files/wiki/guide/intro/diagram.png', undefined, { 'if-none-match': `"${sha(data)}"` });
    expect(again.status).toBe(304);

    const part = await send(bob, 'GET', '/files/wiki/guide/intro/diagram.png', undefined, { range: 'bytes=1048570-1048585' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 1048570-1048585/${data.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(data.subarray(1048570, 1048586))).toBe(true);
    // Ranges over several 1 MiB chunks (streamed chunk by chunk), at and across chunk edges.
    for (const [a, b] of [
      [1000, 3_000_000],
      [1048576, 2097151],
      [1048575, 4194304],
      [0, data.length - 1],
    ]) {
      const r2 = await send(bob, 'GET', '/files/wiki/guide/intro/diagram.png', undefined, { range: `bytes=${a}-${b}` });
      expect(r2.status).toBe(206);
      expect(r2.headers.get('content-length')).toBe(String(b - a + 1));
      expect(Buffer.from(await r2.arrayBuffer()).equals(data.subarray(a, b + 1)), `${a}-${b}`).toBe(true);
    }
    const tail = await send(bob, 'GET', '/files/wiki/guide/intro/diagram.png', undefined, { range: 'bytes=-10' });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(data.subarray(data.length - 10))).toBe(true);
    const open = await send(bob, 'GET', '/files/wiki/guide/intro/diagram.png', undefined, { range: `bytes=${data.length - 3}-` });
    expect(open.status).toBe(206);
    expect((await open.arrayBuffer()).byteLength).toBe(3);

    const bad = await send(bob, 'GET', '/files/wiki/guide/intro/diagram.png', undefined, { range: `bytes=${data.length}-` });
    expect(bad.status).toBe(416);
    expect(bad.headers.get('content-range')).toBe(`bytes */${data.length}`);
    expect(bad.headers.get('content-type')).toBe('application/problem+json');
    expect((await bad.json()).code).toBe('range_not_satisfiable');
    // A stale If-Range: the whole file.
    const stale = await send(bob, 'GET', '/files/wiki/guide/intro/diagram.png', undefined, { range: 'bytes=0-1', 'if-range': '"other"' });
    expect(stale.status).toBe(200);
    await stale.arrayBuffer();

    const list = await bob.get('/pages/wiki/guide/intro/files');
    expect(list.status, list.text).toBe(200);
    expect(list.body.files).toEqual([
      expect.objectContaining({
        name: 'diagram.png',
        size: data.length,
        contentType: 'image/png',
        sha256: sha(data),
        url: '/files/wiki/guide/intro/diagram.png',
      }),
    ]);
  });

  it('serves SVG and HTML as downloads whatever their declared type, and sniffs the type from the bytes', async () => {
    await page('wiki/art');
    const svg = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
    const up = await upload(bob, '/files/wiki/art/logo.svg', svg, 'image/png');
    expect(up.body.contentType).toBe('image/svg+xml');
    const r = await send(bob, 'GET', '/files/wiki/art/logo.svg');
    expect(r.headers.get('content-type')).toBe('image/svg+xml');
    expect(r.headers.get('content-disposition')).toMatch(/^attachment; filename="logo.svg"/);
    expect(r.headers.get('content-security-policy')).toMatch(/^sandbox/);
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await r.text()).toBe(svg);

    expect((await upload(bob, '/files/wiki/art/page.txt', '  <!DOCTYPE html><p>hi', 'text/plain')).body.contentType).toBe(
      'application/octet-stream',
    );
    expect((await send(bob, 'GET', '/files/wiki/art/page.txt')).headers.get('content-disposition')).toMatch(/^attachment/);
    expect((await upload(bob, '/files/wiki/art/notes.md', '# Notes', 'text/markdown')).body.contentType).toBe(
      'text/markdown; charset=utf-8',
    );
    expect((await upload(bob, '/files/wiki/art/plain', 'just words')).body.contentType).toBe('text/plain; charset=utf-8');
    expect((await upload(bob, '/files/wiki/art/blob.bin', Buffer.from([0, 1, 2, 3]))).body.contentType).toBe('application/octet-stream');
    const named = await upload(bob, `/files/wiki/art/${encodeURIComponent('résumé "v2".pdf')}`, '%PDF-1.4 x');
    expect(named.body).toMatchObject({ name: 'résumé "v2".pdf', contentType: 'application/pdf' });
    const d = (await send(bob, 'GET', `/files/wiki/art/${encodeURIComponent('résumé "v2".pdf')}`)).headers.get('content-disposition');
    expect(d).toBe(`attachment; filename="r_sum_ _v2_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22v2%22.pdf`);
  });

  it('stores and serves script and HTML types as application/octet-stream, never as something this origin runs', async () => {
    await page('wiki/code');
    for (const [name, type] of [
      ['app.js', 'application/javascript'],
      ['mod.mjs', 'text/javascript; charset=utf-8'],
      ['old.js', 'application/x-javascript'],
      ['page.html', 'text/html'],
      ['doc.xhtml', 'application/xhtml+xml'],
      ['feed.xml', 'text/xml'],
    ]) {
      const up = await upload(bob, `/files/wiki/code/${name}`, 'fetch("/admin/principals")', type);
      expect(up.status, name).toBe(201);
      expect(up.body.contentType, name).toBe('application/octet-stream');
      const r = await send(bob, 'GET', `/files/wiki/code/${name}`);
      expect(r.headers.get('content-type'), name).toBe('application/octet-stream');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('content-disposition')).toMatch(/^attachment/);
      expect(await r.text()).toBe('fetch("/admin/principals")');
    }
    const list = await bob.get('/pages/wiki/code/files');
    expect(new Set(list.body.files.map((f: { contentType: string }) => f.contentType))).toEqual(new Set(['application/octet-stream']));
  });

  it('applies the page ACL: no read → 404 for the files and the list; read only → 403 on writes', async () => {
    await page('wiki/private');
    expect((await upload(bob, '/files/wiki/private/plan.txt', 'secret plan')).status).toBe(201);
    expect((await srv.admin.put('/pages/wiki/private/acl', { read: [], write: [bob.id] })).status).toBe(200);
    for (const [m, p] of [
      ['GET', '/files/wiki/private/plan.txt'],
      ['GET', '/files/wiki/private/nope.txt'],
      ['DELETE', '/files/wiki/private/plan.txt'],
      ['PUT', '/files/wiki/private/new.txt'],
      ['GET', '/pages/wiki/private/files'],
    ] as const) {
      const r = await send(carol, m, p, m === 'PUT' ? 'x' : undefined);
      expect(r.status, `${m} ${p}`).toBe(404);
      expect((await r.json()).code).toBe('not_found');
    }
    expect((await srv.admin.put('/pages/wiki/private/acl', { read: [carol.id], write: [bob.id] })).status).toBe(200);
    expect((await send(carol, 'GET', '/files/wiki/private/plan.txt')).status).toBe(200);
    expect((await send(carol, 'PUT', '/files/wiki/private/new.txt', 'x')).status).toBe(403);
    expect((await send(carol, 'DELETE', '/files/wiki/private/plan.txt')).status).toBe(403);
    expect((await send(null, 'GET', '/files/wiki/private/plan.txt')).status).toBe(401);
    // The page must exist; names are one segment.
    expect((await send(bob, 'PUT', '/files/wiki/no/such/page/x.txt', 'x')).status).toBe(404);
    expect((await send(bob, 'PUT', '/files/wiki/private', 'x')).status).toBe(404);
    const badName = await send(bob, 'PUT', '/files/wiki/private/%E2%80%AEgpj.exe', 'x');
    expect(badName.status).toBe(400);
    expect((await badName.json()).issues[0].key).toBe('name');
    expect((await send(bob, 'DELETE', '/files/wiki/private/plan.txt')).status).toBe(204);
    expect((await send(bob, 'GET', '/files/wiki/private/plan.txt')).status).toBe(404);
    expect((await send(bob, 'DELETE', '/files/wiki/private/plan.txt')).status).toBe(404);
  });

  it('refuses a file past the size cap and the space past its quota with 413 naming the setting', async () => {
    await page('tiny/a');
    const big = await send(bob, 'PUT', '/files/tiny/a/big.bin', Buffer.alloc(8 * 1024 * 1024 + 1));
    expect(big.status).toBe(413);
    const p = await big.json();
    expect(p).toMatchObject({ code: 'payload_too_large', setting: 'SERVICE_MAX_ATTACHMENT_BYTES' });
    expect(p.detail).toMatch(/SERVICE_MAX_ATTACHMENT_BYTES/);
    // Without Content-Length (a stream): refused while reading.
    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < 9; i++) c.enqueue(new Uint8Array(1024 * 1024));
        c.close();
      },
    });
    const chunked = await fetch(`${srv.url}/files/tiny/a/big.bin`, {
      method: 'PUT',
      body: stream,
      duplex: 'half',
      headers: { authorization: `Bearer ${bob.key}` },
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect((await chunked.json()).setting).toBe('SERVICE_MAX_ATTACHMENT_BYTES');

    const five = randomBytes(5 * 1024 * 1024);
    expect((await send(bob, 'PUT', '/files/tiny/a/one.bin', five)).status).toBe(201);
    expect((await send(bob, 'PUT', '/files/tiny/a/two.bin', five)).status).toBe(201); // same bytes: counted twice, stored once
    const over = await send(bob, 'PUT', '/files/tiny/a/three.bin', Buffer.alloc(3 * 1024 * 1024, 1));
    expect(over.status).toBe(413);
    expect(await over.json()).toMatchObject({ code: 'payload_too_large', setting: 'SERVICE_SPACE_QUOTA_BYTES' });
    // Replacing a file counts its new size only.
    expect((await send(bob, 'PUT', '/files/tiny/a/two.bin', Buffer.alloc(2 * 1024 * 1024, 2))).status).toBe(200);
    expect(srv.svc.db.prepare('SELECT count(*) FROM blobs WHERE sha256 = ?').pluck().get(sha(five))).toBe(1);
  });

  it("keeps a page's files through a move, the trash and a restore, and leaves its revisions alone", async () => {
    await page('docs/old/place');
    const data = png(4000);
    expect((await upload(bob, '/files/docs/old/place/pic.png', data)).status).toBe(201);
    const revs = (await bob.get('/pages/docs/old/place/revisions')).body.revisions;
    expect(revs).toHaveLength(1); // attaching writes no revision

    const m = await srv.admin.post('/spaces/docs/moves', { from: 'old/place', to: 'new/place', toSpace: 'wiki' });
    expect(m.status, m.text).toBe(200);
    const moved = await send(bob, 'GET', '/files/wiki/new/place/pic.png');
    expect(Buffer.from(await moved.arrayBuffer()).equals(data)).toBe(true);
    // The file's bytes now count against the space it moved to.
    const spaceOf = srv.svc.db
      .prepare("SELECT s.slug FROM attachments a JOIN spaces s ON s.id = a.space_id WHERE a.name = 'pic.png'")
      .pluck();
    expect(spaceOf.get()).toBe('wiki');
    const redirect = await send(bob, 'GET', '/files/docs/old/place/pic.png');
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get('location')).toBe('/files/wiki/new/place/pic.png');
    expect((await send(carol, 'GET', '/files/docs/old/place/nothing.png')).status).toBe(308); // readable page: follows it

    expect((await srv.admin.del('/pages/wiki/new/place')).status).toBe(204);
    expect((await send(bob, 'GET', '/files/wiki/new/place/pic.png')).status).toBe(404);
    expect((await bob.get('/pages/wiki/new/place/files')).status).toBe(404);
    const r = await bob.post('/spaces/wiki/trash/restore', { path: 'new/place' });
    expect(r.status, r.text).toBe(200);
    expect((await send(bob, 'GET', '/files/wiki/new/place/pic.png')).status).toBe(200);
    expect((await bob.get('/pages/wiki/new/place/revisions')).body.revisions.map((x: { version: number }) => x.version)).toEqual([2, 1]);

    // A page written over a deleted one brings it back as a restore would: its files stay.
    expect((await srv.admin.del('/pages/wiki/new/place')).status).toBe(204);
    await page('wiki/new/place', 'fresh', carol);
    expect((await carol.get('/pages/wiki/new/place/files')).body.files.map((f: { name: string }) => f.name)).toEqual(['pic.png']);
    expect(srv.svc.db.prepare('SELECT count(*) FROM blobs WHERE sha256 = ?').pluck().get(sha(data))).toBe(1);
  });

  it('carries files in an export bundle (formatVersion 2) that imports elsewhere, and still imports version 1', async () => {
    await srv.admin.post('/spaces', { slug: 'src', name: 'Source' });
    await page('src/photos', '![cat](files/cat.png)');
    await page('src/copy');
    const cat = png(5 * 1024 * 1024);
    await upload(bob, '/files/src/photos/cat.png', cat);
    await upload(bob, '/files/src/copy/cat.png', cat);
    await upload(bob, '/files/src/photos/readme.txt', 'hello');
    const ex = await srv.admin.get('/spaces/src/export');
    expect(ex.status).toBe(200);
    expect(ex.body.formatVersion).toBe(2);
    expect(ex.body.attachments).toHaveLength(3);
    expect(Object.keys(ex.body.blobs)).toHaveLength(2); // deduplicated by sha256

    const imp = await srv.admin.post('/spaces/dst/import', ex.body);
    expect(imp.status, imp.text).toBe(200);
    expect(imp.body).toMatchObject({ created: 2, errors: [] });
    const r = await send(bob, 'GET', '/files/dst/photos/cat.png');
    expect(Buffer.from(await r.arrayBuffer()).equals(cat)).toBe(true);
    expect(r.headers.get('content-type')).toBe('image/png');
    expect((await bob.get('/pages/dst/copy/files')).body.files[0].sha256).toBe(sha(cat));

    // A blob that does not match its hash is an error for that file; the rest imports.
    const tampered = structuredClone(ex.body);
    const txt = tampered.attachments.find((a: { name: string }) => a.name === 'readme.txt');
    tampered.blobs[txt.sha256] = Buffer.from('other').toString('base64');
    const t = await srv.admin.post('/spaces/dst2/import', tampered);
    expect(t.status, t.text).toBe(200);
    expect(t.body.errors).toEqual([expect.objectContaining({ path: 'photos', code: 'validation_failed' })]);
    expect(t.body.errors[0].message).toMatch(/readme\.txt/);

    // A space without files still exports as version 1, and version 1 bundles import.
    await page('docs/plain');
    expect((await srv.admin.get('/spaces/docs/export')).body.formatVersion).toBe(1);
    const v1 = await srv.admin.post('/spaces/dst3/import', {
      format: 'service-space-export',
      formatVersion: 1,
      space: { slug: 'x' },
      pages: [{ path: 'a', title: 'A' }],
    });
    expect(v1.body).toMatchObject({ created: 1, errors: [] });
  });
});

describe('attachments and the database', () => {
  it('survive a backup and a restore', async () => {
    await page('wiki/kept');
    const data = png(1024 * 1024 + 17);
    await upload(bob, '/files/wiki/kept/k.png', data);
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-files-'));
    try {
      const file = path.join(work, 'b.db');
      await backupDatabase(srv.svc.db, file, Infinity);
      const dir = path.join(work, 'restored');
      restoreBackup(dir, file);
      const other = await startServer({}, { dataDir: dir });
      try {
        const r = await send(null, 'GET', '/files/wiki/kept/k.png', undefined, { authorization: `Bearer ${srv.admin.key}` }, other.url);
        expect(r.status).toBe(200);
        expect(Buffer.from(await r.arrayBuffer()).equals(data)).toBe(true);
      } finally {
        await other.close();
      }
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  });

  it('a version 6 database gains the attachment tables', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-v6-'));
    try {
      const db = new Database(path.join(dir, 'kspace.db'));
      db.exec(fs.readFileSync(new URL('../support/schema-v3.sql', import.meta.url), 'utf8'));
      for (const step of STEPS) if (step.to > 3 && step.to <= 6) db.exec(step.sql);
      db.pragma('user_version = 6');
      expect(db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'attachments'").pluck().get()).toBe(0);
      db.close();
      const s = await startServer({}, { dataDir: dir, keepData: true });
      try {
        expect(s.svc.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
        expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(7);
        const tables = s.svc.db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all();
        expect(tables).toEqual(expect.arrayContaining(['blobs', 'blob_chunks', 'attachments']));
        await s.admin.post('/spaces', { slug: 'w', name: 'W' });
        await s.admin.put('/pages/w/p', { title: 'P' });
        expect((await send(s.admin, 'PUT', '/files/w/p/a.txt', 'hi', {}, s.url)).status).toBe(201);
      } finally {
        await s.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
