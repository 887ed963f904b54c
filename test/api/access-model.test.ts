import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newAgent, startServer, type Client, type TestServer } from '../support/server.ts';

// Model-based test (fc.commands): random sequences of page writes, metadata patches, ACL changes,
// deletes and re-creates by an org admin and two members, run against the real server and an
// in-memory model of who may read and write what (the rules of docs/security.md). After every
// step a check command compares every read, list, search and count with the model.

type Who = 'admin' | 'ann' | 'bob';
const MEMBERS: Who[] = ['ann', 'bob'];
type Access = 'write' | 'read' | 'none';
const ACCESS: Access[] = ['write', 'read', 'none'];
const PATHS = ['p0', 'p1', 'd/p2'];

type PageModel = { word: 'alpha' | 'beta'; meta: number | null; acl: { read: Who[]; write: Who[] } | null };
type Model = { run: number; pages: Map<string, PageModel> }; // key: `${spaceIndex}/${path}`, live pages only
type Real = { run: number; clients: Record<Who, Client>; ids: Record<Who, string> };

const slug = (run: number, s: number) => `m${run}s${s}`;
const word = (run: number, w: string) => `zq${run}m${w}`;
const metaKey = (run: number) => `m${run}k`;
const keyOf = (s: number, path: string) => `${s}/${path}`;
const url = (run: number, s: number, path: string) => `/pages/${slug(run, s)}/${path}`;

function canRead(who: Who, s: number, p: PageModel): boolean {
  if (who === 'admin') return true;
  if (!p.acl) return ACCESS[s] !== 'none';
  return p.acl.read.includes(who) || p.acl.write.includes(who);
}
function canWrite(who: Who, s: number, p: PageModel): boolean {
  if (who === 'admin') return true;
  if (!p.acl) return ACCESS[s] === 'write';
  return p.acl.write.includes(who);
}
const canCreate = (who: Who, s: number) => who === 'admin' || ACCESS[s] === 'write';
function canSeeSpace(m: Model, who: Who, s: number): boolean {
  if (who === 'admin' || ACCESS[s] !== 'none') return true;
  return [...m.pages].some(([k, p]) => k.startsWith(`${s}/`) && p.acl !== null && (p.acl.read.includes(who) || p.acl.write.includes(who)));
}

/** Refusals: 403 when the caller may read the page, else 404 (an unreadable page is absent). */
function expectRefused(status: number, m: Model, who: Who, s: number, p: PageModel | undefined): void {
  if (p && canRead(who, s, p)) expect(status).toBe(403);
  else expect([403, 404]).toContain(status);
  if (!canSeeSpace(m, who, s)) expect(status).toBe(404);
}

/** A step on page `path` of space `s`, taken by `who`; always applicable. */
abstract class PageCommand implements fc.AsyncCommand<Model, Real> {
  readonly who: Who;
  readonly s: number;
  readonly path: string;
  constructor(who: Who, s: number, path: string) {
    this.who = who;
    this.s = s;
    this.path = path;
  }
  check = () => true;
  abstract run(m: Model, r: Real): Promise<void>;
  /** The page's key in the model and its model (none when it does not exist). */
  protected page(m: Model): { k: string; p: PageModel | undefined } {
    const k = keyOf(this.s, this.path);
    return { k, p: m.pages.get(k) };
  }
  /** The page's address on the server. */
  protected at(r: Real): string {
    return url(r.run, this.s, this.path);
  }
}

class PutPage extends PageCommand {
  readonly w: 'alpha' | 'beta';
  readonly meta: number | null;
  constructor(who: Who, s: number, path: string, w: 'alpha' | 'beta', meta: number | null) {
    super(who, s, path);
    this.w = w;
    this.meta = meta;
  }
  async run(m: Model, r: Real) {
    const { k, p } = this.page(m);
    const body = {
      title: this.path,
      content: `${word(r.run, this.w)} text`,
      metadata: this.meta === null ? {} : { [metaKey(r.run)]: this.meta },
    };
    const res = await r.clients[this.who].put(this.at(r), body);
    if (p ? canWrite(this.who, this.s, p) : canCreate(this.who, this.s)) {
      expect(res.status, res.text).toBe(p ? 200 : 201);
      m.pages.set(k, { word: this.w, meta: this.meta, acl: p?.acl ?? null });
    } else {
      expectRefused(res.status, m, this.who, this.s, p);
    }
  }
  toString = () => `put(${this.who}, ${this.s}/${this.path}, ${this.w}, ${this.meta})`;
}

