import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.ts';

// The whole stored page (content + frontmatter JSON + metadata JSON) is capped by
// SERVICE_MAX_STORED_PAGE_BYTES, frontmatter by its own caps (issue 18 finding 5: a 9 MiB
// frontmatter plus 5 metadata patches stored 56 MB of revisions).

let srv: TestServer;
let small: TestServer;
beforeAll(async () => {
  srv = await startServer();
  small = await startServer({ SERVICE_MAX_STORED_PAGE_BYTES: '100000', SERVICE_MAX_PAGE_BYTES: '80000' });
  await srv.admin.post('/spaces', { slug: 'kb', name: 'KB' });
  await small.admin.post('/spaces', { slug: 'kb', name: 'KB' });
});
afterAll(async () => {
  await srv.close();
  await small.close();
});

const bundleOf = (pages: unknown[]) => ({
  format: 'service-space-export',
  formatVersion: 1,
  exportedAt: new Date().toISOString(),
  space: { slug: 'x', name: 'X', description: '' },
  pages,
});

describe('stored page size', () => {
  it('refuses a 9 MiB frontmatter with 413 naming frontmatter', async () => {
    const r = await srv.admin.put('/pages/kb/big', { title: 'Big', frontmatter: { blob: 'x'.repeat(9 * 1024 * 1024) } });
    expect(r.status).toBe(413);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(r.body.issues[0].key).toBe('frontmatter');
    expect((await srv.admin.get('/pages/kb/big')).status).toBe(404);
  });

  it('caps the number of frontmatter keys', async () => {
    const fm = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, i]));
    const r = await srv.admin.put('/pages/kb/keys', { title: 'Keys', frontmatter: fm });
    expect(r.status).toBe(400);
    expect(r.body.issues[0]).toMatchObject({ key: 'frontmatter', code: 'max' });
  });

  it('refuses a PUT whose content, frontmatter and metadata together pass the cap, naming the biggest field', async () => {
    const r = await small.admin.put('/pages/kb/a', { title: 'A', content: 'c'.repeat(70_000), frontmatter: { note: 'f'.repeat(40_000) } });
    expect(r.status).toBe(413);
    expect(r.body.issues[0].key).toBe('content');
    expect(r.body.detail).toContain('100000');
    const ok = await small.admin.put('/pages/kb/a', { title: 'A', content: 'c'.repeat(70_000), frontmatter: { note: 'f'.repeat(20_000) } });
    expect(ok.status).toBe(201);
  });

  it('refuses a metadata patch that takes the page past the cap, naming metadata, and writes nothing', async () => {
    await small.admin.put('/pages/kb/m', { title: 'M', content: 'c'.repeat(60_000) });
    const patch = { set: { list: Array.from({ length: 4 }, (_, i) => `${i}`.repeat(15_000)) } };
    const r = await small.admin.patch('/pages/kb/m/metadata', patch);
    expect(r.status).toBe(413);
    expect(r.body.issues[0].key).toBe('metadata');
    expect((await small.admin.get('/pages/kb/m')).body.version).toBe(1);
  });

  it('reports an imported page past the cap as an import error naming the field', async () => {
    const r = await small.admin.post(
      '/spaces/imp/import',
      bundleOf([
        { path: 'ok', title: 'OK', content: 'fine' },
        {
          path: 'fat',
          title: 'Fat',
          content: 'x',
          metadata: {
            a: 'a'.repeat(15_000),
            b: 'b'.repeat(15_000),
            c: 'c'.repeat(15_000),
            d: 'd'.repeat(15_000),
            e: 'e'.repeat(15_000),
            f: 'f'.repeat(15_000),
            g: 'g'.repeat(15_000),
          },
        },
      ]),
    );
    expect(r.status).toBe(200);
    expect(r.body.created).toBe(1);
    expect(r.body.errors).toEqual([
      expect.objectContaining({ path: 'fat', code: 'payload_too_large', issues: [expect.objectContaining({ key: 'metadata' })] }),
    ]);
  });
});
