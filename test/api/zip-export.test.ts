import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WORKER_EXPORTS, exportWorkers } from '../../src/domain/bundles/export-thread.ts';
import { openSnapshotCount } from '../../src/store/db/connection.ts';
import { newAgent, startServer, type Client, type TestServer } from '../support/server.ts';

let srv: TestServer;
let bob: Client & { id: string };

beforeAll(async () => {
  srv = await startServer();
  bob = await newAgent(srv, 'bob');
});
afterAll(() => srv.close());

const bundleOf = (n: number) => ({
  format: 'service-space-export',
  formatVersion: 1,
  space: { slug: 'x', name: 'X', description: '' },
  pages: Array.from({ length: n }, (_, i) => ({
    path: `p/${String(i).padStart(4, '0')}`,
    title: `Page ${i}`,
    content: `# ${i}\n\ntext of page ${i}`,
  })),
});

/** GET of an export as raw bytes. */
async function download(who: Client, slug: string, format: 'zip' | 'json') {
  const r = await fetch(`${srv.url}/spaces/${slug}/export?format=${format}`, { headers: { authorization: `Bearer ${who.key}` } });
  return { status: r.status, type: r.headers.get('content-type') ?? '', bytes: new Uint8Array(await r.arrayBuffer()) };
}

/** The .md entries of a zip export (which must unzip whole). */
async function zipPages(who: Client, slug: string): Promise<string[]> {
  const r = await download(who, slug, 'zip');
  expect(r.status).toBe(200);
  expect(r.type).toBe('application/zip');
  const entries = unzipSync(r.bytes);
  expect(Object.keys(entries)).toContain('.kspace/space.json');
  return Object.keys(entries)
    .filter((n) => n.endsWith('.md'))
    .sort();
}

describe('GET /spaces/:slug/export?format=zip', () => {
  it.each([200, 400, 201])('is a complete zip for a space of %i pages (batch boundaries)', async (n) => {
    const slug = `z${n}`;
    const imported = await srv.admin.post(`/spaces/${slug}/import`, bundleOf(n));
    expect(imported.body.created).toBe(n);
    const names = await zipPages(srv.admin, slug);
    expect(names).toHaveLength(n);
    expect(names[0]).toBe('p/0000.md');
    expect(names[n - 1]).toBe(`p/${String(n - 1).padStart(4, '0')}.md`);
    expect(srv.errors).toEqual([]);
  });

  it('is a valid zip with only the marker when the caller may read no page', async () => {
    expect((await srv.admin.post('/spaces', { slug: 'hidden', name: 'Hidden' })).status).toBe(201);
    for (const p of ['a', 'b']) {
      await srv.admin.put(`/pages/hidden/${p}`, { title: p });
      expect((await srv.admin.put(`/pages/hidden/${p}/acl`, { read: [], write: [] })).status).toBe(200);
    }
    expect(await zipPages(bob, 'hidden')).toEqual([]);
    expect(await zipPages(srv.admin, 'hidden')).toEqual(['a.md', 'b.md']);
    expect((await srv.admin.post('/spaces', { slug: 'empty', name: 'Empty' })).status).toBe(201);
    expect(await zipPages(bob, 'empty')).toEqual([]);
    const json = await download(bob, 'hidden', 'json');
    expect(JSON.parse(Buffer.from(json.bytes).toString()).pages).toEqual([]);
    expect(srv.errors).toEqual([]);
    expect(openSnapshotCount()).toBe(0);
  });

  it('answers problem+json when it fails before its first byte', async () => {
    await srv.admin.post('/spaces', { slug: 'gone', name: 'Gone' });
    await srv.admin.put('/pages/gone/a', { title: 'A' });
    // The database file moved away: the export's own snapshot connection cannot open. The
    // server's connection keeps the open file, so nothing else changes.
    const db = path.join(srv.dataDir, 'kspace.db');
    fs.renameSync(db, `${db}.away`);
    try {
      for (const format of ['zip', 'json'] as const) {
        const r = await download(srv.admin, 'gone', format);
        expect(r.status).toBe(500);
        expect(r.type).toMatch(/^application\/problem\+json/);
        expect(JSON.parse(Buffer.from(r.bytes).toString())).toMatchObject({ status: 500, code: 'internal_error' });
      }
    } finally {
      fs.renameSync(`${db}.away`, db);
    }
    expect(openSnapshotCount()).toBe(0);
    srv.errors.length = 0;
    expect(await zipPages(srv.admin, 'gone')).toEqual(['a.md']);
  });
});

