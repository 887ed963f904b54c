import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stopProcess } from '../../scripts/lib/child-server.ts';
import {
  LITESTREAM_BIN,
  generationsOf,
  replicaFiles,
  startLitestream,
  waitShipped,
  type Litestream,
} from '../../scripts/lib/litestream.ts';
import { killHard, startChildServer, type ChildServer } from '../support/child-server.ts';
import { runCli } from '../support/cli.ts';
import { tempDirs } from '../support/temp-dirs.ts';
import { ADMIN_KEY, client } from '../support/server.ts';

// The real Litestream (v0.3.13, the devDependency @flydotio/litestream-linux-x64) beside a real
// kspace, replicating to a file replica in a temp dir (docs/scale-out.md, docs/operations.md):
// a crash and a restore, a point-in-time restore over a crashed primary's leftovers, one
// generation across a clean restart, and the default checkpoint mode's stop under it.

// 180 s: each test starts three to five processes; at a load average of 24 on 2 cores one took 71 s.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });
const tmp = tempDirs('litestream');
const procs: Array<ChildServer | Litestream> = [];
afterEach(async () => {
  for (const p of procs.splice(0)) await stopProcess(p.proc, 'SIGKILL');
});

const env = {
  SERVICE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY,
  SERVICE_WEBHOOKS_ALLOW_HTTP: '1',
  SERVICE_WEBHOOKS_ALLOW_PRIVATE_URLS: '1',
  SERVICE_SETTINGS_ENCRYPTION_KEY: 'test-settings-key-0123456789abcdef-xyz',
  SERVICE_CHECKPOINT_MODE: 'litestream',
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function primaryWithLitestream(dir: string, rep: string, extra: Record<string, string> = {}) {
  const primary = await startChildServer(dir, { ...env, ...extra });
  procs.push(primary);
  const ls = await startLitestream(path.join(dir, 'kspace.db'), rep, 1);
  procs.push(ls);
  return { primary, ls, admin: client(primary.url, ADMIN_KEY) };
}

const restore = (dataDir: string, rep: string, more: string[] = []) =>
  runCli(['restore', '--from-litestream', `file://${rep}`, '--data', dataDir, '--litestream', LITESTREAM_BIN, ...more]);

function pagePaths(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    return (db.prepare('SELECT path FROM pages ORDER BY path').all() as Array<{ path: string }>).map((r) => r.path);
  } finally {
    db.close();
  }
}

