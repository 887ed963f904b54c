import fs from 'node:fs';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  format: 'service-space-export', formatVersion: 1, space: { slug: 'x', name: 'X', description: '' },
  pages: Array.from({ length: n }, (_, i) => ({ path: `p/${String(i).padStart(4, '0')}`, title: `Page ${i}`, content: `# ${i}\n\ntext of page ${i}` })),
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
  return Object.keys(entries).filter((n) => n.endsWith('.md')).sort();
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
