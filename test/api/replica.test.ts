import { describe, expect, it } from 'vitest';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { postSession } from '../support/sessions.ts';
import { runCliHere } from '../support/cli.ts';
import { callTool, connectHttp, postToolCall } from '../support/mcp.ts';
import { startReceiver } from '../support/receiver.ts';
import { ADMIN_KEY, client, startServer, type Client } from '../support/server.ts';
import { useMade } from '../support/fixture.ts';
import { useReplicaPair } from '../support/replica.ts';
import { PAGE_SIZE } from '../../src/store/migrations.ts';

// A primary, a read replica and the test shipper (scripts/lib/shipper.ts, standing in for
// Litestream's follower) on loopback: reads answered by the replica, writes forwarded to the
// primary, read-your-writes with X-Service-Min-Txid, the replica never writing its kspace.db.

const { primary, replica, shipper, replicaDir } = useReplicaPair({
  primaryEnv: {
    SERVICE_WEBHOOKS_ALLOW_HTTP: '1',
    SERVICE_WEBHOOKS_ALLOW_PRIVATE_URLS: '1',
    SERVICE_SETTINGS_ENCRYPTION_KEY: 'test-settings-key-0123456789abcdef-xyz',
    SERVICE_SESSION_IDLE_MINUTES: '0.2', // 12 s; use is recorded after a quarter of it (3 s)
  },
});
const rx = useMade('the receiver', startReceiver, (r) => r.close());
const viaReplica = useMade('the client through the replica', async () => client(replica.url, ADMIN_KEY));

const txidOf = (r: { headers: Headers }) => Number(r.headers.get('x-service-txid'));

