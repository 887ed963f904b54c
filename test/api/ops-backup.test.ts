import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 60_000 });
import { startChildServer, type ChildServer } from '../support/child-server.ts';
import { ADMIN_KEY, client, startServer } from '../support/server.ts';
import { stopProcess } from '../../scripts/lib/child-server.ts';

const bin = path.resolve(import.meta.dirname, '../../bin/kspace');
type Ack = { path: string; version: number; title: string };

function kspace(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(bin, args, { env: { ...process.env, SERVICE_DATA_DIR: '' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (code) => resolve({ code, stderr }));
  });
}

/** 4 writers PUTting pages until stopped; every acknowledged write is recorded. */
function startWriters(url: string, space: string) {
  const acked: Ack[] = [];
  const latencies: Array<{ at: number; ms: number }> = [];
  const stop = { now: false };
  const done = Promise.all(
    [0, 1, 2, 3].map(async (w) => {
      const c = client(url, ADMIN_KEY);
      for (let i = 0; !stop.now; i++) {
        const p = `w${w}/p${i % 20}`;
        const title = `w${w} i${i}`;
        const t0 = performance.now();
        const r = await c.put(`/pages/${space}/${p}`, { title, content: `${title} ${'text '.repeat(200)}`, metadata: { w, i } });
        latencies.push({ at: t0, ms: performance.now() - t0 });
        if (r.status === 200 || r.status === 201) acked.push({ path: p, version: r.body.version, title });
      }
    }),
  );
  return {
    acked,
    latencies,
    stop: async () => {
      stop.now = true;
      await done;
    },
  };
}

function revisionTitles(file: string, space: string): Map<string, string> {
  const db = new Database(file, { readonly: true });
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  const rows = db
    .prepare(`SELECT p.path, r.version, r.title FROM revisions r JOIN pages p ON p.id = r.page_id
    JOIN spaces s ON s.id = p.space_id WHERE s.slug = ?`)
    .all(space) as Array<{ path: string; version: number; title: string }>;
  db.close();
  return new Map(rows.map((r) => [`${r.path}@${r.version}`, r.title]));
}

