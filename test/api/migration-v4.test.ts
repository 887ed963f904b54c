import Database from 'better-sqlite3';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/store/migrations.ts';
import { historyStates } from '../../src/store/pages.ts';
import { makeOldDatabase } from '../support/old-db.ts';
import { tempDirs } from '../support/temp-dirs.ts';
import { newAgent, startServer } from '../support/server.ts';

// A database made by schema version 3 (test/support/schema-v3.sql, the schema.sql of that
// version) is brought to the current version: every page and revision kept, and the revisions of pages
// that have an ACL treated as written under it.

const tempDir = tempDirs('mig');

type Cols = Record<string, string[]>;
function shape(db: Database.Database): Cols {
  const tables = db
    .prepare("SELECT name FROM sqlite_schema WHERE type IN ('table', 'index', 'trigger') AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as Array<{ name: string }>;
  const out: Cols = {};
  for (const { name } of tables) {
    const cols = db.prepare(`SELECT name, type, "notnull", pk FROM pragma_table_info(?) ORDER BY cid`).all(name) as Array<
      Record<string, unknown>
    >;
    out[name] = cols.map((c) => `${c.name} ${c.type} ${c.notnull} ${c.pk}`);
  }
  return out;
}

// Every revision with its whole state (since schema version 9 older states are stored as deltas).
function history(db: Database.Database): unknown[] {
  const rows = db.prepare('SELECT page_id, version, title, author_id, created_at FROM revisions ORDER BY page_id, version').all() as Array<{
    page_id: number;
    version: number;
  }>;
  const states = new Map<string, unknown>();
  for (const id of new Set(rows.map((r) => r.page_id))) {
    for (const s of historyStates(db, id))
      states.set(`${id}/${s.version}`, { content: s.content, frontmatter: s.frontmatter, metadata: s.metadata });
  }
  return rows.map((r) => ({ ...r, ...(states.get(`${r.page_id}/${r.version}`) as object) }));
}

describe('schema version 3 databases', () => {
  it('are migrated to the current version with every page and revision, the ACLs of today covering the old history, deleted pages in the trash', async () => {
    // Data written by the running server, copied into a database of the version 3 schema.
    const src = tempDir();
    const srv = await startServer({}, { dataDir: src, keepData: true });
    await srv.admin.post('/spaces', { slug: 'wiki', name: 'Wiki' });
    await srv.admin.put('/pages/wiki/open', { title: 'Open', content: 'one' });
    await srv.admin.put('/pages/wiki/open', { title: 'Open', content: 'two', metadata: { n: 1 } });
    await srv.admin.put('/pages/wiki/hr/pay', { title: 'Pay', content: 'alice 100k' });
    await srv.admin.put('/pages/wiki/hr/pay/acl', { read: [] });
    await srv.admin.put('/pages/wiki/hr/pay', { title: 'Pay', content: 'alice 120k' });
    await srv.admin.put('/pages/wiki/gone', { title: 'Gone' });
    await srv.admin.del('/pages/wiki/gone');
    const fresh = new Database(path.join(src, 'kspace.db'), { readonly: true });
    const freshShape = shape(fresh);
    const before = history(fresh);
    const pages = fresh.prepare('SELECT * FROM pages ORDER BY id').all();
    fresh.close();
    await srv.close();

    const dir = tempDir();
    makeOldDatabase(path.join(src, 'kspace.db'), dir, './schema-v3.sql', 3);

    const after = await startServer({}, { dataDir: dir });
    try {
      const db = after.svc.db;
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(history(db)).toEqual(before);
      expect(db.prepare('SELECT * FROM pages ORDER BY id').all()).toEqual(pages);
      // The migrated database has the shape of a new one (schema.sql and the steps agree).
      expect(shape(db)).toEqual(freshShape);
      expect((await after.admin.get('/pages/wiki/open/revisions/1')).body.content).toBe('one');
      // The old history counts as written under the page's ACL of today: a reader added later
      // reads the page, not that history.
      const reader = await newAgent(after, 'carol');
      expect((await after.admin.put('/pages/wiki/hr/pay/acl', { read: [reader.id] })).status).toBe(200);
      expect((await reader.get('/pages/wiki/hr/pay')).body.content).toBe('alice 120k');
      expect((await reader.get('/pages/wiki/hr/pay/revisions/1')).status).toBe(404);
      expect((await reader.get('/pages/wiki/hr/pay/revisions/2')).status).toBe(404);
      expect((await after.admin.get('/pages/wiki/hr/pay/revisions/1')).body.content).toBe('alice 100k');
      // Version 6 (trash, moves): a page deleted by the older kspace is in its space's trash.
      const trash = await after.admin.get('/spaces/wiki/trash');
      expect(trash.body.pages).toEqual([expect.objectContaining({ path: 'gone', title: 'Gone', version: 1, deletedBy: null })]);
      const restored = await after.admin.post('/spaces/wiki/trash/restore', { path: 'gone' });
      expect(restored.status).toBe(200);
      expect(restored.body).toMatchObject({ path: 'gone', title: 'Gone', version: 2 });
      // … and a page moves, its old address redirecting.
      const moved = await after.admin.post('/spaces/wiki/moves', { from: 'open', to: 'opened' });
      expect(moved.body.moved).toEqual([{ from: 'open', to: 'opened' }]);
      expect((await after.admin.get('/pages/wiki/opened/revisions/1')).body.content).toBe('one');
    } finally {
      await after.close();
    }
  });
});
