// GET /changes/stream over real HTTP: the wire format, history then live changes, resume with
// Last-Event-ID, heartbeats, the ACL, the cap on open streams, and the end of a stream when its
// key is revoked or its session signed out; and a replica streaming from its own copy.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createShipper } from '../../scripts/lib/shipper.ts';
import type { Change } from '../../src/model.ts';
import { readEvents, type SseEvent } from '../../src/client/changes.ts';
import { postSession } from '../support/sessions.ts';
import { ADMIN_KEY, newAgent, startServer, type Client, type TestServer } from '../support/server.ts';

let srv: TestServer;
let bob: Client & { id: string };
let carol: Client & { id: string };
beforeAll(async () => {
  srv = await startServer({ SERVICE_CHANGES_MAX_STREAMS: '10' });
  bob = await newAgent(srv, 'bob');
  carol = await newAgent(srv, 'carol');
  expect((await srv.admin.post('/spaces', { slug: 'wiki', name: 'Wiki', defaultAccess: 'write' })).status).toBe(201);
  expect((await srv.admin.post('/spaces', { slug: 'vault', name: 'Vault', defaultAccess: 'none' })).status).toBe(201);
});
afterAll(() => srv.close());
afterEach(() => expect(srv.errors).toEqual([]));

const txidOf = (r: { headers: Headers }) => Number(r.headers.get('x-service-txid'));

/** An open stream: its events as they come, and whether it has ended. */
type Open = { res: Response; events: SseEvent[]; ended: Promise<void>; done: boolean; close(): void };

async function open(base: string, headers: Record<string, string>, query = ''): Promise<Open> {
  const ac = new AbortController();
  const res = await fetch(`${base}/changes/stream${query}`, { headers, signal: ac.signal });
  const o: Open = { res, events: [], done: false, ended: Promise.resolve(), close: () => ac.abort() };
  if (res.status === 200) {
    o.ended = (async () => {
      try {
        for await (const e of readEvents(res.body!)) o.events.push(e);
      } catch {
        // aborted by the test
      }
      o.done = true;
    })();
  }
  return o;
}

const bearer = (c: Client) => ({ authorization: `Bearer ${c.key}` });
const changes = (o: Open) => o.events.filter((e) => e.event === 'change').map((e) => ({ id: e.id, ...(JSON.parse(e.data!) as Change) }));
const until = async (cond: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  expect(cond()).toBe(true);
};

