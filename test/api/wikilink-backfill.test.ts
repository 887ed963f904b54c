import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backlinksOf } from '../support/links.ts';
import { startServer } from '../support/server.ts';

// A database upgraded from before schema version 8 holds pages whose `[[…]]` text the link index
// never read. The server indexes them once, in the background, a second after start
// (src/domain/links/wikilink-backfill.ts), and records that in derived_state.

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-wikifill-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('wikilinks of pages written before they were links', () => {
  it('are indexed once after start, in the background, and marked done', async () => {
    const first = await startServer({}, { dataDir: dir, keepData: true });
    await first.admin.post('/spaces', { slug: 'kb', name: 'KB' });
    await first.admin.put('/pages/kb/target', { title: 'Target', content: 'x' });
    await first.admin.put('/pages/kb/notes/a', { title: 'A', content: 'see [[target]] and [[Target|by title]]' });
    await first.admin.put('/pages/kb/plain', { title: 'Plain', content: 'no links here' });
    expect(await backlinksOf(first.admin, 'kb/target')).toEqual(['kb/notes/a']);
    await first.close();

    // What an older kspace left: no wikilink rows, and no mark.
    const db = new Database(path.join(dir, 'kspace.db'));
    expect(db.prepare("SELECT value FROM derived_state WHERE name = 'wikilinks_indexed'").get()).toBeDefined(); // a new database is marked
    db.exec("DELETE FROM links; DELETE FROM wikilink_keys; DELETE FROM derived_state WHERE name = 'wikilinks_indexed'");
    db.close();

    const second = await startServer({}, { dataDir: dir, keepData: true });
    try {
      expect(await backlinksOf(second.admin, 'kb/target')).toEqual([]);
      const deadline = Date.now() + 10_000;
      while ((await backlinksOf(second.admin, 'kb/target')).length === 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(await backlinksOf(second.admin, 'kb/target')).toEqual(['kb/notes/a']);
      const mark = second.svc.db.prepare("SELECT value FROM derived_state WHERE name = 'wikilinks_indexed'").get() as
        | { value: string }
        | undefined;
      expect(mark?.value).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(second.errors).toEqual([]);
    } finally {
      await second.close();
    }
  });
});
