// Property: whatever the spaces, page ACLs, links and metadata, no output of search, metadata
// search, key discovery, links, broken links or page lists ever contains or counts a page its
// caller may not read, and none leaves out a page it may read. The ground truth is GET of each
// page as each caller (canReadPage); the listings are SQL (READABLE_PAGE, READABLE_GROUP), so
// this holds the two encodings of the rules together.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newAgent, startServer, type Client, type TestServer } from '../support/server.ts';

let srv: TestServer;
let agents: Array<Client & { id: string; name: string }>;
beforeAll(async () => {
  srv = await startServer();
  agents = [];
  for (const name of ['ann', 'ben', 'cy']) agents.push(Object.assign(await newAgent(srv, name), { name }));
});
afterAll(() => srv.close());

type Meta = { a?: number | string | string[]; b?: number };
type PageSpec = {
  space: number;
  acl: { read: number[]; write: number[] } | null;
  words: string[];
  meta: Meta;
  links: number[];
  deleted: boolean;
};
type Scenario = { access: [string, string]; pages: PageSpec[] };

const ACCESS = ['write', 'read', 'none'] as const;
const pageArb: fc.Arbitrary<PageSpec> = fc.record({
  space: fc.integer({ min: 0, max: 2 }), // 2 = ann's personal space
  acl: fc.option(fc.record({ read: fc.subarray([0, 1, 2]), write: fc.subarray([0, 1, 2]) }), { nil: null, freq: 2 }),
  words: fc.subarray(['alpha', 'beta'], { minLength: 1 }),
  meta: fc.record(
    {
      a: fc.option(
        fc.oneof(
          fc.integer({ min: 0, max: 3 }),
          fc.constantFrom('x', 'y'),
          fc.array(fc.constantFrom('x', 'y'), { minLength: 1, maxLength: 2 }),
        ),
        { nil: undefined },
      ),
      b: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
    },
    { requiredKeys: [] },
  ),
  links: fc.array(fc.integer({ min: 0, max: 11 }), { maxLength: 3 }),
  deleted: fc.integer({ min: 0, max: 5 }).map((x) => x === 0),
});
const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  access: fc.tuple(fc.constantFrom(...ACCESS), fc.constantFrom(...ACCESS)),
  pages: fc.array(pageArb, { minLength: 3, maxLength: 9 }),
});

let run = 0;

