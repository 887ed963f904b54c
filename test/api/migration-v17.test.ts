import Database from 'better-sqlite3';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/store/migrations.ts';
import { FTS_FILE } from '../../src/store/fts/index-file.ts';
import { PAGES_TITLE_ORDER_SQL } from '../../src/store/title-words-schema.ts';
import { tempDirs } from '../support/temp-dirs.ts';
import { startServer } from '../support/server.ts';

// Schema version 17 (issue 37) indexes CJK runs as bigrams (src/text/cjk.ts). A database of
// version 16 has its CJK pages in the full-text index the old way, each run one word: on open,
// the step to 17 queues the live pages holding CJK characters, and they are indexed anew; their
// title index rows (GET /search/titles), where a CJK run and the letters before it were one word,
// are written anew.

const tempDir = tempDirs('mig17');

describe('schema version 16 databases', () => {
  it('have their CJK pages indexed again as bigrams on open', async () => {
    const dir = tempDir();
    const srv = await startServer({}, { dataDir: dir, keepData: true });
    await srv.admin.post('/spaces', { slug: 'wiki', name: 'Wiki' });
    const pages: Array<[string, string, string]> = [
      ['ja', 'コミュニティプラグイン', 'Obsidianのプラグインを使う。'],
      ['ko', '안내', '커뮤니티 플러그인을 설치'],
      ['en', 'Plain', 'nothing but words'],
      ['mixed', 'Kspaceのノート', 'x'],
      ['gone', 'プラグイン', 'プラグイン'],
    ];
    for (const [p, title, content] of pages) expect((await srv.admin.put(`/pages/wiki/${p}`, { title, content })).status).toBe(201);
    expect((await srv.admin.del('/pages/wiki/gone')).status).toBe(204);
    await srv.admin.get('/search?q=words'); // the index catches up
    await srv.close();

    // Version 16: the index holds each page's text as it was given (a CJK run one word).
    const main = new Database(path.join(dir, 'kspace.db'));
    const rows = main.prepare('SELECT id, title, content FROM pages WHERE deleted_at IS NULL').all() as Array<{
      id: number;
      title: string;
      content: string;
    }>;
    // The title index as version 16 made it: a CJK run and the letters before it one word.
    const mixed = rows.find((r) => r.title === 'Kspaceのノート')!.id;
    main.prepare('DELETE FROM title_words WHERE page_id = ?').run(mixed);
    for (const [word, whole] of [
      ['kspaceのノート', 1],
      ['kspaceのノート', 0],
      ['mixed', 0],
    ])
      main.prepare('INSERT INTO title_words (word, whole, page_id) VALUES (?, ?, ?)').run(word, whole, mixed);
    main.pragma('user_version = 16');
    main.exec(`DROP TABLE title_order; ${PAGES_TITLE_ORDER_SQL} CREATE INDEX title_words_page ON title_words(page_id, whole, word);`); // schema version 19's
    main.close();
    const fts = new Database(path.join(dir, FTS_FILE));
    for (const r of rows) {
      fts.prepare('DELETE FROM page_fts WHERE rowid = ?').run(r.id);
      fts.prepare('DELETE FROM title_fts WHERE rowid = ?').run(r.id);
      fts.prepare('INSERT INTO page_fts (rowid, title, content) VALUES (?, ?, ?)').run(r.id, r.title, r.content);
      fts.prepare('INSERT INTO title_fts (rowid, title) VALUES (?, ?)').run(r.id, r.title);
    }
    fts.close();

    const again = await startServer({}, { dataDir: dir });
    try {
      expect(again.svc.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      const found = async (q: string) =>
        ((await again.admin.get(`/search?${new URLSearchParams({ q })}`)).body.hits as Array<{ path: string }>).map((h) => h.path).sort();
      expect(await found('プラグ')).toEqual(['ja']);
      expect(await found('コミュニティ')).toEqual(['ja']);
      expect(await found('obsidian')).toEqual(['ja']);
      expect(await found('러그')).toEqual(['ko']);
      expect(await found('words')).toEqual(['en']);
      expect(await found('ノー')).toEqual(['mixed']);
      const titles = await again.admin.get('/search/titles?q=%E3%81%AE%E3%83%8E');
      expect(titles.body.hits.map((h: { path: string }) => h.path)).toEqual(['mixed']);
      expect(again.errors).toEqual([]);
    } finally {
      await again.close();
    }
  });
});
