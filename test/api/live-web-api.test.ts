// What the web app's live updates and home view ask of the API: `since=now` on the change feed
// (a tab follows from the newest txid without reading the changes kept before it) and
// `sort=edited` on GET /search/metadata (pages by their last edit, from the revisions).
import { afterEach, describe, expect, it } from 'vitest';
import { planner } from '../../src/domain/search/metadata-query.ts';
import { readEvents, type SseEvent } from '../../src/client/changes.ts';
import { useServer } from '../support/fixture.ts';

const { srv, bob } = useServer({
  // Over the port only: each write's X-Service-Txid is stamped by the Node front (docs/testing.md).
  transport: 'port',
  agents: ['bob'],
  spaces: [
    { slug: 'wiki', name: 'Wiki' },
    { slug: 'vault', name: 'Vault', defaultAccess: 'none' },
  ],
  noErrors: true,
});
afterEach(() => {
  planner.threshold = null;
});

const txidOf = (r: { headers: Headers }) => Number(r.headers.get('x-service-txid'));
const must = async (p: Promise<{ status: number; text: string; headers: Headers }>) => {
  const r = await p;
  expect(r.status, r.text).toBeLessThan(300);
  return r;
};

describe('since=now', () => {
  it('GET /changes?since=now answers no change and the newest txid; following from it gets the next change only', async () => {
    await must(bob.put('/pages/wiki/n1', { title: 'N1', content: '' }));
    const last = await must(bob.put('/pages/wiki/n1', { content: 'two' }));
    const now = await bob.get('/changes?since=now');
    expect(now.status).toBe(200);
    expect(now.body).toEqual({ changes: [], nextSince: txidOf(last) });
    const next = await must(bob.put('/pages/wiki/n2', { title: 'N2', content: '' }));
    const after = await bob.get(`/changes?since=${now.body.nextSince}`);
    expect(after.body.changes.map((c: { path: string; txid: number }) => [c.path, c.txid])).toEqual([['n2', txidOf(next)]]);
    const bad = await bob.get('/changes?since=later');
    expect(bad.status).toBe(400);
    expect(bad.body.issues.map((i: { key: string }) => i.key)).toEqual(['since']);
  });

  it('a stream opened with since=now names the newest txid first, sends nothing older, then each new change', async () => {
    const before = await must(bob.put('/pages/wiki/s1', { title: 'S1', content: '' }));
    const ac = new AbortController();
    const res = await fetch(`${srv.url}/changes/stream?since=now`, { headers: { authorization: `Bearer ${bob.key}` }, signal: ac.signal });
    expect(res.status).toBe(200);
    const events: SseEvent[] = [];
    const reading = (async () => {
      try {
        for await (const e of readEvents(res.body!)) events.push(e);
      } catch {
        /* aborted */
      }
    })();
    const until = async (cond: () => boolean) => {
      const end = Date.now() + 10_000;
      while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      expect(cond()).toBe(true);
    };
    await until(() => events.some((e) => e.comment?.startsWith('txid ')));
    expect(events.find((e) => e.comment?.startsWith('txid '))?.comment).toBe(`txid ${txidOf(before)}`);
    const w = await must(bob.put('/pages/wiki/s1', { content: 'new' }));
    await until(() => events.some((e) => e.event === 'change'));
    const changes = events.filter((e) => e.event === 'change');
    expect(changes.map((e) => e.id)).toEqual([String(txidOf(w))]);
    ac.abort();
    await reading;
  });
});

describe('GET /search/metadata?sort=edited', () => {
  const paths = (r: { body: { pages: Array<{ space: string; path: string }> } }) => r.body.pages.map((p) => `${p.space}/${p.path}`);

  it('lists the pages a caller may read by their last edit, newest first, in either walk, paged by cursor', async () => {
    for (const p of ['a', 'b', 'c'])
      await must(srv.admin.put(`/pages/wiki/e/${p}`, { title: p.toUpperCase(), content: '', metadata: { kind: 'e' } }));
    await must(srv.admin.put('/pages/vault/secret', { title: 'Secret', content: '', metadata: { kind: 'e' } }));
    await must(srv.admin.put('/pages/wiki/e/a', { content: 'edited', metadata: { kind: 'e' } })); // a: the newest edit
    // A move writes no revision: the moved page keeps its place. A deleted page is left out.
    await must(srv.admin.post('/spaces/wiki/moves', { from: 'e/b', to: 'e/b2' }));
    await must(srv.admin.put('/pages/wiki/e/d', { title: 'D', content: '', metadata: { kind: 'e' } }));
    await must(srv.admin.req('DELETE', '/pages/wiki/e/d'));
    const filters = encodeURIComponent(JSON.stringify([{ key: 'kind', op: 'eq', value: 'e' }]));
    for (const threshold of [0, 1_000_000]) {
      // 0: the walk over revisions; a million: driven by the filter
      planner.threshold = threshold;
      const all = await bob.get(`/search/metadata?sort=edited&filters=${filters}`);
      expect(all.status, all.text).toBe(200);
      expect(paths(all)).toEqual(['wiki/e/a', 'wiki/e/c', 'wiki/e/b2']);
      expect(paths(await srv.admin.get(`/search/metadata?sort=edited&filters=${filters}`))).toEqual([
        'wiki/e/a',
        'vault/secret',
        'wiki/e/c',
        'wiki/e/b2',
      ]);
      expect(paths(await bob.get(`/search/metadata?sort=edited&order=asc&filters=${filters}`))).toEqual([
        'wiki/e/b2',
        'wiki/e/c',
        'wiki/e/a',
      ]);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const r: { status: number; body: { pages: Array<{ space: string; path: string }>; nextCursor: string | null } } = await bob.get(
          `/search/metadata?sort=edited&filters=${filters}&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        expect(r.status).toBe(200);
        seen.push(...paths(r));
        cursor = r.body.nextCursor;
      } while (cursor);
      expect(seen).toEqual(['wiki/e/a', 'wiki/e/c', 'wiki/e/b2']);
    }
    // Without filters, the newest edit of all comes first (and only once, however often it was edited).
    const head = await bob.get('/search/metadata?sort=edited&space=wiki&limit=2');
    expect(paths(head)).toEqual(['wiki/e/a', 'wiki/e/c']);
  });

  it('refuses a sort other than edited, and sort with orderBy, naming the field', async () => {
    const bad = await bob.get('/search/metadata?sort=created');
    expect(bad.status).toBe(400);
    expect(bad.body.issues.map((i: { key: string }) => i.key)).toEqual(['sort']);
    const both = await bob.get('/search/metadata?sort=edited&orderBy=kind');
    expect(both.status).toBe(400);
    expect(both.body.issues.map((i: { key: string }) => i.key)).toEqual(['orderBy']);
  });
});