describe('kspace backup and restore', () => {
  let dataDir: string;
  let work: string;
  let srv: ChildServer;
  beforeAll(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-backup-'));
    dataDir = path.join(work, 'data');
    srv = await startChildServer(dataDir, { SERVICE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY, SERVICE_ADMIN_BACKUP: '1' });
    await client(srv.url, ADMIN_KEY).post('/spaces', { slug: 'b', name: 'B' });
  });
  afterAll(async () => {
    await stopProcess(srv.proc, 'SIGTERM');
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('copies a running server under 4 writers: the copy is sound and holds every write acknowledged before it started', async () => {
    const writers = startWriters(srv.url, 'b');
    while (writers.acked.length < 40) await new Promise((r) => setTimeout(r, 20));
    const before = writers.acked.slice();
    const file = path.join(work, 'nightly.db');
    const t0 = performance.now();
    const r = await kspace(['backup', '--data', dataDir, '--to', file]);
    const t1 = performance.now();
    const slowest = (from: number, to: number) => Math.max(...writers.latencies.filter((l) => l.at >= from && l.at < to).map((l) => l.ms));
    console.info(
      `backup CLI: ${r.stderr.trim()}; PUT max latency before ${slowest(0, t0).toFixed(1)} ms, during ${slowest(t0, t1).toFixed(1)} ms`,
    );
    const during = writers.acked.length - before.length;
    while (writers.acked.length < before.length + during + 8) await new Promise((r) => setTimeout(r, 20));
    await writers.stop();
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^backed up .* pages in \d+ ms\n$/);
    expect(before.length).toBeGreaterThan(20);
    expect(during).toBeGreaterThanOrEqual(0);
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
    const inCopy = revisionTitles(file, 'b');
    for (const a of before) expect([a.path, a.version, inCopy.get(`${a.path}@${a.version}`)]).toEqual([a.path, a.version, a.title]);
    expect(fs.existsSync(file + '-wal')).toBe(false);
    expect(fs.readdirSync(work).filter((f) => f.includes('.tmp'))).toEqual([]);
  });

  it('POST /admin/backup streams a consistent copy to org admins, and refuses others', async () => {
    const writers = startWriters(srv.url, 'b');
    while (writers.acked.length < 40) await new Promise((r) => setTimeout(r, 20));
    const before = writers.acked.slice();
    const t0 = performance.now();
    const res = await fetch(`${srv.url}/admin/backup`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    const body = Buffer.from(await res.arrayBuffer());
    const t1 = performance.now();
    const slowest = (from: number, to: number) => Math.max(...writers.latencies.filter((l) => l.at >= from && l.at < to).map((l) => l.ms));
    console.info(
      `POST /admin/backup: ${body.length} bytes in ${(t1 - t0).toFixed(0)} ms; PUT max latency before ${slowest(0, t0).toFixed(1)} ms, during ${slowest(t0, t1).toFixed(1)} ms`,
    );
    await writers.stop();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.sqlite3');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="kspace-.*\.db"$/);
    expect(Number(res.headers.get('content-length'))).toBe(body.length);
    const file = path.join(work, 'from-http.db');
    fs.writeFileSync(file, body);
    const inCopy = revisionTitles(file, 'b');
    for (const a of before) expect(inCopy.get(`${a.path}@${a.version}`)).toBe(a.title);
    expect(fs.readdirSync(dataDir).filter((f) => f.startsWith('.backup'))).toEqual([]); // the temporary copy is gone

    const admin = client(srv.url, ADMIN_KEY);
    const p = await admin.post('/admin/principals', { name: 'plain', kind: 'agent' });
    const k = await admin.post(`/admin/principals/${p.body.id}/keys`);
    const refused = await fetch(`${srv.url}/admin/backup`, { method: 'POST', headers: { authorization: `Bearer ${k.body.key}` } });
    expect(refused.status).toBe(403);
    expect((await fetch(`${srv.url}/admin/backup`, { method: 'POST' })).status).toBe(401);
  });

  it('POST /admin/backup is off unless SERVICE_ADMIN_BACKUP=1: an org admin gets 403, not every personal space', async () => {
    const plain = await startServer();
    try {
      const res = await fetch(`${plain.url}/admin/backup`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect((await res.json()).detail).toMatch(/SERVICE_ADMIN_BACKUP=1/);
    } finally {
      await plain.close();
    }
  });

  it('restore refuses while the server runs, checks the file, keeps the replaced database aside, and the server starts with every page and revision', async () => {
    const file = path.join(work, 'nightly.db');
    const busy = await kspace(['restore', '--data', dataDir, '--from', file]);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain('is in use by another kspace server');
    await client(srv.url, ADMIN_KEY).put('/pages/b/after-backup', { title: 'After', content: 'not in the backup' });
    await stopProcess(srv.proc, 'SIGTERM');

    const junk = path.join(work, 'junk.db');
    fs.writeFileSync(junk, 'not a database at all'.repeat(100));
    const bad = await kspace(['restore', '--data', dataDir, '--from', junk]);
    expect(bad.code).toBe(2);
    const other = new Database(path.join(work, 'other.db'));
    other.exec('CREATE TABLE t (x)');
    other.close();
    expect((await kspace(['restore', '--data', dataDir, '--from', path.join(work, 'other.db')])).stderr).toContain(
      'is not a kspace database',
    );

    const ok = await kspace(['restore', '--data', dataDir, '--from', file]);
    expect(ok.code).toBe(0);
    const aside = fs.readdirSync(dataDir).filter((f) => f.startsWith('kspace.db.replaced-'));
    expect(aside.length).toBeGreaterThanOrEqual(1);
    expect(fs.existsSync(path.join(dataDir, 'kspace-fts.db'))).toBe(false);
    expect((fs.statSync(path.join(dataDir, 'kspace.db')).mode & 0o777).toString(8)).toBe('600');

    const expected = revisionTitles(file, 'b');
    srv = await startChildServer(dataDir, { SERVICE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY, SERVICE_ADMIN_BACKUP: '1' });
    const admin = client(srv.url, ADMIN_KEY);
    expect((await admin.get('/pages/b/after-backup')).status).toBe(404);
    for (const [key, title] of expected) {
      const [p, version] = key.split('@');
      const r = await admin.get(`/pages/b/${p}/revisions/${version}`);
      expect([key, r.status, r.body.title]).toEqual([key, 200, title]);
    }
    // The full-text index was rebuilt from the restored pages.
    const hits = await admin.get('/search?q=text&space=b&limit=5');
    expect(hits.status).toBe(200);
    expect(hits.body.hits.length).toBeGreaterThan(0);
  });
});

describe('restore into a new directory', () => {
  it('needs --init, like every offline command', async () => {
    const srv = await startServer({}, { keepData: true });
    await srv.admin.post('/spaces', { slug: 'n', name: 'N' });
    await srv.admin.put('/pages/n/a', { title: 'A', content: 'a' });
    const file = path.join(srv.dataDir, '..', `${path.basename(srv.dataDir)}-copy.db`);
    expect((await kspace(['backup', '--data', srv.dataDir, '--to', file])).code).toBe(0);
    await srv.close();
    const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-restore-'));
    const target = path.join(fresh, 'data');
    expect((await kspace(['restore', '--data', target, '--from', file])).code).toBe(2);
    expect((await kspace(['restore', '--init', '--data', target, '--from', file])).code).toBe(0);
    const again = await startServer({}, { dataDir: target });
    expect((await again.admin.get('/pages/n/a')).body.title).toBe('A');
    await again.close();
    fs.rmSync(srv.dataDir, { recursive: true, force: true });
    fs.rmSync(file, { force: true });
    fs.rmSync(fresh, { recursive: true, force: true });
  });
});