describe('a primary and a read replica', () => {
  it('answers every write with X-Service-Txid, which grows with each commit', async () => {
    const a = await primary.admin.put('/pages/eng/t1', { title: 'T1', content: 'one' });
    const b = await primary.admin.put('/pages/eng/t1', { title: 'T1', content: 'two' });
    expect(a.status).toBe(201);
    expect(txidOf(a)).toBeGreaterThan(0);
    expect(txidOf(b)).toBeGreaterThan(txidOf(a));
    const read = await primary.admin.get('/pages/eng/t1');
    expect(read.headers.get('x-service-txid')).toBeNull(); // reads carry none
    const ready = await primary.admin.get('/readyz');
    expect(ready.body).toMatchObject({ role: 'primary' });
    expect(ready.body.txid).toBeGreaterThanOrEqual(txidOf(b));
  });

  it('forwards writes to the primary and answers reads with X-Service-Min-Txid never older than the write', async () => {
    for (let i = 0; i < 15; i++) {
      const w = await viaReplica.put('/pages/eng/ryw', { title: 'RYW', content: `version ${i}` });
      expect([200, 201], w.text).toContain(w.status);
      const t = txidOf(w);
      expect(t).toBeGreaterThan(0);
      const r = await viaReplica.get('/pages/eng/ryw', { 'x-service-min-txid': String(t) });
      expect(r.status).toBe(200);
      expect(r.body.content).toBe(`version ${i}`);
    }
    // The write really went to the primary, and the replica's copy holds it once shipped.
    expect((await primary.admin.get('/pages/eng/ryw')).body.content).toBe('version 14');
  });

  it('streams a large attachment through the replica both ways, byte for byte', async () => {
    const data = crypto.randomBytes(3 * 1024 * 1024 + 17);
    expect((await viaReplica.put('/pages/eng/with-file', { title: 'With a file', content: 'x' })).status).toBe(201);
    const put = await fetch(`${replica.url}/files/eng/with-file/blob.bin`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/octet-stream' },
      body: data,
    });
    expect(put.status, await put.clone().text()).toBe(201);
    const got = await fetch(`${replica.url}/files/eng/with-file/blob.bin`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'x-service-min-txid': put.headers.get('x-service-txid')! },
    });
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(data)).toBe(true);
  });

  it('answers a bad X-Service-Min-Txid with 400 naming the header', async () => {
    const r = await viaReplica.get('/pages/eng/ryw', { 'x-service-min-txid': 'soon' });
    expect(r.status).toBe(400);
    expect(r.body.issues[0].key).toBe('X-Service-Min-Txid');
  });

  it('forwards a read whose Min-Txid the replica does not reach within SERVICE_REPLICA_WAIT_MS to the primary', async () => {
    await shipper.pause();
    try {
      const w = await viaReplica.put('/pages/eng/late', { title: 'Late', content: 'fresh' });
      const t0 = Date.now();
      const r = await viaReplica.get('/pages/eng/late', { 'x-service-min-txid': String(txidOf(w)) });
      expect(r.status).toBe(200);
      expect(r.body.content).toBe('fresh');
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1900); // waited SERVICE_REPLICA_WAIT_MS (2000) first
      expect((await viaReplica.get('/pages/eng/late')).status).toBe(404); // the replica's own copy: not yet
    } finally {
      shipper.resume();
    }
  });

  it('serves /readyz with role, txid and lagMs on the replica', async () => {
    const w = await viaReplica.put('/pages/eng/ready', { title: 'R', content: 'x' });
    await viaReplica.get('/pages/eng/ready', { 'x-service-min-txid': String(txidOf(w)) });
    const r = await viaReplica.get('/readyz');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'ready', role: 'replica' });
    expect(r.body.txid).toBeGreaterThanOrEqual(txidOf(w));
    expect(typeof r.body.lagMs).toBe('number');
    expect(r.body.lagMs).toBeGreaterThanOrEqual(0);
  });

  it('forwards the MCP door and its writes', async () => {
    const mcp = await connectHttp(replica.url, ADMIN_KEY);
    try {
      const put = await callTool(mcp, 'put_page', { space: 'eng', path: 'from-mcp', title: 'From MCP', content: 'via the replica' });
      expect(put.isError, put.text).toBe(false);
    } finally {
      await mcp.close();
    }
    expect((await primary.admin.get('/pages/eng/from-mcp')).body.content).toBe('via the replica');
    const raw = await postToolCall(replica.url, ADMIN_KEY, 'put_page', { space: 'eng', path: 'from-mcp', content: 'again' });
    expect(raw.status).toBe(200);
    expect(Number(raw.headers.get('x-service-txid'))).toBeGreaterThan(0);
  });

  it('finds a page written through the replica in its own full-text index', async () => {
    const w = await viaReplica.put('/pages/eng/searchable', { title: 'Searchable', content: 'a zanzibarish word' });
    const r = await viaReplica.get('/search?q=zanzibarish', { 'x-service-min-txid': String(txidOf(w)) });
    expect(r.status, r.text).toBe(200);
    expect(r.body.hits.map((i: { path: string }) => i.path)).toContain('searchable');
    expect(fs.existsSync(path.join(replicaDir, 'kspace-replica-fts.db'))).toBe(true);
    expect(fs.existsSync(path.join(replicaDir, 'kspace-fts.db'))).toBe(false);
  });

  it("reads back the primary's sealed cursors, and the primary the replica's (one key, in the database)", async () => {
    let last = { headers: new Headers() };
    for (const slug of ['cur-a', 'cur-b', 'cur-c']) last = await viaReplica.post('/spaces', { slug, name: slug });
    const min = { 'x-service-min-txid': String(txidOf(last)) };
    const fromPrimary = await primary.admin.get('/spaces?limit=1');
    const onReplica = await viaReplica.get(`/spaces?limit=1&cursor=${fromPrimary.body.nextCursor}`, min);
    expect(onReplica.status, onReplica.text).toBe(200);
    expect(onReplica.body.spaces).toEqual((await primary.admin.get(`/spaces?limit=1&cursor=${fromPrimary.body.nextCursor}`)).body.spaces);
    const fromReplica = await viaReplica.get('/spaces?limit=1', min);
    expect((await primary.admin.get(`/spaces?limit=1&cursor=${fromReplica.body.nextCursor}`)).status).toBe(200);
  });

  it('never writes its kspace.db: with the shipper paused, its bytes stay the same around reads and forwarded writes', async () => {
    const agent = await primary.admin.post('/admin/principals', { name: 'newcomer', kind: 'agent' });
    const key = await primary.admin.post(`/admin/principals/${agent.body.id}/keys`);
    await shipper.ship();
    await shipper.pause();
    try {
      const files = ['kspace.db', 'kspace.db-wal'].map((f) => path.join(replicaDir, f));
      const hash = () =>
        files.map((f) => (fs.existsSync(f) ? crypto.createHash('sha256').update(fs.readFileSync(f)).digest('hex') : '-')).join(' ');
      const before = hash();
      const newcomer = client(replica.url, key.body.key);
      expect((await viaReplica.get('/pages/eng/ryw')).status).toBe(200);
      expect((await viaReplica.get('/search?q=version')).status).toBe(200);
      expect((await viaReplica.get('/spaces')).status).toBe(200);
      // A first GET /spaces makes the caller's personal space: on a replica that is forwarded.
      const spaces = await newcomer.get('/spaces');
      expect(spaces.status).toBe(200);
      expect(spaces.body.spaces.map((s: { slug: string }) => s.slug)).toContain('~newcomer');
      expect((await viaReplica.put('/pages/eng/while-paused', { title: 'P', content: 'p' })).status).toBe(201);
      expect((await viaReplica.post('/spaces', { slug: 'ops', name: 'Ops' })).status).toBe(201);
      await new Promise((r) => setTimeout(r, 300));
      expect(hash()).toBe(before);
    } finally {
      shipper.resume();
    }
  });

  it('sends no webhook from the replica: each delivery arrives once, from the primary', async () => {
    const hook = await viaReplica.post('/admin/webhooks', { url: rx.url('/replica-hook'), events: ['page.created', 'page.updated'] });
    expect(hook.status, hook.text).toBe(201);
    for (let i = 0; i < 5; i++) expect((await viaReplica.put(`/pages/eng/hooked-${i}`, { title: `H${i}`, content: 'x' })).status).toBe(201);
    await rx.waitFor((r) => r.on('/replica-hook').length >= 5);
    await new Promise((r) => setTimeout(r, 500));
    const ids = rx.on('/replica-hook').map((x) => JSON.parse(x.body.toString()).id as string);
    expect(ids.length).toBe(5);
    expect(new Set(ids).size).toBe(5);
  });

  it('gives a web-app session its txid as a cookie, which the replica honours', async () => {
    expect((await primary.admin.post('/admin/principals', { name: 'wendy', kind: 'user', password: 'correct horse' })).status).toBe(201);
    await shipper.ship();
    await shipper.pause();
    try {
      const signIn = await postSession(replica.url, 'wendy', 'correct horse');
      expect(signIn.status).toBe(200);
      const cookies = signIn.headers.getSetCookie();
      const session = cookies.find((c) => c.startsWith('kspace_session='))!.split(';')[0];
      const signedIn = cookies.find((c) => c.startsWith('kspace_txid='))!.split(';')[0];
      const csrf = (await signIn.json()).csrfToken as string;
      // The app's next request: the replica's copy lacks the new session, so it waits and forwards.
      expect((await fetch(`${replica.url}/session`, { headers: { cookie: `${session}; ${signedIn}` } })).status).toBe(200);
      const w = await fetch(`${replica.url}/pages/eng/by-wendy`, {
        method: 'PUT',
        headers: { cookie: session, 'x-csrf-token': csrf, origin: replica.url, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'By Wendy', content: 'mine' }),
      });
      expect(w.status).toBe(201);
      const txCookie = w.headers.getSetCookie().find((c) => c.startsWith('kspace_txid='))!;
      expect(txCookie).toMatch(/^kspace_txid=\d+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
      shipper.resume();
      const r = await fetch(`${replica.url}/pages/eng/by-wendy`, { headers: { cookie: `${session}; ${txCookie.split(';')[0]}` } });
      expect(r.status).toBe(200);
      expect((await r.json()).content).toBe('mine');
    } finally {
      shipper.resume();
    }
  });

  it('the CLI sends X-Service-Min-Txid after its own write, from one command to the next', async () => {
    const state = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-cli-state-'));
    const cli = (args: string[]) => runCliHere(args, { url: replica.url, key: ADMIN_KEY, env: { XDG_STATE_HOME: state } });
    await shipper.pause();
    try {
      expect((await cli(['page', 'put', 'eng', 'by-cli', '--title', 'By CLI', '--content', 'cli text'])).code).toBe(0);
      const get = await cli(['page', 'get', 'eng', 'by-cli']); // the replica's copy lacks it: waits, then the primary answers
      expect(get.code, get.stderr).toBe(0);
      expect(get.stdout).toContain('cli text');
    } finally {
      shipper.resume();
      fs.rmSync(state, { recursive: true, force: true });
    }
  });

  it('has the primary record the use of a session that only reads on the replica', async () => {
    expect((await primary.admin.post('/admin/principals', { name: 'rita', kind: 'user', password: 'correct horse' })).status).toBe(201);
    const signIn = await postSession(replica.url, 'rita', 'correct horse');
    const session = signIn.headers.get('set-cookie')!.split(';')[0];
    const lastSeen = () =>
      primary.svc.db
        .prepare("SELECT s.last_seen_at FROM sessions s JOIN principals p ON p.id = s.principal_id WHERE p.name = 'rita'")
        .pluck()
        .get() as string;
    const first = lastSeen();
    await new Promise((r) => setTimeout(r, 3100));
    await shipper.ship();
    expect((await fetch(`${replica.url}/spaces/eng`, { headers: { cookie: session } })).status).toBe(200);
    const until = Date.now() + 2000;
    while (lastSeen() === first && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(lastSeen() > first).toBe(true);
  });

  it('answers 503 problem+json with Retry-After when the primary cannot be reached', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-replica-'));
    fs.copyFileSync(path.join(replicaDir, 'kspace.db'), path.join(dir, 'kspace.db'));
    const lonely = await startServer({ SERVICE_ROLE: 'replica', SERVICE_PRIMARY_URL: `http://127.0.0.1:${port}` }, { dataDir: dir });
    try {
      const r = await client(lonely.url, ADMIN_KEY).put('/pages/eng/x', { title: 'X', content: 'x' });
      expect(r.status).toBe(503);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      expect(r.headers.get('retry-after')).toBe('5');
      expect(r.body.code).toBe('primary_unavailable');
      expect((await client(lonely.url, ADMIN_KEY).get('/spaces/eng')).status).toBe(200); // reads go on
      // A follower that replaces the file instead of writing it through SQLite: /readyz says so.
      fs.copyFileSync(path.join(dir, 'kspace.db'), path.join(dir, 'new.db'));
      fs.renameSync(path.join(dir, 'new.db'), path.join(dir, 'kspace.db'));
      let ready = await client(lonely.url).get('/readyz');
      for (const until = Date.now() + 5000; ready.status === 200 && Date.now() < until; ) {
        await new Promise((r) => setTimeout(r, 100));
        ready = await client(lonely.url).get('/readyz');
      }
      expect(ready.status).toBe(503);
      expect(ready.body.checks.file).toBe('replaced');
      expect(lonely.errors.join()).toContain('was replaced');
    } finally {
      await lonely.close();
    }
  });

  it('refuses to start on a copy of another schema version, and never migrates it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-replica-'));
    const copy = path.join(dir, 'kspace.db');
    fs.copyFileSync(path.join(replicaDir, 'kspace.db'), copy);
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(copy);
    db.pragma('journal_mode = DELETE');
    db.pragma('user_version = 8');
    db.close();
    const before = fs.readFileSync(copy);
    await expect(startServer({ SERVICE_ROLE: 'replica', SERVICE_PRIMARY_URL: primary.url }, { dataDir: dir })).rejects.toThrow(
      /schema version 8.*never migrates/,
    );
    expect(fs.readFileSync(copy).equals(before)).toBe(true);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('SERVICE_CHECKPOINT_MODE', () => {
  it('litestream: the server never checkpoints by itself (wal_autocheckpoint=0), its helper included', async () => {
    const quiet = { info() {}, warn() {}, error() {} };
    // auto: 64,000 pages of 4 KB (SAFETY_CHECKPOINT_PAGES), counted in the database's own page size.
    for (const [mode, expected] of [
      ['litestream', 0],
      ['auto', (64_000 * 4096) / PAGE_SIZE],
    ] as const) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-ckmode-'));
      const srv = await startServer({ SERVICE_CHECKPOINT_MODE: mode }, { dataDir: dir, keepData: true, log: quiet, checkpointer: true });
      try {
        const until = Date.now() + 5000;
        while (!srv.helper() && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
        expect(srv.helper()).not.toBeNull();
        expect(srv.svc.db.pragma('wal_autocheckpoint', { simple: true })).toBe(expected);
        expect((await client(srv.url, ADMIN_KEY).post('/spaces', { slug: 'w', name: 'W' })).status).toBe(201);
      } finally {
        await srv.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});
