import Database from 'better-sqlite3';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/store/migrations.ts';
import { tempDirs } from '../support/temp-dirs.ts';
import { client, type Client } from '../support/client.ts';
import { startServer } from '../support/server.ts';
import { STORED_EVENTS } from '../support/old-db.ts';

// Schema version 21 keys the change feed by (txid, seq), its times in epoch milliseconds, with no
// index beside the key, and 23 keeps its events as numbers (store/changes.ts); 22 keeps a
// revision's time in epoch milliseconds (store/migrate-revisions.ts). A database of version 20
// (changes a rowid table with ISO times, event names and indexes on txid and time, revisions with
// ISO times) is rewritten on open: the feed answers the same, byte for byte, to an admin and to an
// agent who sees part of it, whole and a page at a time, and goes on from there; so do the
// histories, and revisions stay append-only.

const tempDir = tempDirs('mig22');

/** The history of each page, as listed and revision by revision (raw answers). */
async function histories(c: Client, paths: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) {
    const list = await c.get(`/pages/${p}/revisions`);
    out.push(`${list.status} ${list.text}`);
    for (const r of list.status === 200 ? (list.body.revisions as Array<{ version: number }>) : [])
      out.push((await c.get(`/pages/${p}/revisions/${r.version}`)).text);
  }
  return out;
}

/** Every change after `since`, read `limit` at a time (the raw answers, to compare byte for byte). */
async function pages(c: Client, since: number, limit: number): Promise<string[]> {
  const out: string[] = [];
  for (let at = since; ; ) {
    const r = await c.get(`/changes?since=${at}&limit=${limit}`);
    expect(r.status, r.text).toBe(200);
    out.push(r.text);
    if (r.body.changes.length === 0) return out;
    at = r.body.nextSince;
  }
}

