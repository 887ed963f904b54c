import Database from 'better-sqlite3';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PAGE_SIZE } from '../../src/store/migrations.ts';
import { SCHEMA_VERSION, STEPS } from '../../src/store/migrations.ts';
import { makeOldDatabase } from '../support/old-db.ts';
import { tempDirs } from '../support/temp-dirs.ts';
import { startServer, type TestServer } from '../support/server.ts';

// Schema version 10 (issue 22) stores a revision's state once: the newest in the page row, older
// ones as reverse deltas. A database of version 9 (test/support/schema-v8.sql and the step to 9,
// every revision a full copy) is rewritten on open: every page and every revision reads back byte
// for byte.

const tempDir = tempDirs('mig10');

const words = (n: number, seed: number) => Array.from({ length: n }, (_, i) => `w${(i * 7919 + seed * 104729) % 5003}`).join(' ');

/** Every page (live and deleted) with every revision, as the API answers them. */
async function snapshot(srv: TestServer, paths: string[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const p of paths) {
    const live = await srv.admin.get(`/pages/wiki/${p}`);
    out.push({ p, status: live.status, body: live.status === 200 ? live.body : null });
    const list = await srv.admin.get(`/pages/wiki/${p}/revisions?limit=100`);
    out.push(list.body);
    for (const r of list.body.revisions ?? []) {
      const rev = await srv.admin.get(`/pages/wiki/${p}/revisions/${r.version}`);
      expect(rev.status).toBe(200);
      out.push(rev.body);
    }
  }
  return out;
}

describe('schema version 9 databases', () => {
  it('are rewritten to version 10 with every page and revision byte for byte, then compacted in pages of the new size', async () => {
    const src = tempDir();
    const srv = await startServer({}, { dataDir: src, keepData: true });
    await srv.admin.post('/spaces', { slug: 'wiki', name: 'Wiki' });
    // A long history: edits, metadata and frontmatter only, a page past deflate's window, text of every script.
    let text = words(300, 1);
    const written: string[] = [];
    for (let v = 1; v <= 21; v++) {
      if (v % 5 === 0) {
        await srv.admin.put('/pages/wiki/long', { title: `Long ${v}`, content: text, metadata: { v }, frontmatter: { n: v } });
        written[v] = text;
        continue;
      }
      text = v === 7 ? words(9000, 7) : v === 8 ? `é漢字🙂 ${text.slice(0, 1000)}` : text.slice(0, 200) + words(10, v) + text.slice(260);
      expect((await srv.admin.put('/pages/wiki/long', { title: `Long ${v}`, content: text, metadata: { v } })).status).toBeLessThan(300);
      written[v] = text;
    }
    // Today's layout reads back what was written, across whole states (every 8 versions) and deltas.
    for (let v = 1; v <= 21; v++) {
      const r = (await srv.admin.get(`/pages/wiki/long/revisions/${v}`)).body;
      expect([r.content, r.metadata, r.title]).toEqual([written[v], { v }, `Long ${v}`]);
    }
    await srv.admin.put('/pages/wiki/empty', { title: 'Empty', content: '' });
    await srv.admin.put('/pages/wiki/empty', { title: 'Empty', content: 'now something' });
    await srv.admin.put('/pages/wiki/empty', { title: 'Empty', content: '' });
    // Deleted; deleted and written again; restored from the trash; moved; a revision restored.
    await srv.admin.put('/pages/wiki/gone', { title: 'Gone', content: 'bye' });
    await srv.admin.del('/pages/wiki/gone');
    await srv.admin.put('/pages/wiki/again', { title: 'Again', content: 'first life' });
    await srv.admin.del('/pages/wiki/again');
    await srv.admin.put('/pages/wiki/again', { title: 'Again', content: 'second life' });
    await srv.admin.put('/pages/wiki/back', { title: 'Back', content: 'kept' });
    await srv.admin.del('/pages/wiki/back');
    expect((await srv.admin.post('/spaces/wiki/trash/restore', { path: 'back' })).status).toBe(200);
    await srv.admin.put('/pages/wiki/from', { title: 'From', content: 'moving' });
    expect((await srv.admin.post('/spaces/wiki/moves', { from: 'from', to: 'to' })).status).toBe(200);
    expect((await srv.admin.post('/pages/wiki/long/revisions/3/restore')).status).toBe(200);
    await srv.admin.put('/pages/wiki/closed', { title: 'Closed', content: 'secret one' });
    await srv.admin.put('/pages/wiki/closed/acl', { read: [] });
    await srv.admin.put('/pages/wiki/closed', { title: 'Closed', content: 'secret two' });
    const paths = ['long', 'empty', 'gone', 'again', 'back', 'to', 'closed'];
    const before = await snapshot(srv, paths);
    const first = (await srv.admin.get('/pages/wiki/long/revisions/1')).body;
    await srv.close();

    const dir = tempDir();
    makeOldDatabase(path.join(src, 'kspace.db'), dir, './schema-v8.sql', 9, STEPS.find((s) => s.to === 9)!.sql);
    const old = new Database(path.join(dir, 'kspace.db'), { readonly: true });
    // The old layout held every state in full: the version 3 of `long` is its own text.
    expect(old.prepare('SELECT count(*) AS n FROM revisions WHERE length(content) > 0').get()).toEqual({ n: 31 });
    old.close();

    const after = await startServer({}, { dataDir: dir, keepData: true });
    try {
      const db = after.svc.db;
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(db.pragma('page_size', { simple: true })).toBe(PAGE_SIZE);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(await snapshot(after, paths)).toEqual(before);
      // Written on after the upgrade, the history still reads back.
      const next = await after.admin.put('/pages/wiki/long', { title: 'Long 23', content: 'after' });
      expect(next.body.version).toBe(23);
      expect((await after.admin.get('/pages/wiki/long/revisions/22')).body.content).toBe(
        (await after.admin.get('/pages/wiki/long/revisions/3')).body.content,
      );
      expect((await after.admin.get('/pages/wiki/long/revisions/1')).body).toEqual(first);
      expect(() => db.prepare('DELETE FROM revisions').run()).toThrow(/append-only/);
    } finally {
      await after.close();
    }
  });
});