describe('exports on worker threads', () => {
  const get = (who: Client, slug: string, format: 'zip' | 'json', signal?: AbortSignal) =>
    fetch(`${srv.url}/spaces/${slug}/export?format=${format}`, { headers: { authorization: `Bearer ${who.key}` }, signal });
  const upload = (who: Client, at: string, text: string) =>
    fetch(`${srv.url}/files/${at}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${who.key}`, 'content-type': 'text/plain' },
      body: text,
    });

  it('carries only the files of pages the caller may read', async () => {
    expect((await srv.admin.post('/spaces', { slug: 'files', name: 'Files' })).status).toBe(201);
    await srv.admin.put('/pages/files/open', { title: 'Open' });
    await srv.admin.put('/pages/files/closed', { title: 'Closed' });
    expect((await upload(srv.admin, 'files/open/a.txt', 'hello')).status).toBe(201);
    expect((await upload(srv.admin, 'files/closed/b.txt', 'secret')).status).toBe(201);
    expect((await srv.admin.put('/pages/files/closed/acl', { read: [], write: [] })).status).toBe(200);
    const files = async (who: Client) => {
      const entries = unzipSync(new Uint8Array(await (await get(who, 'files', 'zip')).arrayBuffer()));
      return Object.fromEntries(
        Object.entries(entries)
          .filter(([n]) => n.endsWith('.txt'))
          .map(([n, b]) => [n.split('/').pop(), Buffer.from(b).toString()]),
      );
    };
    expect(await files(bob)).toEqual({ 'a.txt': 'hello' });
    expect(await files(srv.admin)).toEqual({ 'a.txt': 'hello', 'b.txt': 'secret' });
  });

  it('runs at most MAX_WORKER_EXPORTS at once, makes the next on the event loop, and stops each when its client hangs up', async () => {
    // 9 MB of JSON in pieces: more than a stream, its worker's pieces and the loopback socket buffers hold.
    const pages = Array.from({ length: 6 }, (_, i) => ({ path: `p${i}`, title: `P ${i}`, content: 'z'.repeat(1_500_000) }));
    expect((await srv.admin.post('/spaces/large/import', { ...bundleOf(0), pages })).body.created).toBe(6);
    expect((await srv.admin.post('/spaces/small/import', bundleOf(3))).body.created).toBe(3);
    const stalled = [];
    for (let i = 0; i < MAX_WORKER_EXPORTS; i++) stalled.push(await stalledExport('large'));
    expect(exportWorkers()).toEqual({ threads: MAX_WORKER_EXPORTS, busy: MAX_WORKER_EXPORTS });
    // One more: on the event loop, complete.
    expect(await zipPages(bob, 'small')).toEqual(['p/0000.md', 'p/0001.md', 'p/0002.md']);
    expect(exportWorkers().busy).toBe(MAX_WORKER_EXPORTS);
    for (const socket of stalled) socket.destroy();
    for (let i = 0; i < 200 && (openSnapshotCount() > 0 || exportWorkers().busy > 0); i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(openSnapshotCount()).toBe(0);
    // Each worker stopped its export and waits for the next; none was ended by force.
    expect(exportWorkers()).toEqual({ threads: MAX_WORKER_EXPORTS, busy: 0 });
    // Nothing pins the WAL any more: a checkpoint completes.
    await srv.admin.put('/pages/large/after', { title: 'After' });
    expect((srv.svc.db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>)[0].busy).toBe(0);
    expect(await zipPages(bob, 'small')).toHaveLength(3);
    expect(exportWorkers().threads).toBe(MAX_WORKER_EXPORTS);
    expect(srv.errors).toEqual([]);
  }, 60_000);
});

/** A JSON export asked for over a raw socket that reads its first bytes, then no more (a stalled client). */
async function stalledExport(slug: string): Promise<net.Socket> {
  const url = new URL(srv.url);
  const socket = net.connect(Number(url.port), url.hostname);
  await once(socket, 'connect');
  socket.write(`GET /spaces/${slug}/export HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${srv.admin.key}\r\n\r\n`);
  const [first] = (await once(socket, 'data')) as [Buffer];
  expect(first.toString('latin1')).toMatch(/^HTTP\/1\.1 200/);
  socket.pause();
  return socket;
}