class PatchMeta extends PageCommand {
  readonly meta: number | null;
  constructor(who: Who, s: number, path: string, meta: number | null) {
    super(who, s, path);
    this.meta = meta;
  }
  async run(m: Model, r: Real) {
    const { p } = this.page(m);
    const res = await r.clients[this.who].patch(`${this.at(r)}/metadata`, { set: { [metaKey(r.run)]: this.meta } });
    if (p && canWrite(this.who, this.s, p)) {
      expect(res.status, res.text).toBe(200);
      p.meta = this.meta;
    } else {
      expectRefused(res.status, m, this.who, this.s, p);
    }
  }
  toString = () => `patch(${this.who}, ${this.s}/${this.path}, ${this.meta})`;
}

class SetAcl extends PageCommand {
  readonly acl: { read: Who[]; write: Who[] } | null;
  constructor(who: Who, s: number, path: string, acl: { read: Who[]; write: Who[] } | null) {
    super(who, s, path);
    this.acl = acl;
  }
  async run(m: Model, r: Real) {
    const { p } = this.page(m);
    const c = r.clients[this.who];
    const target = `${this.at(r)}/acl`;
    const res = this.acl
      ? await c.put(target, { read: this.acl.read.map((w) => r.ids[w]), write: this.acl.write.map((w) => r.ids[w]) })
      : await c.del(target);
    if (p && canWrite(this.who, this.s, p)) {
      expect(res.status, res.text).toBe(200);
      expect(res.body.restricted).toBe(this.acl !== null);
      p.acl = this.acl;
    } else {
      expectRefused(res.status, m, this.who, this.s, p);
    }
  }
  toString = () => `acl(${this.who}, ${this.s}/${this.path}, ${JSON.stringify(this.acl)})`;
}

class DeletePage extends PageCommand {
  async run(m: Model, r: Real) {
    const { k, p } = this.page(m);
    const res = await r.clients[this.who].del(this.at(r));
    if (p && this.who === 'admin') {
      expect(res.status, res.text).toBe(204);
      m.pages.delete(k); // its ACL goes with it
    } else if (!p) {
      expect(res.status).toBe(404);
    } else {
      expectRefused(res.status, m, this.who, this.s, p);
    }
  }
  toString = () => `delete(${this.who}, ${this.s}/${this.path})`;
}

