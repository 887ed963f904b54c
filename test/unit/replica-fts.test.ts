import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import path from 'node:path';
import { openDb } from '../../src/store/db/connection.ts';
import type { Db } from '../../src/store/db/types.ts';
import { queueForIndex, trimQueue } from '../../src/store/fts/index-file.ts';
import { REPLICA_FTS_FILE, createReplicaFullTextIndex } from '../../src/store/fts/replica-index.ts';
import { tempDirs } from '../support/temp-dirs.ts';

// A replica's own full-text index (src/store/fts/replica-index.ts) over a read-only copy, written here
// directly: it follows the queue while its rows are there, and compares page versions once rows
// were trimmed before it looked; a large first index goes in steps.

const tempDir = tempDirs('replica-fts');

function setup(): { primary: Db; copy: Db } {
  const dir = tempDir();
  const primary = openDb(dir);
  primary.exec(`INSERT INTO orgs (id, slug, name, created_at) VALUES (1, 'o', 'O', '');
    INSERT INTO spaces (id, org_id, slug, name, created_at, updated_at) VALUES (1, 1, 's', 'S', '', '');
    INSERT INTO derived_state (name, value) VALUES ('fts_generation', 'g1');`);
  return { primary, copy: new Database(path.join(dir, 'kspace.db'), { readonly: true }) };
}

let nextId = 1;
function write(db: Db, id: number | null, title: string, content: string, deleted = false): number {
  const pid = id ?? nextId++;
  db.prepare(`INSERT INTO pages (id, space_id, path, title, content, version, created_at, updated_at, deleted_at)
    VALUES (?, 1, ?, ?, ?, 1, '', '', ?) ON CONFLICT (id) DO UPDATE SET title = excluded.title, content = excluded.content,
    version = version + 1, deleted_at = excluded.deleted_at`).run(pid, `p${pid}`, title, content, deleted ? 'x' : null);
  queueForIndex(db, pid);
  return pid;
}

const hits = (idx: ReturnType<typeof createReplicaFullTextIndex>, term: string, table = 'page_fts') =>
  idx.conn().prepare(`SELECT rowid FROM fts.${table} WHERE ${table} MATCH ? ORDER BY rowid`).pluck().all(term) as number[];

describe('a replica full-text index', () => {
  it('follows the queue, then compares versions when rows were trimmed before it looked', async () => {
    const { primary, copy } = setup();
    const idx = createReplicaFullTextIndex(copy);
    const a = write(primary, null, 'alpha', 'first words');
    const b = write(primary, null, 'beta', 'second words');
    await idx.synced();
    expect(hits(idx, 'words')).toEqual([a, b]);
    write(primary, a, 'alpha', 'changed text');
    write(primary, b, 'beta', 'second words', true); // deleted
    const c = write(primary, null, 'gamma', 'third words');
    await idx.synced();
    expect(hits(idx, 'words')).toEqual([c]);
    expect(hits(idx, 'changed')).toEqual([a]);
    // The primary trims rows the replica has not seen: the replica compares every page instead.
    write(primary, a, 'alpha', 'again different');
    write(primary, b, 'beta', 'restored words'); // undeleted
    trimQueue(primary, 1_000_000);
    await idx.synced();
    expect(hits(idx, 'words')).toEqual([b, c]);
    expect(hits(idx, 'different')).toEqual([a]);
    expect(hits(idx, 'changed')).toEqual([]);
    idx.close();
    copy.close();
    primary.close();
  });

  it('indexes a large copy in steps, and starts over for another kspace.db generation', async () => {
    const { primary, copy } = setup();
    const ids = primary.transaction(() =>
      Array.from({ length: 1200 }, (_, i) => write(primary, null, `t${i}`, i % 2 ? 'odd page' : 'even page')),
    )();
    trimQueue(primary, 1_000_000); // a first start on a copy whose queue is empty: the comparison path
    const idx = createReplicaFullTextIndex(copy);
    await idx.synced();
    expect(hits(idx, 'odd').length).toBe(600);
    expect(hits(idx, 'page').length).toBe(1200);
    primary.prepare("UPDATE derived_state SET value = 'g2' WHERE name = 'fts_generation'").run();
    primary.prepare('DELETE FROM pages WHERE id = ?').run(ids[0]);
    await idx.synced();
    expect(hits(idx, 'page').length).toBe(1199);
    idx.close();
    copy.close();
    primary.close();
  });

  it("keeps the titles' index too, and replaces an index of the format before it (columns, no titles' index)", async () => {
    const { primary, copy } = setup();
    const a = write(primary, null, 'alpha words', 'body');
    const b = write(primary, null, 'beta', 'words');
    let idx = createReplicaFullTextIndex(copy);
    await idx.synced();
    expect(hits(idx, 'words')).toEqual([a, b]);
    expect(hits(idx, 'words', 'title_fts')).toEqual([a]);
    idx.close();
    // The file as kspace wrote it for a few hours of 2026-11-26 (detail = column), caught up with this copy: replaced, not trusted.
    const old = new Database(path.join(path.dirname(copy.name), REPLICA_FTS_FILE));
    old.exec(`DROP TABLE page_fts; DROP TABLE title_fts; CREATE VIRTUAL TABLE page_fts USING fts5(title, content,
      content = '', contentless_delete = 1, detail = column, tokenize = 'unicode61 remove_diacritics 2');
      INSERT INTO page_fts (rowid, title, content) VALUES (${b}, 'beta', 'stale');`);
    old.close();
    idx = createReplicaFullTextIndex(copy);
    await idx.synced();
    expect(hits(idx, 'stale')).toEqual([]);
    expect(hits(idx, 'words')).toEqual([a, b]);
    expect(hits(idx, 'words', 'title_fts')).toEqual([a]);
    idx.close();
    copy.close();
    primary.close();
  });
});
