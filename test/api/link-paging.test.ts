import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.ts';

// GET /pages/:space/:path/links and GET /spaces/:slug/links/broken page with `limit` (1–1000,
// default 50) and an opaque `cursor` (issue 18 finding 7: 5.7 MB for one page with 60k links).
// The contract fixes both shapes: `nextCursor` beside outbound/backlinks, and for the bare array
// of broken links a `Link: <…>; rel="next"` header (docs/search.md).

let srv: TestServer;
const N = 130;
const targets = Array.from({ length: N }, (_, i) => `t/${String(i).padStart(3, '0')}`);
beforeAll(async () => {
  srv = await startServer();
  await srv.admin.post('/spaces', { slug: 'kb', name: 'KB' });
  await srv.admin.put('/pages/kb/hub', { title: 'Hub', content: targets.map((t) => `[${t}](/pages/kb/${t})`).join('\n') });
  for (let i = 0; i < N; i++)
    await srv.admin.put(`/pages/kb/src/${String(i).padStart(3, '0')}`, { title: `S${i}`, content: '[hub](/pages/kb/hub)' });
});
afterAll(() => srv.close());

type Links = { outbound: Array<{ path: string }>; backlinks: Array<{ path: string }>; nextCursor: string | null };

const nextLink = (h: Headers): string | null => {
  const m = /<([^>]+)>;\s*rel="next"/.exec(h.get('link') ?? '');
  return m ? m[1] : null;
};

describe('GET /pages/:space/:path/links', () => {
  it('pages outbound links and backlinks together, nextCursor beside them', async () => {
    const first = await srv.admin.get<Links>('/pages/kb/hub/links');
    expect(first.body.outbound.length).toBe(50);
    expect(first.body.backlinks.length).toBe(50);
    expect(typeof first.body.nextCursor).toBe('string');
    const outbound: string[] = [];
    const backlinks: string[] = [];
    let cursor: string | null = null;
    let requests = 0;
    do {
      const r: { status: number; body: Links } = await srv.admin.get<Links>(
        `/pages/kb/hub/links?limit=40${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(r.status).toBe(200);
      outbound.push(...r.body.outbound.map((l) => l.path));
      backlinks.push(...r.body.backlinks.map((l) => l.path));
      cursor = r.body.nextCursor;
      requests++;
    } while (cursor);
    expect(requests).toBe(4);
    expect(outbound).toEqual(targets);
    expect(backlinks).toEqual(Array.from({ length: N }, (_, i) => `src/${String(i).padStart(3, '0')}`));
  });

  it('answers everything in one page up to limit=1000', async () => {
    const r = await srv.admin.get<Links>('/pages/kb/hub/links?limit=1000');
    expect([r.body.outbound.length, r.body.backlinks.length, r.body.nextCursor]).toEqual([N, N, null]);
  });

  it.each(['0', '1001', 'x', '2.5'])('refuses limit=%s with 400 naming limit', async (limit) => {
    const r = await srv.admin.get(`/pages/kb/hub/links?limit=${limit}`);
    expect(r.status).toBe(400);
    expect(r.body.issues[0].key).toBe('limit');
  });

  it('refuses a cursor it did not issue', async () => {
    const r = await srv.admin.get('/pages/kb/hub/links?cursor=bm9wZQ');
    expect(r.status).toBe(400);
    expect(r.body.issues[0].key).toBe('cursor');
  });
});

describe('GET /spaces/:slug/links/broken', () => {
  it('stays a bare array, 50 by default, the next page in a Link header', async () => {
    const seen: string[] = [];
    let url: string | null = '/spaces/kb/links/broken';
    let requests = 0;
    while (url) {
      const r: { status: number; body: Array<{ source: { path: string }; target: { path: string } }>; headers: Headers } =
        await srv.admin.get(url);
      expect(r.status).toBe(200);
      expect(Array.isArray(r.body)).toBe(true);
      if (requests === 0) expect(r.body.length).toBe(50);
      seen.push(...r.body.map((b) => b.target.path));
      url = nextLink(r.headers);
      requests++;
    }
    expect(requests).toBe(3);
    expect(seen).toEqual(targets);
  });

  it('takes limit up to 1000 and sends no Link header on the last page', async () => {
    const r = await srv.admin.get('/spaces/kb/links/broken?limit=1000');
    expect(r.body.length).toBe(N);
    expect(r.headers.get('link')).toBeNull();
    expect((await srv.admin.get('/spaces/kb/links/broken?limit=1001')).status).toBe(400);
  });
});