describe('GET /changes/stream', () => {
  it('sends the changes since `since`, then each new one as `id: <txid>`, `event: change`, `data: <json>`', async () => {
    const first = await bob.put('/pages/wiki/s1', { title: 'S1', content: '' });
    const s = await open(srv.url, bearer(bob), `?since=${txidOf(first) - 1}&space=wiki`);
    expect(s.res.status).toBe(200);
    expect(s.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await until(() => changes(s).length === 1);
    const second = await bob.put('/pages/wiki/s1', { content: 'two' });
    await until(() => changes(s).length === 2);
    expect(changes(s).map((c) => [c.id, c.event, c.path, c.version])).toEqual([
      [String(txidOf(first)), 'page.created', 's1', 1],
      [String(txidOf(second)), 'page.updated', 's1', 2],
    ]);
    // A change elsewhere is not in a stream of this space.
    await srv.admin.put('/pages/vault/x', { title: 'X', content: '' });
    await bob.put('/pages/wiki/s1', { content: 'three' });
    await until(() => changes(s).length === 3);
    expect(changes(s)[2].version).toBe(3);
    s.close();
  });

  it('resumes after Last-Event-ID, which wins over since', async () => {
    const a = await bob.put('/pages/wiki/r1', { title: 'R1', content: '' });
    const b = await bob.put('/pages/wiki/r2', { title: 'R2', content: '' });
    const s = await open(srv.url, { ...bearer(bob), 'last-event-id': String(txidOf(a)) }, '?since=0&space=wiki');
    await until(() => changes(s).length >= 1);
    expect(changes(s).map((c) => c.path)).toEqual(['r2']);
    expect(changes(s)[0].txid).toBe(txidOf(b));
    s.close();
    const bad = await fetch(`${srv.url}/changes/stream`, { headers: { ...bearer(bob), 'last-event-id': 'abc' } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).issues[0].key).toBe('Last-Event-ID');
  });

  it('sends a comment line at least every SERVICE_CHANGES_HEARTBEAT_MS while nothing changes, past SERVICE_MAX_REQUEST_MS', async () => {
    // A stream is no request in progress: SERVICE_MAX_REQUEST_MS (1 s here, swept every second) leaves it open.
    const quiet = await startServer({ SERVICE_CHANGES_HEARTBEAT_MS: '300', SERVICE_MAX_REQUEST_MS: '1000' });
    try {
      const s = await open(quiet.url, { authorization: `Bearer ${ADMIN_KEY}` });
      const t0 = Date.now();
      const beats = () => s.events.filter((e) => e.comment === '').length;
      await until(() => beats() >= 3, 10_000);
      await until(() => Date.now() - t0 > 2500, 5000);
      const seen = beats();
      await until(() => beats() > seen, 5000);
      expect(s.done).toBe(false);
      s.close();
      expect(quiet.errors).toEqual([]);
    } finally {
      await quiet.close();
    }
  });

  it('shows a reader only the changes they may read, a move away as leaving', async () => {
    const start = txidOf(await srv.admin.put('/pages/wiki/c0', { title: 'C0', content: '' }));
    const s = await open(srv.url, bearer(carol), `?since=${start}`);
    await srv.admin.put('/pages/vault/secret', { title: 'Secret', content: '' });
    await srv.admin.put('/pages/wiki/c1', { title: 'C1', content: '' });
    expect((await srv.admin.post('/spaces/wiki/moves', { from: 'c1', to: 'c1', toSpace: 'vault' })).status).toBe(200);
    await srv.admin.put('/pages/wiki/c2', { title: 'C2', content: '' });
    await until(() => changes(s).some((c) => c.path === 'c2'));
    expect(changes(s).map((c) => `${c.event} ${c.space}/${c.path}`)).toEqual([
      'page.created wiki/c1',
      'page.deleted wiki/c1',
      'page.created wiki/c2',
    ]);
    s.close();
  });

  it("refuses the 11th open stream of a principal with 429, not another principal's", async () => {
    const streams: Open[] = [];
    for (let i = 0; i < 10; i++) {
      const s = await open(srv.url, bearer(bob));
      expect(s.res.status, `stream ${i + 1}`).toBe(200);
      streams.push(s);
    }
    const over = await fetch(`${srv.url}/changes/stream`, { headers: bearer(bob) });
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBeTruthy();
    expect((await over.json()).code).toBe('too_many_requests');
    const other = await open(srv.url, bearer(carol));
    expect(other.res.status).toBe(200);
    other.close();
    // One closed: room for one more (the server sees the close when the socket goes).
    streams.pop()!.close();
    let again: Open | undefined;
    for (let i = 0; i < 100 && (again?.res.status ?? 429) === 429; i++) {
      await new Promise((r) => setTimeout(r, 50));
      again = await open(srv.url, bearer(bob));
    }
    expect(again!.res.status).toBe(200);
    streams.push(again!);
    for (const s of streams) s.close();
  });

  it('ends the stream when its key is revoked', async () => {
    const dave = await newAgent(srv, 'dave');
    const keys = await srv.admin.get(`/admin/principals/${dave.id}/keys`);
    const s = await open(srv.url, bearer(dave));
    expect(s.res.status).toBe(200);
    expect((await srv.admin.del(`/admin/keys/${keys.body[0].id}`)).status).toBe(204);
    await until(() => s.done, 5000);
  });

  it('ends the stream when its session signs out', async () => {
    expect((await srv.admin.post('/admin/principals', { name: 'erin', kind: 'user', password: 'correct horse' })).status).toBe(201);
    const signIn = await postSession(srv.url, 'erin', 'correct horse');
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0];
    const csrf = (await signIn.json()).csrfToken as string;
    const s = await open(srv.url, { cookie });
    expect(s.res.status).toBe(200);
    await srv.admin.put('/pages/wiki/e1', { title: 'E1', content: '' });
    await until(() => changes(s).some((c) => c.path === 'e1'));
    const out = await fetch(`${srv.url}/session`, { method: 'DELETE', headers: { cookie, 'x-csrf-token': csrf, origin: srv.url } });
    expect(out.status).toBe(204);
    await until(() => s.done, 5000);
  });
});

describe('a replica', () => {
  it('streams a change committed on the primary from its own copy', async () => {
    const replicaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-replica-'));
    const primary = await startServer({ SERVICE_CHECKPOINT_MODE: 'litestream' });
    const shipper = createShipper(path.join(primary.dataDir, 'kspace.db'), path.join(replicaDir, 'kspace.db'));
    try {
      expect((await primary.admin.post('/spaces', { slug: 'eng', name: 'Eng' })).status).toBe(201);
      await shipper.ship();
      shipper.start(10);
      const replica = await startServer({ SERVICE_ROLE: 'replica', SERVICE_PRIMARY_URL: primary.url }, { dataDir: replicaDir });
      try {
        const s = await open(replica.url, { authorization: `Bearer ${ADMIN_KEY}` }, '?space=eng');
        expect(s.res.status).toBe(200);
        const w = await primary.admin.put('/pages/eng/r', { title: 'R', content: '' });
        await until(() => changes(s).some((c) => c.path === 'r'));
        expect(changes(s).find((c) => c.path === 'r')!.txid).toBe(txidOf(w));
        // Answered by the replica, not forwarded: the primary logged no request for it.
        expect(primary.requests.some((r) => r.route === '/changes/stream')).toBe(false);
        s.close();
        expect(replica.errors).toEqual([]);
      } finally {
        await replica.close();
      }
    } finally {
      await shipper.close();
      await primary.close();
      fs.rmSync(replicaDir, { recursive: true, force: true });
    }
  });
});