/** Every read, list, search and count agrees with the model, for every caller. */
class CheckAll implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real) {
    for (const who of ['admin', ...MEMBERS] as Who[]) {
      const c = r.clients[who];
      const readable = [...m.pages].filter(([k, p]) => canRead(who, Number(k.split('/')[0]), p));
      const addr = (k: string) => `${slug(r.run, Number(k.split('/')[0]))}/${k.slice(k.indexOf('/') + 1)}`;
      for (let s = 0; s < 3; s++) {
        for (const path of PATHS) {
          const p = m.pages.get(keyOf(s, path));
          const res = await c.get(url(r.run, s, path));
          if (p && canRead(who, s, p)) {
            expect(res.status, `${who} GET ${s}/${path}`).toBe(200);
            expect(res.body.content).toContain(word(r.run, p.word));
            expect(res.body.metadata[metaKey(r.run)] ?? null).toBe(p.meta);
          } else {
            expect(res.status, `${who} GET ${s}/${path}`).toBe(404);
          }
        }
        const list = await c.get(`/spaces/${slug(r.run, s)}/pages?limit=200`);
        if (!canSeeSpace(m, who, s)) {
          expect(list.status, `${who} lists space ${s}`).toBe(404);
          continue;
        }
        expect(list.status, list.text).toBe(200);
        const want = readable
          .filter(([k]) => k.startsWith(`${s}/`))
          .map(([k]) => k.slice(k.indexOf('/') + 1))
          .sort();
        expect(list.body.pages.map((x: { path: string }) => x.path).sort(), `${who} lists space ${s}`).toEqual(want);
      }
      for (const w of ['alpha', 'beta'] as const) {
        const res = await c.get(`/search?q=${word(r.run, w)}&limit=200`);
        expect(res.status, res.text).toBe(200);
        const want = readable
          .filter(([, p]) => p.word === w)
          .map(([k]) => addr(k))
          .sort();
        expect(res.body.hits.map((h: { space: string; path: string }) => `${h.space}/${h.path}`).sort(), `${who} searches ${w}`).toEqual(
          want,
        );
      }
      const withMeta = readable.filter(([, p]) => p.meta !== null);
      const filters = encodeURIComponent(JSON.stringify([{ key: metaKey(r.run), op: 'exists' }]));
      const found = await c.get(`/search/metadata?filters=${filters}&limit=200`);
      expect(found.status, found.text).toBe(200);
      expect(found.body.pages.map((h: { space: string; path: string }) => `${h.space}/${h.path}`).sort(), `${who} metadata search`).toEqual(
        withMeta.map(([k]) => addr(k)).sort(),
      );
      const keys = (await c.get('/search/metadata/keys')).body as Array<{ key: string; pages: number }>;
      expect(keys.find((x) => x.key === metaKey(r.run))?.pages ?? 0, `${who} key count`).toBe(withMeta.length);
    }
  }
  toString = () => 'check';
}

let srv: TestServer;
let clients: Record<Who, Client>;
let ids: Record<Who, string>;
let run = 0;
beforeAll(async () => {
  srv = await startServer();
  const ann = await newAgent(srv, 'model-ann');
  const bob = await newAgent(srv, 'model-bob');
  clients = { admin: srv.admin, ann, bob };
  ids = { admin: (await srv.admin.get('/me')).body.id, ann: ann.id, bob: bob.id };
});
afterAll(() => srv.close());

const who = fc.constantFrom<Who>('admin', 'ann', 'bob');
const space = fc.integer({ min: 0, max: 2 });
const path = fc.constantFrom(...PATHS);
const meta = fc.option(fc.integer({ min: 0, max: 9 }), { nil: null, freq: 3 });
const aclArb = fc.option(fc.record({ read: fc.subarray(MEMBERS), write: fc.subarray(MEMBERS) }), { nil: null, freq: 3 });
const commands = fc.commands(
  [
    fc
      .tuple(who, space, path, fc.constantFrom<'alpha' | 'beta'>('alpha', 'beta'), meta)
      .map(([a, b, c, d, e]) => new PutPage(a, b, c, d, e)),
    fc.tuple(who, space, path, meta).map(([a, b, c, d]) => new PatchMeta(a, b, c, d)),
    fc.tuple(who, space, path, aclArb).map(([a, b, c, d]) => new SetAcl(a, b, c, d)),
    fc.tuple(who, space, path).map(([a, b, c]) => new DeletePage(a, b, c)),
    fc.constant(new CheckAll()),
  ],
  { maxCommands: 30 },
);

it('pages, metadata, ACLs, deletes and re-creates: every read, list, search and count agrees with the model', async () => {
  await fc.assert(
    fc.asyncProperty(commands, async (cmds) => {
      run++;
      for (let s = 0; s < 3; s++)
        expect((await srv.admin.post('/spaces', { slug: slug(run, s), name: `s${s}`, defaultAccess: ACCESS[s] })).status).toBe(201);
      await fc.asyncModelRun(() => ({ model: { run, pages: new Map() }, real: { run, clients, ids } }), [...cmds, new CheckAll()]);
    }),
    { numRuns: Number(process.env.MODEL_RUNS ?? 25), endOnFailure: true },
  );
  expect(srv.errors).toEqual([]);
}, 240_000);
