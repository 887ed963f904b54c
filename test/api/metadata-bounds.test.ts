import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.ts';

// Issue 18: a page with 200 lists of 1,000 items took 0.65 s to write and 0.9 s to patch one
// key (every metadata index row deleted and written again). The items of one page are capped,
// and a patch rewrites the index rows of the keys it changes only.

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ SERVICE_MAX_METADATA_ITEMS: '5000' });
  await srv.admin.post('/spaces', { slug: 'm', name: 'M' });
});
afterAll(() => srv.close());

const list = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`);
const changes = () => srv.svc.db.prepare('SELECT total_changes()').pluck().get() as number;
const indexRows = (path: string) =>
  srv.svc.db
    .prepare(`SELECT m.key, count(*) AS n FROM page_meta m JOIN pages p ON p.id = m.page_id
  WHERE p.path = ? GROUP BY m.key ORDER BY m.key`)
    .all(path);
/** The rows indexRows answers for `counts` (key → rows), in the order written. */
const rowsOf = (counts: Record<string, number>) => Object.entries(counts).map(([key, n]) => ({ key, n }));

describe('metadata items per page', () => {
  it('refuses a page whose metadata holds more items than SERVICE_MAX_METADATA_ITEMS, naming metadata', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`l${i}`, list(1000, 'x')]));
    const r = await srv.admin.put('/pages/m/too-many', { title: 'T', metadata });
    expect(r.status).toBe(400);
    expect(r.body.issues[0]).toMatchObject({ key: 'metadata', code: 'max' });
    expect(r.body.issues[0].message).toContain('5000');
    expect(
      (
        await srv.admin.put('/pages/m/fits', {
          title: 'T',
          metadata: { l0: metadata.l0, l1: metadata.l1, l2: metadata.l2, l3: metadata.l3, one: 'x' },
        })
      ).status,
    ).toBe(201);
    const grown = await srv.admin.patch('/pages/m/fits/metadata', { appendUnique: { more: list(1000, 'y') } });
    expect(grown.status).toBe(400);
    expect(grown.body.issues[0]).toMatchObject({ key: 'metadata', code: 'max' });
  });

  it("a patch of one key rewrites only that key's index rows", async () => {
    const metadata = Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`l${i}`, list(1000, 'x')]));
    expect((await srv.admin.put('/pages/m/big', { title: 'Big', metadata: { ...metadata, stage: 'todo' } })).status).toBe(201);
    const before = changes();
    const r = await srv.admin.patch('/pages/m/big/metadata', { set: { stage: 'doing', points: 3 } });
    expect(r.status).toBe(200);
    expect(changes() - before).toBeLessThan(100); // the revision, the page, 2 index rows, stats, events…
    expect(indexRows('big')).toEqual(rowsOf({ l0: 1000, l1: 1000, l2: 1000, l3: 1000, points: 1, stage: 1 }));
    const found = await srv.admin.get(
      `/search/metadata?filters=${encodeURIComponent(
        JSON.stringify([
          { key: 'stage', op: 'eq', value: 'doing' },
          { key: 'l2', op: 'contains', value: 'x999' },
        ]),
      )}`,
    );
    expect(found.body.pages.map((p: { path: string }) => p.path)).toEqual(['big']);
    // Removing a list and shrinking another touch those keys only, and the index follows.
    const pagesWith = async (key: string) =>
      ((await srv.admin.get('/search/metadata/keys?space=m')).body as Array<{ key: string; pages: number }>).find((k) => k.key === key)
        ?.pages ?? 0;
    const l0Before = await pagesWith('l0');
    const r2 = await srv.admin.patch('/pages/m/big/metadata', { set: { l0: null, l1: ['a', 'b'] } });
    expect(r2.status).toBe(200);
    expect(indexRows('big')).toEqual(rowsOf({ l1: 2, l2: 1000, l3: 1000, points: 1, stage: 1 }));
    expect(await pagesWith('l0')).toBe(l0Before - 1);
    expect(await pagesWith('points')).toBe(1);
  });
});