describe('kspace with the real Litestream', () => {
  it('SIGKILL under writes, then kspace restore --from-litestream and start: nothing acknowledged 1.5 s before the kill is lost, files, webhooks, revisions and search come back', async () => {
    const dir = tmp();
    const rep = path.join(tmp(), 'replica');
    const { primary, ls, admin } = await primaryWithLitestream(dir, rep);
    expect((await admin.post('/spaces', { slug: 'eng', name: 'Eng' })).status).toBe(201);
    expect((await admin.put('/pages/eng/doc', { title: 'Doc', content: 'first words' })).status).toBe(201);
    expect((await admin.put('/pages/eng/doc', { title: 'Doc', content: 'the zebra grazes' })).status).toBe(200);
    const bytes = Buffer.from('attached bytes \u0000\u0001');
    const file = await fetch(`${primary.url}/files/eng/doc/a.bin`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    expect(file.status).toBe(201);
    expect((await admin.post('/admin/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['page.created'] })).status).toBe(201);

    // A restore while the server holds the directory is refused, and changes nothing.
    const busy = await restore(dir, rep);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain('a restore needs the server stopped');

    // Two writers, each write acknowledged at a known time, until both processes are killed.
    const acked: Array<{ path: string; at: number }> = [];
    let stop = false;
    const writers = [0, 1].map(async (w) => {
      const c = client(primary.url, ADMIN_KEY);
      for (let i = 0; !stop; i++) {
        const r = await c.put(`/pages/eng/w${w}-${i}`, { title: `W${w}`, content: `load ${i}` }).catch(() => null);
        if (r?.status === 201) acked.push({ path: `w${w}-${i}`, at: Date.now() });
        await sleep(50); // a small load: at most ~40 writes a second from the two
      }
    });
    // At least 3 s of load and ten writes older than 1.5 s (a loaded machine writes slowly).
    const started = Date.now();
    while (Date.now() - started < 3000 || (acked.filter((a) => a.at < Date.now() - 1500).length < 10 && Date.now() - started < 30_000))
      await sleep(100);
    const killedAt = Date.now();
    await Promise.all([killHard(primary), ls.stop('SIGKILL')]);
    stop = true;
    await Promise.all(writers);
    const old = acked.filter((a) => a.at < killedAt - 1500);
    expect(old.length).toBeGreaterThanOrEqual(10);

    // Restored into a new directory (the crashed one stays as it is), then started.
    const target = tmp();
    const t0 = Date.now();
    const r = await restore(target, rep, ['--init']);
    expect(r.code, r.stderr).toBe(0);
    const paths = new Set(pagePaths(path.join(target, 'kspace.db')));
    for (const a of old) expect(paths.has(a.path), `${a.path}, acknowledged ${killedAt - a.at} ms before the kill`).toBe(true);
    const back = await startChildServer(target, env);
    procs.push(back);
    const c = client(back.url, ADMIN_KEY);
    expect((await c.get('/readyz')).status).toBe(200);
    const rtoMs = Date.now() - t0;
    expect(rtoMs).toBeLessThan(60_000);

    expect((await c.get('/pages/eng/doc')).body).toMatchObject({ version: 2, content: 'the zebra grazes' });
    expect((await c.get('/pages/eng/doc/revisions')).status).toBe(200);
    const got = await fetch(`${back.url}/files/eng/doc/a.bin`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);
    expect(JSON.stringify((await c.get('/admin/webhooks')).body)).toContain('http://127.0.0.1:9/hook');
    // The full-text index, removed by the restore, is rebuilt: a search finds the page.
    const hits = (await c.get('/search?q=zebra')).body as { hits: Array<{ path: string }> };
    expect(hits.hits.map((h) => h.path)).toContain('doc');
  });

  it("a point-in-time restore into the crashed primary's own directory has exactly the first batch, and its old -wal is not replayed", async () => {
    const dir = tmp();
    const rep = path.join(tmp(), 'replica');
    const { primary, ls, admin } = await primaryWithLitestream(dir, rep);
    expect((await admin.post('/spaces', { slug: 'eng', name: 'Eng' })).status).toBe(201);
    for (let i = 0; i < 5; i++) expect((await admin.put(`/pages/eng/first-${i}`, { title: 'F', content: 'one' })).status).toBe(201);
    await waitShipped(rep, Date.now());
    await sleep(1200); // one more sync interval: the segment shipped may have been read just before the last commit
    const between = new Date().toISOString();
    await sleep(1200);
    for (let i = 0; i < 5; i++) expect((await admin.put(`/pages/eng/second-${i}`, { title: 'S', content: 'two' })).status).toBe(201);
    await waitShipped(rep, Date.now());
    await Promise.all([killHard(primary), ls.stop('SIGKILL')]);
    // The crashed primary leaves its -wal (with the second batch in it) beside kspace.db.
    expect(fs.statSync(path.join(dir, 'kspace.db-wal')).size).toBeGreaterThan(0);

    const r = await restore(dir, rep, ['--timestamp', between]);
    // On failure, what Litestream holds and said: a generation that started between the batches leaves no backup
    // whose time bounds hold `between`.
    expect(
      r.code,
      `${r.stderr}\ntimestamp: ${between}\ngenerations: ${generationsOf(rep).join(', ')}\nreplica files:\n${replicaFiles(rep).join('\n')}\nlitestream said:\n${ls.log().slice(-6000)}`,
    ).toBe(0);
    expect(fs.existsSync(path.join(dir, 'kspace.db-wal'))).toBe(false);
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('kspace.db.replaced-')).length).toBeGreaterThanOrEqual(2);
    const paths = pagePaths(path.join(dir, 'kspace.db'));
    expect(paths.filter((p) => p.startsWith('first-'))).toHaveLength(5);
    expect(paths.filter((p) => p.startsWith('second-'))).toHaveLength(0);
    const back = await startChildServer(dir, env);
    procs.push(back);
    expect((await client(back.url, ADMIN_KEY).get('/pages/eng/second-0')).status).toBe(404);
    expect((await client(back.url, ADMIN_KEY).get('/pages/eng/first-4')).status).toBe(200);
  });

  it('a clean restart of kspace in litestream mode keeps Litestream on one generation', async () => {
    const dir = tmp();
    const rep = path.join(tmp(), 'replica');
    const { primary, admin } = await primaryWithLitestream(dir, rep);
    expect((await admin.post('/spaces', { slug: 'eng', name: 'Eng' })).status).toBe(201);
    for (let i = 0; i < 20; i++) expect((await admin.put(`/pages/eng/a-${i}`, { title: 'A', content: 'x'.repeat(2000) })).status).toBe(201);
    await waitShipped(rep, Date.now());
    await stopProcess(primary.proc, 'SIGTERM');
    expect(primary.proc.exitCode).toBe(0);
    const again = await startChildServer(dir, env);
    procs.push(again);
    const c = client(again.url, ADMIN_KEY);
    for (let i = 0; i < 20; i++) expect((await c.put(`/pages/eng/b-${i}`, { title: 'B', content: 'y'.repeat(2000) })).status).toBe(201);
    await waitShipped(rep, Date.now());
    await sleep(1200);
    expect(generationsOf(rep)).toHaveLength(1);
    const r = await restore(tmp(), rep, ['--init']);
    expect(r.code, r.stderr).toBe(0);
  });

  it('in the default checkpoint mode, a clean stop under Litestream does not wait out the busy timeout, and says why the -wal file stays', async () => {
    const dir = tmp();
    const rep = path.join(tmp(), 'replica');
    const { primary, admin } = await primaryWithLitestream(dir, rep, { SERVICE_CHECKPOINT_MODE: 'auto' });
    expect((await admin.post('/spaces', { slug: 'eng', name: 'Eng' })).status).toBe(201);
    for (let i = 0; i < 5; i++) expect((await admin.put(`/pages/eng/a-${i}`, { title: 'A', content: 'x' })).status).toBe(201);
    await waitShipped(rep, Date.now());
    await stopProcess(primary.proc, 'SIGTERM');
    expect(primary.proc.exitCode).toBe(0);
    const stopped = /"msg":"kspace stopped".*?"ms":(\{[^}]*\})/.exec(primary.stderr());
    expect(stopped).not.toBeNull();
    const took = JSON.parse(stopped![1]) as { helper: number; closed: number };
    // The checkpoint and close took ~5 s (the busy timeout) before; 200 ms now, bounded loosely for a loaded machine.
    expect(took.closed - took.helper).toBeLessThan(2000);
    expect(primary.stderr()).toContain('another process reads kspace.db');
    expect(fs.existsSync(path.join(dir, 'kspace.db-wal'))).toBe(true);
  });
});

describe('kspace restore --from-litestream: bad input', () => {
  it('names the flag at fault and touches nothing', async () => {
    const dir = tmp();
    const rep = tmp();
    const both = await runCli(['restore', '--from', 'x.db', '--from-litestream', `file://${rep}`, '--data', dir, '--init']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('exactly one of --from <file> and --from-litestream');
    const when = await restore(dir, rep, ['--init', '--timestamp', 'yesterday']);
    expect(when.code).toBe(2);
    expect(when.stderr).toContain('--timestamp: yesterday is not an RFC 3339 time');
    const empty = await restore(dir, rep, ['--init']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('litestream restore failed');
    expect(fs.readdirSync(dir).filter((f) => f.includes('kspace.db'))).toEqual([]);
  });
});
