import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { helperPids, helperThreads, ROOT } from '../../scripts/lib/child-server.ts';
import type { ChildServer } from '../support/server.ts';
import { nodeFlags } from '../../scripts/lib/node-flags.ts';
import { ADMIN_HEADERS as HEADERS, startAdminChild as startChild } from '../support/child-server.ts';
import { waitFor } from '../support/wait.ts';
import { nextLoadState } from '../../src/store/helper/thread.ts';
import { openDb } from '../../src/store/db/connection.ts';
import { ensureIndexGeneration, indexedSeq, openIndexConnection } from '../../src/store/fts/index-file.ts';

// `kspace serve` checkpoints the WAL from a helper thread so that no request waits for it.

let dir: string;
let server: ChildServer | undefined;
afterEach(async () => {
  await server?.stop('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The helper as a process of its own on `file` (`kspace internal-checkpointer`), and the lines it has written so far. */
function spawnHelper(file: string, ...args: string[]) {
  const helper = spawn(process.execPath, [...nodeFlags(), path.join(ROOT, 'bin/kspace.ts'), 'internal-checkpointer', file, ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  helper.stdout.setEncoding('utf8').on('data', (d: string) => lines.push(...d.split('\n').filter(Boolean)));
  return { helper, lines };
}

/**
 * A kspace database with its index file and one space, in a fresh `dir`, for the helper as a
 * process: `write(count)` adds that many pages, each queued for the index, in one transaction.
 */
function queueFixture() {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-ckpt-'));
  const db = openDb(dir);
  const idx = openIndexConnection(db.name);
  ensureIndexGeneration(db, idx);
  const at = new Date().toISOString();
  db.prepare("INSERT INTO orgs (id, slug, name, created_at) VALUES (1, 'o', 'O', ?)").run(at);
  db.prepare("INSERT INTO spaces (id, org_id, slug, name, created_at, updated_at) VALUES (1, 1, 's', 'S', ?, ?)").run(at, at);
  const page = db.prepare(
    "INSERT INTO pages (space_id, path, title, content, version, created_at, updated_at) VALUES (1, ?, ?, 'words', 1, ?, ?)",
  );
  const queue = db.prepare('INSERT INTO fts_queue (page_id) VALUES (?)');
  let n = 0;
  const write = (count: number) =>
    db.transaction(() => {
      for (let i = 0; i < count; i++, n++) queue.run(page.run(`p${n}`, `P${n}`, at, at).lastInsertRowid);
    })();
  return { db, file: db.name, idx, write };
}

/** The space s with `count` pages of 4,000 characters, each answered 201. */
async function writePages(s: ChildServer, count: number): Promise<void> {
  await fetch(`${s.url}/spaces`, { method: 'POST', headers: HEADERS, body: JSON.stringify({ slug: 's', name: 'S' }) });
  for (let i = 0; i < count; i++) {
    const r = await fetch(`${s.url}/pages/s/p${i}`, {
      method: 'PUT',
      headers: HEADERS,
      body: JSON.stringify({ title: `P${i}`, content: 'x'.repeat(4000) }),
    });
    expect(r.status).toBe(201);
  }
}

describe('WAL checkpointer', () => {
  it('checkpoints from a helper thread at nice 10, no second process, also after the heap limit is taken', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-ckpt-'));
    server = await startChild(dir);
    const pid = server.proc.pid!;
    // Only the helper's thread runs at nice 10 (set as it begins): the server's own stay at 0.
    expect(await waitFor(() => helperThreads(pid).length === 1 && helperThreads(pid)[0].nice === 10)).toBe(true);
    expect(helperThreads(pid).length + helperPids(pid).length).toBe(1);
    // A second after start both threads collect their heaps once (src/heap-limit.ts): the helper
    // goes on after it, and everything below runs after it.
    await new Promise((r) => setTimeout(r, 1500));
    expect(helperThreads(pid).length).toBe(1);
    const before = fs.statSync(path.join(dir, 'kspace.db')).size;
    await writePages(server, 50);
    // New pages sit in the WAL until a checkpoint copies them into the database file. The
    // server's own threshold is far away (SAFETY_CHECKPOINT_PAGES), so only the helper can grow the file.
    const dbFile = path.join(dir, 'kspace.db');
    expect(await waitFor(() => fs.statSync(dbFile).size > before + 200_000)).toBe(true);
    const db = new Database(dbFile, { readonly: true });
    expect(db.prepare('SELECT count(*) AS n FROM pages').get()).toEqual({ n: 50 });
    db.close();
  });

  // strace is on these machines (Debian's package); where it is not, there is no other way to
  // count a process's fsyncs from outside.
  const strace = ['/usr/bin/strace', '/bin/strace'].find((f) => fs.existsSync(f));
  it.skipIf(!strace)('an idle server syncs nothing: the helper syncs the database file only after a pass that copied pages', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-ckpt-'));
    server = await startChild(dir);
    const pid = server.proc.pid!;
    expect(await waitFor(() => helperThreads(pid).length === 1)).toBe(true);
    await writePages(server, 20);
    const dbFile = path.join(dir, 'kspace.db');
    const before = fs.statSync(dbFile).size;
    expect(await waitFor(() => fs.statSync(dbFile).size > before)).toBe(true); // the writes were checkpointed (and synced)
    await new Promise((r) => setTimeout(r, 1000)); // the index caught up, the last pass ran
    // Six helper passes (250 ms apart) with nothing to copy: each synced the file before. The
    // index catching up, or a checkpoint of its own file, may still sync in a window on a loaded
    // machine: one window of four must be clean (the old helper synced in every one).
    const out = path.join(dir, 'strace.txt');
    const windows: string[][] = [];
    for (let w = 0; w < 4; w++) {
      const tracer = spawn(strace!, ['-f', '-qq', '-e', 'trace=fsync,fdatasync', '-o', out, '-p', String(pid)], { stdio: 'ignore' });
      await new Promise((r) => setTimeout(r, 1500));
      await new Promise((r) => {
        tracer.once('exit', r);
        tracer.kill('SIGINT');
      });
      windows.push(
        fs
          .readFileSync(out, 'utf8')
          .split('\n')
          .filter((l) => /\b(fsync|fdatasync)\(/.test(l)),
      );
      fs.rmSync(out);
      if (windows[w].length === 0) break;
    }
    expect(
      windows.some((calls) => calls.length === 0),
      JSON.stringify(windows),
    ).toBe(true);
  });

  // The helper's rounds read kspace.db's WAL index under a mutex the server's reads need too
  // (helper/thread.ts, Idle). Each round takes POSIX locks on the -shm file (fcntl): counted here.
  it.skipIf(!strace)("an idle server's helper seldom takes the database's locks, and a write wakes it", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-ckpt-'));
    server = await startChild(dir);
    const pid = server.proc.pid!;
    expect(await waitFor(() => helperThreads(pid).length === 1)).toBe(true);
    const helper = helperThreads(pid)[0].tid;
    await fetch(`${server.url}/spaces`, { method: 'POST', headers: HEADERS, body: JSON.stringify({ slug: 's', name: 'S' }) });
    for (let i = 0; i < 5; i++) {
      const r = await fetch(`${server.url}/pages/s/p${i}`, {
        method: 'PUT',
        headers: HEADERS,
        body: JSON.stringify({ title: `P${i}`, content: `words ${i}` }),
      });
      expect(r.status).toBe(201);
    }
    await new Promise((r) => setTimeout(r, 2500)); // indexed, copied, then idle
    const locks = async (ms: number): Promise<number> => {
      const out = path.join(dir, 'strace.txt');
      const tracer = spawn(strace!, ['-f', '-qq', '-e', 'trace=fcntl', '-o', out, '-p', String(pid)], { stdio: 'ignore' });
      await new Promise((r) => setTimeout(r, 300)); // attached
      await new Promise((r) => setTimeout(r, ms));
      await new Promise((r) => {
        tracer.once('exit', r);
        tracer.kill('SIGINT');
      });
      const n = fs
        .readFileSync(out, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith(`${helper} `) && l.includes('fcntl(')).length;
      fs.rmSync(out);
      return n;
    };
    // Idle: a round a second of each kind (~8 calls each); with rounds every 25 ms it was ~240 a second.
    const idle = await locks(2000);
    expect(idle).toBeLessThan(60);
    // A write: the server tells the helper ("w", within its 100 ms load window), which indexes it
    // at once, no search asking. Left to its own round a second apart, the helper would index
    // each of these within 500 ms only half the time: all three, one time in eight.
    const backlog = async () =>
      ((await (await fetch(`${server!.url}/readyz`)).json()) as { checks: { fullTextIndex: { backlog: number } } }).checks.fullTextIndex
        .backlog;
    for (const word of ['zebra', 'yak', 'xerus']) {
      await new Promise((r) => setTimeout(r, 1500)); // idle again
      const r = await fetch(`${server.url}/pages/s/${word}`, {
        method: 'PUT',
        headers: HEADERS,
        body: JSON.stringify({ title: word, content: word }),
      });
      expect(r.status).toBe(201);
      const answered = Date.now();
      while ((await backlog()) > 0 && Date.now() - answered < 1500) await new Promise((res) => setTimeout(res, 20));
      expect(Date.now() - answered, word).toBeLessThan(500);
    }
    const found = (await (await fetch(`${server.url}/search?q=zebra`, { headers: HEADERS })).json()) as {
      hits: Array<{ path: string }>;
    };
    expect(found.hits.map((p) => p.path)).toEqual(['zebra']);
  });

  it('a server stopped by SIGTERM ends its helper first: nothing of it is left running or in the data dir', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-ckpt-'));
    server = await startChild(dir);
    const proc = server.proc;
    expect(await waitFor(() => helperThreads(proc.pid!).length === 1)).toBe(true);
    // A backlog for the full-text index: the helper is busy with it, a chunk at a time, when
    // the signal comes, and finishes that chunk before it sees the server's END.
    const pages = Array.from({ length: 500 }, (_, i) => ({
      path: `p${i}`,
      title: `P${i}`,
      content: Array.from({ length: 3000 }, (_, j) => `w${(i * 7 + j) % 5000}`).join(' '),
    }));
    const bundle = {
      format: 'service-space-export',
      formatVersion: 1,
      exportedAt: new Date().toISOString(),
      space: { slug: 's', name: 'S' },
      pages,
    };
    const imported = await fetch(`${server.url}/spaces/s/import`, { method: 'POST', headers: HEADERS, body: JSON.stringify(bundle) });
    expect(await imported.json()).toMatchObject({ created: 500, errors: [] });
    const code = await new Promise<number | null>((resolve) => {
      proc.once('exit', (c) => resolve(c));
      proc.kill('SIGTERM');
    });
    expect(code).toBe(0);
    expect(server.stderr()).not.toContain('checkpointer exited'); // ended on purpose, not lost
    expect(fs.readdirSync(dir).sort()).toEqual(['kspace-fts.db', 'kspace.db', 'kspace.lock']); // no -wal, no -shm (the lock file stays)
    const db = new Database(path.join(dir, 'kspace.db'), { readonly: true });
    expect(db.prepare('SELECT count(*) AS n FROM pages').get()).toEqual({ n: 500 });
    db.close();
  });

  it('restarts a long log: asks for a hold, completes the backfill while held, lets go', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-ckpt-'));
    const file = path.join(dir, 'x.db');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE t (v BLOB); CREATE TABLE derived_state (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID');
    const ins = db.prepare('INSERT INTO t VALUES (?)');
    for (let i = 0; i < 400; i++) ins.run(Buffer.alloc(6000, i)); // ~2 pages a transaction
    // Frames in the log (a PASSIVE checkpoint reports them), checked only at the end: it also copies.
    const logLength = () => (db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0].log;
    // A reader on the log keeps the next write from restarting it before the hold (an idle,
    // fully copied log would restart at any write, and the test could not tell).
    const reader = new Database(file, { readonly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM t').get();
    const { helper, lines } = spawnHelper(file, '--restart-pages', '500');
    try {
      expect(await waitFor(() => lines.includes('hold'))).toBe(true);
      ins.run(Buffer.alloc(10, 1)); // appended, not copied: the helper must copy it once held
      reader.exec('COMMIT');
      helper.stdin.write('held\n');
      expect(await waitFor(() => lines.includes('release'))).toBe(true);
      // The helper made the first write of the new log itself (its header fsync on a few KB).
      expect(logLength()).toBeLessThanOrEqual(2);
      expect(db.prepare("SELECT count(*) AS n FROM derived_state WHERE name = 'wal_restarted_at'").get()).toEqual({ n: 1 });
      ins.run(Buffer.alloc(10, 2));
      expect(logLength()).toBeLessThanOrEqual(4);
      expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 402 });
    } finally {
      helper.stdin.end();
      reader.close();
      db.close();
    }
  });

  it('an idle helper says so and looks again only when told of a write ("w") or a search', async () => {
    const { db, file, idx, write } = queueFixture();
    const logLength = () => (db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number; checkpointed: number }>)[0];
    // A minute between an idle helper's own looks: what it does sooner, it was told to do.
    const { helper, lines } = spawnHelper(file, '--idle-ms', '60000');
    const idles = () => lines.filter((l) => l === 'idle').length;
    try {
      write(10);
      expect(await waitFor(() => indexedSeq(idx) === 10 && idles() === 1)).toBe(true);
      write(5);
      await new Promise((r) => setTimeout(r, 500)); // twenty of a busy helper's index rounds
      expect(indexedSeq(idx)).toBe(10);
      helper.stdin.write('w\n');
      expect(await waitFor(() => indexedSeq(idx) === 15 && idles() === 2)).toBe(true);
      // It copied the log too before it went idle again: nothing new is left for a pass.
      const { log, checkpointed } = logLength();
      expect(checkpointed).toBe(log);
      write(5);
      helper.stdin.write('s 20\n'); // a search waits for the index: answered, idle or not
      expect(await waitFor(() => lines.includes('d 20 20'))).toBe(true);
      expect(indexedSeq(idx)).toBe(20);
    } finally {
      helper.stdin.end();
      await new Promise((r) => helper.once('exit', r));
      idx.close();
      db.close();
    }
  });

  it('lets the full-text index fall behind while the server is busy and nobody searches, by at most a cap', async () => {
    const { db, file, idx, write } = queueFixture();
    const indexed = () => indexedSeq(idx);
    const { helper, lines } = spawnHelper(file, '--max-defer-pages', '50');
    const quiet = () => new Promise((r) => setTimeout(r, 300)); // a dozen of the helper's 25 ms rounds
    try {
      write(10);
      expect(await waitFor(() => indexed() === 10)).toBe(true); // calm: indexed at once
      helper.stdin.write('busy\n');
      await quiet();
      write(30);
      await quiet();
      expect(indexed()).toBe(10); // busy: deferred
      write(30); // backlog 60, past the cap of 50: only the 11 beyond it are indexed
      expect(await waitFor(() => indexed() === 21)).toBe(true);
      await quiet();
      expect(indexed()).toBe(21);
      write(20); // and so on: the lag stays at 49
      expect(await waitFor(() => indexed() === 41)).toBe(true);
      await quiet();
      expect(indexed()).toBe(41);
      helper.stdin.write('calm\n');
      expect(await waitFor(() => indexed() === 90)).toBe(true);
      helper.stdin.write('busy\n');
      await quiet(); // the helper reads 'busy' before the writes come (as above; CI once indexed them first)
      write(5);
      await quiet();
      expect(indexed()).toBe(90);
      helper.stdin.write('s 95\n'); // a search: caught up for it, and no deferral for a while after
      expect(await waitFor(() => lines.includes('d 95 95'))).toBe(true);
      write(5);
      expect(await waitFor(() => indexed() === 100)).toBe(true);
    } finally {
      helper.stdin.end();
      await new Promise((r) => helper.once('exit', r));
      idx.close();
      db.close();
    }
  });
});

describe('nextLoadState: when the event loop counts as busy', () => {
  it.each([
    { busy: false, u: 0.5, next: false },
    { busy: false, u: 0.7, next: false },
    { busy: false, u: 0.71, next: true },
    { busy: false, u: 1, next: true },
    { busy: true, u: 0.6, next: true }, // hysteresis: stays busy down to 0.5
    { busy: true, u: 0.5, next: true },
    { busy: true, u: 0.49, next: false },
    { busy: true, u: 0, next: false },
  ])('busy=$busy, utilisation $u → $next', ({ busy, u, next }) => {
    expect(nextLoadState(busy, u)).toBe(next);
  });
});