describe('schema version 20 databases', () => {
  it('have their change feed and revision times rewritten on open, answering the same', async () => {
    const dir = tempDir();
    const srv = await startServer({}, { dataDir: dir, keepData: true });
    const a = srv.admin;
    const bobId = (await a.post('/admin/principals', { name: 'bob', kind: 'agent' })).body.id as string;
    const bobKey = (await a.post(`/admin/principals/${bobId}/keys`)).body.key as string;
    expect((await a.post('/spaces', { slug: 'wiki', name: 'Wiki' })).status).toBe(201);
    expect((await a.post('/spaces', { slug: 'vault', name: 'Vault', defaultAccess: 'none' })).status).toBe(201);
    for (const p of ['one', 'two', 'three']) expect((await a.put(`/pages/wiki/${p}`, { title: p, content: p })).status).toBe(201);
    expect((await a.put('/pages/wiki/one', { title: 'one', content: 'again' })).status).toBe(200);
    expect((await a.req('PUT', '/files/wiki/one/pic.txt', 'hello', { 'content-type': 'text/plain' })).status).toBe(201);
    expect((await a.put('/pages/wiki/two/acl', { read: [], write: [] })).status).toBe(200);
    expect((await a.post('/spaces/wiki/moves', { from: 'three', to: 'moved', toSpace: 'vault' })).status).toBe(200);
    expect((await a.del('/pages/wiki/one')).status).toBe(204);
    // One transaction of several changes: a folder moved.
    for (const p of ['dir/a', 'dir/b', 'dir/c']) expect((await a.put(`/pages/wiki/${p}`, { title: p, content: p })).status).toBe(201);
    expect((await a.post('/spaces/wiki/moves', { from: 'dir', to: 'folder', prefix: true })).status).toBe(200);
    const bob = client(srv.url, bobKey);
    const paths = ['wiki/one', 'wiki/two', 'vault/moved', 'wiki/folder/a'];
    const before = { admin: await pages(a, 0, 1000), bob: await pages(bob, 0, 1000), paged: await pages(a, 0, 2) };
    const historyBefore = { admin: await histories(a, paths), bob: await histories(bob, paths) };
    expect(historyBefore.admin.join('\n')).toContain('"createdAt":"20');
    expect(JSON.parse(before.admin[0]).changes.length).toBeGreaterThan(12);
    await srv.close();

    // Version 20's table: rowid ids in commit order, ISO times, indexes on txid and at.
    const db = new Database(path.join(dir, 'kspace.db'));
    const rows = db.prepare('SELECT * FROM changes ORDER BY txid, seq').all() as Array<Record<string, unknown> & { at: number }>;
    db.exec(`DROP TABLE changes;
      CREATE TABLE changes (
        id INTEGER PRIMARY KEY, txid INTEGER NOT NULL, at TEXT NOT NULL, event TEXT NOT NULL, page_id INTEGER NOT NULL,
        space_id INTEGER NOT NULL, path TEXT NOT NULL, version INTEGER, readers TEXT,
        from_space_id INTEGER, from_path TEXT, from_readers TEXT, actor_id TEXT NOT NULL, actor_kind TEXT NOT NULL);
      CREATE INDEX changes_txid ON changes(txid);
      CREATE INDEX changes_at ON changes(at);`);
    const insert = db.prepare(`INSERT INTO changes (txid, at, event, page_id, space_id, path, version, readers, from_space_id, from_path,
      from_readers, actor_id, actor_kind) VALUES (@txid, @at, @event, @page_id, @space_id, @path, @version, @readers, @from_space_id,
      @from_path, @from_readers, @actor_id, @actor_kind)`);
    const names = STORED_EVENTS;
    for (const { seq: _, ...r } of rows) insert.run({ ...r, at: new Date(r.at).toISOString(), event: names[r.event as number] });
    // And version 21's revisions: created_at an ISO string.
    db.exec(`DROP TRIGGER revisions_no_update; DROP TRIGGER revisions_no_delete;
      ALTER TABLE revisions RENAME TO revisions_22;
      CREATE TABLE revisions (
        id INTEGER PRIMARY KEY, page_id INTEGER NOT NULL REFERENCES pages(id), version INTEGER NOT NULL,
        title TEXT NOT NULL, author_id TEXT NOT NULL REFERENCES principals(id), created_at TEXT NOT NULL,
        readers TEXT, prev BLOB, UNIQUE (page_id, version));
      INSERT INTO revisions SELECT id, page_id, version, title, author_id,
        strftime('%Y-%m-%dT%H:%M:%fZ', created_at / 1000.0, 'unixepoch'), readers, prev FROM revisions_22;
      DROP TABLE revisions_22;`);
    db.pragma('user_version = 20');
    db.close();

    const after = await startServer({}, { dataDir: dir });
    try {
      expect(after.svc.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      const bobAfter = client(after.url, bobKey);
      expect({
        admin: await pages(after.admin, 0, 1000),
        bob: await pages(bobAfter, 0, 1000),
        paged: await pages(after.admin, 0, 2),
      }).toEqual(before);
      expect({ admin: await histories(after.admin, paths), bob: await histories(bobAfter, paths) }).toEqual(historyBefore);
      const db2 = after.svc.db;
      expect(db2.prepare('SELECT DISTINCT typeof(created_at) FROM revisions').pluck().all()).toEqual(['integer']);
      expect(() => db2.prepare('DELETE FROM revisions').run()).toThrow(/append-only/);
      expect(db2.prepare("SELECT name FROM sqlite_schema WHERE tbl_name = 'changes' AND type = 'index'").pluck().all()).toEqual([]);
      expect(db2.prepare('SELECT DISTINCT typeof(at) FROM changes').pluck().all()).toEqual(['integer']);
      // The move of the folder (page.moved, event 3): one txid, its rows numbered in their order.
      const folder = db2.prepare("SELECT seq, path FROM changes WHERE event = 3 AND path LIKE 'folder/%' ORDER BY seq").all();
      expect(folder).toEqual([
        { seq: 0, path: 'folder/a' },
        { seq: 1, path: 'folder/b' },
        { seq: 2, path: 'folder/c' },
      ]);
      // And the feed goes on from where it was.
      const last = JSON.parse(before.admin[before.admin.length - 1]).nextSince as number;
      expect((await after.admin.put('/pages/wiki/new', { title: 'New', content: '' })).status).toBe(201);
      const next = await after.admin.get(`/changes?since=${last}`);
      expect(next.body.changes.map((c: { event: string; path: string }) => `${c.event} ${c.path}`)).toEqual(['page.created new']);
    } finally {
      await after.close();
    }
  });
});
