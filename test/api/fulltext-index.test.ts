import Database from 'better-sqlite3';
import { makeOldDatabase } from '../support/old-db.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { client, startServer, type ChildServer } from '../support/server.ts';
import { FTS_FILE, indexedSeq, lastQueued } from '../../src/store/fts/index-file.ts';
import { createFullTextIndex } from '../../src/store/fts/sync.ts';
import { SCHEMA_VERSION } from '../../src/store/migrations.ts';
import { ADMIN_HEADERS as HEADERS, startAdminChild as startChild } from '../support/child-server.ts';
import { waitFor } from '../support/wait.ts';

// The full-text index lives in kspace-fts.db and is kept by the helper thread, off the write
// path (src/store/fts/index-file.ts). These run `kspace serve` as a child process, helper included.

let dir: string;
let server: ChildServer | undefined;
afterEach(async () => {
  await server?.stop('SIGKILL');
  server = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

const put = (s: ChildServer, p: string, body: object) =>
  fetch(`${s.url}/pages/kb/${p}`, { method: 'PUT', headers: HEADERS, body: JSON.stringify(body) });
const hits = async (s: ChildServer, q: string): Promise<string[]> => {
  const r = await fetch(`${s.url}/search?${new URLSearchParams({ q })}`, { headers: HEADERS });
  expect(r.status).toBe(200);
  return ((await r.json()) as { hits: Array<{ path: string }> }).hits.map((h) => h.path).sort();
};
const start = async () => {
  server = await startChild(dir);
  return server;
};
const addSpace = (s: ChildServer) =>
  fetch(`${s.url}/spaces`, { method: 'POST', headers: HEADERS, body: JSON.stringify({ slug: 'kb', name: 'KB' }) });
/** A server on a new data dir, with the space 'kb'. */
const startFresh = async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-fts-'));
  const s = await start();
  await addSpace(s);
  return s;
};
const queueLength = () => {
  const db = new Database(path.join(dir, 'kspace.db'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM fts_queue').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

describe('full-text index kept by the helper', () => {
  it('a search sees every write acknowledged before it: creates, updates, deletes', async () => {
    const s = await startFresh();
    for (let i = 0; i < 15; i++) {
      expect((await put(s, `p${i}`, { title: `P${i}`, content: `walrus number${i}` })).status).toBe(201);
      expect(await hits(s, `number${i}`)).toEqual([`p${i}`]); // at once, no waiting in the test
    }
    expect((await hits(s, 'walrus')).length).toBe(15);
    expect((await put(s, 'p3', { title: 'P3', content: 'narwhal only' })).status).toBe(200);
    expect(await hits(s, 'number3')).toEqual([]);
    expect(await hits(s, 'narwhal')).toEqual(['p3']);
    expect((await fetch(`${s.url}/pages/kb/p4`, { method: 'DELETE', headers: HEADERS })).status).toBe(204);
    expect(await hits(s, 'number4')).toEqual([]);
    expect((await hits(s, 'walrus')).length).toBe(13);
    // Queue rows the index holds are trimmed by the server (about a second later).
    expect(await waitFor(() => queueLength() === 0)).toBe(true);
  });

  it('acknowledged writes reach the index after a SIGKILL, and a lost index file is rebuilt from the pages', async () => {
    let s = await startFresh();
    const acked = await Promise.all(Array.from({ length: 40 }, (_, i) => put(s, `k${i}`, { title: `K${i}`, content: `okapi item${i}` })));
    expect(acked.every((r) => r.status === 201)).toBe(true);
    await s.stop('SIGKILL'); // no time to index: the queue rows carry the work over
    s = await start();
    expect((await hits(s, 'okapi')).length).toBe(40);
    await s.stop();
    fs.rmSync(path.join(dir, FTS_FILE));
    s = await start();
    expect((await hits(s, 'okapi')).length).toBe(40);
    expect(await hits(s, 'item7')).toEqual(['k7']);
  });

  it('an index file of another database is not trusted: it is emptied and rebuilt', async () => {
    let s = await startFresh();
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-fts-other-'));
    try {
      await put(s, 'mine', { title: 'Mine', content: 'tapir' });
      expect(await hits(s, 'tapir')).toEqual(['mine']);
      await s.stop();
      server = await startChild(other);
      await addSpace(server);
      await put(server, 'theirs', { title: 'Theirs', content: 'tapir elsewhere' });
      expect(await hits(server, 'tapir')).toEqual(['theirs']);
      await server.stop();
      for (const f of fs.readdirSync(dir).filter((f) => f.startsWith(FTS_FILE))) fs.rmSync(path.join(dir, f));
      fs.copyFileSync(path.join(other, FTS_FILE), path.join(dir, FTS_FILE));
      s = await start();
      expect(await hits(s, 'tapir')).toEqual(['mine']);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it('an index of the older format, with its own copy of the text, is replaced and rebuilt, and its space given back', async () => {
    let s = await startFresh();
    await put(s, 'kept', { title: 'Kept', content: 'okapi' });
    expect(await hits(s, 'okapi')).toEqual(['kept']);
    await s.stop();
    // The table kspace wrote before 2026-11-22, same generation and queue position, holding a
    // word the page no longer has and a few MB of text: trusted, it would answer for 'stale'.
    const fts = new Database(path.join(dir, FTS_FILE));
    const pageId = (fts.prepare('SELECT rowid AS id FROM page_fts_docsize').get() as { id: number }).id;
    fts.exec(`DROP TABLE page_fts; CREATE VIRTUAL TABLE page_fts USING fts5(title, content, tokenize = 'unicode61 remove_diacritics 2')`);
    const ins = fts.prepare('INSERT INTO page_fts (rowid, title, content) VALUES (?, ?, ?)');
    ins.run(pageId, 'Kept', 'okapi stale');
    fts.transaction(() => {
      for (let i = 1; i <= 2000; i++) ins.run(1_000_000 + i, `filler ${i}`, `padding${i} `.repeat(200));
    })();
    fts.pragma('wal_checkpoint(TRUNCATE)');
    fts.close();
    const before = fs.statSync(path.join(dir, FTS_FILE)).size;
    expect(before).toBeGreaterThan(4_000_000);

    s = await start();
    expect(await hits(s, 'stale')).toEqual([]);
    expect(await hits(s, 'okapi')).toEqual(['kept']);
    expect(await hits(s, 'padding7')).toEqual([]);
    await s.stop();
    const after = new Database(path.join(dir, FTS_FILE), { readonly: true });
    try {
      expect((after.prepare("SELECT sql FROM sqlite_schema WHERE name = 'page_fts'").get() as { sql: string }).sql).toContain(
        "content = ''",
      );
    } finally {
      after.close();
    }
    expect(fs.statSync(path.join(dir, FTS_FILE)).size).toBeLessThan(before / 10);
  });

  // The tables kspace wrote from 2026-11-22 to 2026-11-26 (contentless, with positions, in a file
  // without auto_vacuum) and later that day (detail = column, no titles' index), same
  // generation and queue position, holding a stale word: replaced by today's, phrases and the
  // title-first order still work.
  it.each([
    ['word positions (detail=full) and no auto_vacuum', '', 'PRAGMA auto_vacuum = NONE; VACUUM;'],
    ["columns (detail=column) and no titles' index", ', detail = column', ''],
  ])("an index with %s is replaced: detail=none with a titles' index", async (_, detail, vacuum) => {
    let s = await startFresh();
    await put(s, 'titled', { title: 'Marmoset', content: 'pygmy' });
    await put(s, 'kept', { title: 'Kept', content: 'the pygmy marmoset' });
    await put(s, 'apart', { title: 'Apart', content: 'a marmoset, not pygmy' });
    expect(await hits(s, '"pygmy marmoset"')).toEqual(['kept']);
    await s.stop();
    const file = path.join(dir, FTS_FILE);
    const old = new Database(file);
    old.exec(`DROP TABLE page_fts; DROP TABLE title_fts; CREATE VIRTUAL TABLE page_fts USING fts5(title, content, content = '', contentless_delete = 1${detail},
      tokenize = 'unicode61 remove_diacritics 2'); ${vacuum}`);
    const ins = old.prepare('INSERT INTO page_fts (rowid, title, content) VALUES (?, ?, ?)');
    ins.run(1, 'Marmoset', 'pygmy');
    ins.run(2, 'Kept', 'the pygmy marmoset stale');
    ins.run(3, 'Apart', 'a marmoset, not pygmy');
    old.close();

    s = await start();
    expect(await hits(s, 'stale')).toEqual([]);
    expect(await hits(s, '"pygmy marmoset"')).toEqual(['kept']);
    expect(await hits(s, 'pygmy marmoset')).toEqual(['apart', 'kept', 'titled']);
    // The title first, then the shorter page (the same words once each).
    const r = await fetch(`${s.url}/search?q=marmoset`, { headers: HEADERS });
    expect(((await r.json()) as { hits: Array<{ path: string }> }).hits.map((h) => h.path)).toEqual(['titled', 'kept', 'apart']);
    await s.stop();
    const after = new Database(file, { readonly: true });
    try {
      expect((after.prepare("SELECT sql FROM sqlite_schema WHERE name = 'page_fts'").get() as { sql: string }).sql).toContain(
        'detail = none',
      );
      expect((after.prepare("SELECT sql FROM sqlite_schema WHERE name = 'title_fts'").get() as { sql: string }).sql).toContain(
        'detail = none',
      );
      expect(after.pragma('auto_vacuum', { simple: true })).toBe(2); // incremental
    } finally {
      after.close();
    }
  });

  it('merges the index into one segment once a burst of writes is indexed, and gives the freed pages back', async () => {
    const s = await startFresh();
    // 250 words of a 20,000-word vocabulary a page: an index of a few MB, whose merge frees enough to give back.
    const words = (i: number) => Array.from({ length: 250 }, (_, k) => `w${(i * 7919 + k * 104_729) % 20_000}`).join(' ');
    const pool = new Pool(s.url, { connections: 8 });
    try {
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          for (let i = next++; i < 1200; i = next++) {
            const r = await pool.request({
              method: 'PUT',
              path: `/pages/kb/burst/p${i}`,
              headers: HEADERS,
              body: JSON.stringify({ title: `Burst ${i}`, content: `serval ${i} ${words(i)}` }),
            });
            await r.body.dump();
            expect(r.statusCode).toBe(201);
          }
        }),
      );
    } finally {
      await pool.close();
    }
    const shape = () => {
      const db = new Database(path.join(dir, FTS_FILE), { readonly: true });
      try {
        return {
          segments: db.prepare('SELECT count(DISTINCT segid) AS n FROM page_fts_idx').pluck().get() as number,
          free: db.pragma('freelist_count', { simple: true }) as number,
        };
      } finally {
        db.close();
      }
    };
    let last = { segments: 0, free: 0 };
    expect(
      await waitFor(() => {
        const now = shape();
        last = now;
        return now.segments === 1 && now.free === 0;
      }, 12_000),
      JSON.stringify(last),
    ).toBe(true);
    expect((await hits(s, 'serval')).length).toBe(50);
    expect(await hits(s, `"serval 77 ${words(77).split(' ')[0]}"`)).toEqual(['burst/p77']);
  });
});

describe('full-text index under sustained writes', () => {
  // The wiring end to end: the server measures its event loop, tells the helper "busy", the
  // helper leaves the index behind (by up to MAX_DEFER_PAGES), and catches up on "calm". The
  // unit tests cover each half (test/unit/loop-load.test.ts, checkpointer.test.ts); this one
  // shows the line gets through under real load. With indexing not deferred the helper keeps
  // the lag to a few hundred pages (it indexes up to 200 every 25 ms).
  it('lets the index fall behind while the server is busy, and catches up once it is calm', { timeout: 60_000 }, async () => {
    const s = await startFresh();
    const main = new Database(path.join(dir, 'kspace.db'), { readonly: true });
    const lag = () => {
      const queued =
        (main.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'fts_queue'").get() as { seq: number } | undefined)?.seq ?? 0;
      const idx = new Database(path.join(dir, FTS_FILE), { readonly: true });
      try {
        return queued - ((idx.prepare('SELECT indexed_seq AS n FROM fts_state WHERE id = 1').get() as { n: number } | undefined)?.n ?? 0);
      } finally {
        idx.close();
      }
    };
    const content = `# Load\n\n${'capybara grazes by the river bank. '.repeat(55)}`;
    const pool = new Pool(s.url, { connections: 16 });
    try {
      let maxLag = 0;
      let writing = true;
      const sampler = (async () => {
        while (writing) {
          maxLag = Math.max(maxLag, lag());
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      let next = 0;
      // Writes until the lag shows (at least 1,500 of them), or 20 s: on a busy test machine the
      // same 3 s of writes are fewer, and the line is about the lag, not the rate.
      const until = Date.now() + 20_000;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (Date.now() < until && (next < 1500 || maxLag <= 1000)) {
            const i = next++;
            const r = await pool.request({
              method: 'PUT',
              path: `/pages/kb/load/p${i}`,
              headers: HEADERS,
              body: JSON.stringify({ title: `Load ${i}`, content: `${content}\n\nmarker${i}` }),
            });
            await r.body.dump();
            expect(r.statusCode).toBe(201);
          }
        }),
      );
      writing = false;
      await sampler;
      expect(next).toBeGreaterThanOrEqual(1500); // enough writes to see a lag the helper would not leave
      expect(maxLag).toBeGreaterThan(1000);
      expect(await waitFor(() => lag() === 0, 15_000)).toBe(true);
      expect(await hits(s, `marker${next - 1}`)).toEqual([`load/p${next - 1}`]);
    } finally {
      await pool.close();
      main.close();
    }
  });
});

describe('full-text index without its helper', () => {
  it('a search still sees every acknowledged write after the helper died: the server indexes them itself', async () => {
    // In this process, so that the test can end the helper thread as a crash would.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-fts-'));
    const warnings: string[] = [];
    const log = { info() {}, warn: (m: string) => warnings.push(m), error: (m: string) => warnings.push(m) };
    const running = await startServer({}, { dataDir: dir, log, checkpointer: true });
    const admin = running.admin;
    const found = async (q: string) =>
      ((await admin.get(`/search?${new URLSearchParams({ q })}`)).body.hits as Array<{ path: string }>).map((h) => h.path).sort();
    try {
      expect((await admin.post('/spaces', { slug: 'kb', name: 'KB' })).status).toBe(201);
      await admin.put('/pages/kb/before', { title: 'Before', content: 'ibex' });
      expect(await found('ibex')).toEqual(['before']);
      // The helper starts a moment after the server (src/server.ts).
      expect(await waitFor(() => running.helper() !== null)).toBe(true);
      await running.helper()!.terminate();
      expect(await waitFor(() => warnings.some((w) => w.includes('checkpointer exited')))).toBe(true);
      for (let i = 0; i < 5; i++) {
        expect((await admin.put(`/pages/kb/after${i}`, { title: `After ${i}`, content: `ibex later${i}` })).status).toBe(201);
        expect(await found(`later${i}`)).toEqual([`after${i}`]);
      }
      expect((await found('ibex')).length).toBe(6);
    } finally {
      await running.close();
    }
  });
});

/**
 * Runs `fn` on an in-process server (no helper) with the space 'kb' and 30 pages queued for the
 * index and not indexed (nothing searched yet); for tests that drive a FullTextIndex of their own.
 */
async function withQueuedPages(fn: (srv: Awaited<ReturnType<typeof startServer>>) => Promise<void>): Promise<void> {
  const srv = await startServer();
  dir = srv.dataDir;
  try {
    expect((await srv.admin.post('/spaces', { slug: 'kb', name: 'KB' })).status).toBe(201);
    for (let i = 0; i < 30; i++) await srv.admin.put(`/pages/kb/p${i}`, { title: `P${i}`, content: `okapi ${i}` });
    await fn(srv);
  } finally {
    await srv.close();
  }
}

describe('a search waiting for the helper', () => {
  it('waits on while the helper reports progress, and indexes the rest itself only once the helper stops', async () => {
    // In this process, with a stand-in helper channel: the search's index is real (kspace.db and
    // kspace-fts.db of a served data dir); the stand-in only reports progress, as the helper does
    // while it rebuilds a large index, and indexes nothing.
    await withQueuedPages(async (srv) => {
      const waitMs = 300;
      const fts = createFullTextIndex(srv.svc.db, (fn) => srv.svc.writes.run(fn), 8, waitMs);
      try {
        const asked: string[] = [];
        fts.attachHelper((line) => asked.push(line));
        const target = lastQueued(srv.svc.db);
        expect(indexedSeq(fts.conn())).toBeLessThan(target); // nothing indexed in this new index file's view yet
        let done = false;
        const synced = fts.synced().then(() => (done = true));
        expect(asked).toEqual([`s ${target}`]);
        // Progress every 100 ms for three waits' worth: the search neither ends nor indexes.
        for (let seq = 1; seq <= 9; seq++) {
          await new Promise((r) => setTimeout(r, 100));
          fts.helperLine(`i ${seq}`);
        }
        expect(done).toBe(false);
        expect(indexedSeq(fts.conn())).toBeLessThan(target);
        // No more progress: after one wait the search indexes the rest itself.
        await synced;
        expect(indexedSeq(fts.conn())).toBe(target);
      } finally {
        fts.close();
      }
    });
  });
});

describe('a search before the helper has started', () => {
  it('indexes a small backlog itself, and leaves a large one to the helper, asked once it attaches', async () => {
    await withQueuedPages(async (srv) => {
      // A new, empty index file each round: every live page (30) is queued again for it.
      for (const [localMax, indexesHere] of [
        [100, true],
        [10, false],
      ] as const) {
        fs.rmSync(path.join(dir, FTS_FILE), { force: true });
        const fts = createFullTextIndex(srv.svc.db, (fn) => srv.svc.writes.run(fn), 8, 300, localMax);
        try {
          fts.conn(); // opens the new file, queues every page again
          const target = lastQueued(srv.svc.db);
          expect(target - indexedSeq(fts.conn())).toBeGreaterThanOrEqual(30); // the backlog
          expect(target - indexedSeq(fts.conn())).toBeLessThanOrEqual(100);
          fts.expectHelper();
          let done = false;
          const synced = fts.synced().then(() => (done = true));
          await new Promise((r) => setTimeout(r, 100));
          expect(done).toBe(indexesHere);
          expect(indexedSeq(fts.conn()) === target).toBe(indexesHere);
          if (!indexesHere) {
            const asked: string[] = [];
            fts.attachHelper((line) => asked.push(line));
            expect(asked).toEqual([`s ${target}`]);
            fts.helperLine(`d ${target} ${target}`); // the helper caught up
            await synced;
          }
        } finally {
          fts.close();
        }
      }
    });
  });
});

describe('schema version 1 databases', () => {
  it('are migrated: the index leaves kspace.db (every live page indexed again), the second path index goes', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-fts-'));
    let srv = await startServer({}, { dataDir: dir, keepData: true });
    await srv.admin.post('/spaces', { slug: 'kb', name: 'KB' });
    await srv.admin.put('/pages/kb/old', { title: 'Old', content: 'quokka' });
    await srv.admin.put('/pages/kb/gone', { title: 'Gone', content: 'quokka' });
    await srv.admin.del('/pages/kb/gone');
    await srv.close();
    // What version 1 had: the index inside kspace.db, no queue. Built from the version 3 schema
    // (test/support/schema-v3.sql), so that nothing a later version added is there.
    const v1 = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-fts-v1-'));
    makeOldDatabase(path.join(dir, 'kspace.db'), v1, './schema-v3.sql', 3);
    fs.rmSync(dir, { recursive: true, force: true });
    dir = v1;
    const db = new Database(path.join(dir, 'kspace.db'));
    db.exec(`DROP TABLE fts_queue; DROP TABLE derived_state;
      CREATE VIEW page_fts_source AS SELECT id, title, content FROM pages WHERE deleted_at IS NULL;
      CREATE VIRTUAL TABLE page_fts USING fts5(title, content, content = 'page_fts_source', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2');
      INSERT INTO page_fts (page_fts) VALUES ('rebuild');
      CREATE INDEX pages_live_path ON pages(space_id, path) WHERE deleted_at IS NULL;
      PRAGMA user_version = 1;`);
    db.close();
    for (const f of fs.readdirSync(dir).filter((f) => f.startsWith(FTS_FILE))) fs.rmSync(path.join(dir, f));
    srv = await startServer({}, { dataDir: dir });
    try {
      expect(srv.svc.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(
        srv.svc.db.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE name LIKE 'page_fts%' OR name = 'pages_live_path'").get(),
      ).toEqual({ n: 0 });
      expect((await srv.admin.get('/search?q=quokka')).body.hits.map((h: { path: string }) => h.path)).toEqual(['old']);
    } finally {
      await srv.close();
    }
  });
});