async function check(sc: Scenario): Promise<void> {
  run++;
  const admin = srv.admin;
  const ann = agents[0];
  const callers: Client[] = [admin, ...agents];
  const slugs = [`r${run}s0`, `r${run}s1`, `~${ann.name}`];
  for (let s = 0; s < 2; s++)
    expect((await admin.post('/spaces', { slug: slugs[s], name: slugs[s], defaultAccess: sc.access[s] })).status).toBe(201);
  const word = (w: string) => `zq${run}${w}`;
  const keyA = `r${run}a`;
  const keyB = `r${run}b`;
  const addr = (i: number) =>
    i < sc.pages.length ? { space: slugs[sc.pages[i].space], path: `r${run}/p${i}` } : { space: slugs[i % 2], path: `r${run}/absent${i}` };
  const key = (a: { space: string; path: string }) => `${a.space}/${a.path}`;

  // Write the pages (ann writes her own space; admin the shared ones), then ACLs, then deletes.
  for (const [i, p] of sc.pages.entries()) {
    const writer = p.space === 2 ? ann : admin;
    const metadata: Record<string, unknown> = {};
    if (p.meta.a !== undefined) metadata[keyA] = p.meta.a;
    if (p.meta.b !== undefined) metadata[keyB] = p.meta.b;
    const content = `${p.words.map(word).join(' ')} ${p.links.map((t) => `[l](/pages/${addr(t).space}/${addr(t).path})`).join(' ')}`;
    const a = addr(i);
    expect((await writer.put(`/pages/${a.space}/${a.path}`, { title: `T${i}`, content, metadata })).status).toBe(201);
    if (p.acl) {
      const ids = (xs: number[]) => xs.map((x) => agents[x].id);
      expect((await writer.put(`/pages/${a.space}/${a.path}/acl`, { read: ids(p.acl.read), write: ids(p.acl.write) })).status).toBe(200);
    }
  }
  for (const [i, p] of sc.pages.entries()) {
    if (p.deleted) expect((await (p.space === 2 ? ann : admin).del(`/pages/${addr(i).space}/${addr(i).path}`)).status).toBe(204);
  }

  for (const c of callers) {
    // Ground truth: the pages this caller can GET.
    const readable = new Set<number>();
    for (let i = 0; i < sc.pages.length; i++) {
      const r = await c.get(`/pages/${key(addr(i))}`);
      expect([200, 404]).toContain(r.status);
      if (r.status === 200) readable.add(i);
    }
    const readableAddr = new Set([...readable].map((i) => key(addr(i))));
    const expectSet = (got: string[], want: Iterable<string>, what: string) => {
      expect(new Set(got).size, `${what}: duplicates`).toBe(got.length);
      expect([...got].sort(), what).toEqual([...want].sort());
    };

    // Full-text search, paged two at a time.
    for (const w of ['alpha', 'beta']) {
      const got = await collect(c, `/search?q=${word(w)}&limit=2`, 'hits');
      expectSet(
        got,
        [...readable].filter((i) => sc.pages[i].words.includes(w)).map((i) => key(addr(i))),
        `search ${w}`,
      );
    }
    // Metadata search, ordered and paged.
    const filters = encodeURIComponent(JSON.stringify([{ key: keyA, op: 'exists' }]));
    const metaHits = await collect(c, `/search/metadata?filters=${filters}&orderBy=${keyB}&limit=2`, 'pages');
    expectSet(
      metaHits,
      [...readable].filter((i) => sc.pages[i].meta.a !== undefined).map((i) => key(addr(i))),
      'metadata search',
    );
    // Key discovery.
    const keys = (await c.get('/search/metadata/keys')).body as Array<{ key: string; types: string[]; pages: number }>;
    for (const [k, pick] of [
      [keyA, (m: Meta) => m.a],
      [keyB, (m: Meta) => m.b],
    ] as const) {
      const holders = [...readable].filter((i) => pick(sc.pages[i].meta) !== undefined);
      const types = new Set<string>();
      for (const i of holders) {
        const v = pick(sc.pages[i].meta)!;
        if (Array.isArray(v)) types.add('list').add('string');
        else types.add(typeof v);
      }
      const found = keys.find((x) => x.key === k);
      if (holders.length === 0) expect(found, `keys ${k}`).toBeUndefined();
      else expect(found, `keys ${k}`).toEqual({ key: k, types: [...types].sort(), pages: holders.length });
    }
    // Outbound and backlinks of every page.
    for (let i = 0; i < sc.pages.length; i++) {
      const r = await c.get(`/pages/${key(addr(i))}/links`);
      if (!readable.has(i)) {
        expect(r.status).toBe(404);
        continue;
      }
      const targets = [...new Set(sc.pages[i].links.map((t) => key(addr(t))))];
      expect(
        r.body.outbound.map((o: any) => `${key(o)} ${o.exists}`),
        'outbound',
      ).toEqual(targets.map((t) => `${t} ${readableAddr.has(t)}`));
      const sources = [...readable].filter((j) => sc.pages[j].links.some((t) => key(addr(t)) === key(addr(i))));
      expectSet(
        r.body.backlinks.map((b: any) => key(b)),
        sources.map((j) => key(addr(j))),
        'backlinks',
      );
    }
    // Broken links and page lists of each space.
    for (let s = 0; s < 3; s++) {
      const seen = (await c.get(`/spaces/${slugs[s]}`)).status === 200;
      // Every page of the answer (earlier runs' links fill the first ones): the Link header names the next.
      const broken = await c.get(`/spaces/${slugs[s]}/links/broken?limit=1000`);
      for (let next = broken.headers.get('link'); next; ) {
        const more = await c.get(/<([^>]+)>/.exec(next)![1]);
        broken.body.push(...more.body);
        next = more.headers.get('link');
      }
      const list = await collect(c, `/spaces/${slugs[s]}/pages?prefix=r${run}/&limit=2`, 'pages', slugs[s]);
      const inSpace = [...readable].filter((i) => sc.pages[i].space === s);
      if (!seen) {
        expect(broken.status).toBe(404);
        expect(inSpace).toEqual([]);
        continue;
      }
      const want = inSpace.flatMap((i) =>
        [...new Set(sc.pages[i].links.map((t) => key(addr(t))))].filter((t) => !readableAddr.has(t)).map((t) => `${key(addr(i))} -> ${t}`),
      );
      const got = (broken.body as any[])
        .map((b) => `${key(b.source)} -> ${key(b.target)}`)
        .filter((b) => b.startsWith(`${slugs[s]}/r${run}/`));
      expectSet(got, want, `broken ${slugs[s]}`);
      expectSet(
        list,
        inSpace.map((i) => key(addr(i))),
        `pages of ${slugs[s]}`,
      );
    }
  }
}

/** Every item of a paged list, following nextCursor. */
async function collect(c: Client, url: string, field: 'hits' | 'pages', space?: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = '';
  for (let n = 0; n < 50; n++) {
    const r = await c.get(url + (cursor ? `&cursor=${cursor}` : ''));
    if (r.status === 404 && space) return out;
    expect(r.status, `${url}: ${r.text}`).toBe(200);
    out.push(...r.body[field].map((h: any) => `${h.space ?? space}/${h.path}`));
    if (!r.body.nextCursor) return out;
    cursor = r.body.nextCursor;
  }
  throw new Error('no end');
}

it('no output ever shows or counts a page its caller may not read', async () => {
  await fc.assert(fc.asyncProperty(scenarioArb, check), { numRuns: 50, endOnFailure: true });
  expect(srv.errors).toEqual([]);
}, 120_000);
