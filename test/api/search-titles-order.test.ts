import { describe, expect, it } from 'vitest';
import { PAGES_TITLE_ORDER_SQL, titleOrderText, titleWordRows } from '../../src/store/title-words-schema.ts';
import { tempDirs } from '../support/temp-dirs.ts';
import { client } from '../support/client.ts';
import { startServer, type Client, type TestServer } from '../support/server.ts';
import { useServer } from '../support/fixture.ts';

// GET /search/titles walks and sorts title_order, a copy of each live page's place in the titles'
// order (title length, updated_at in epoch milliseconds), its access columns (space, has_acl) and its title index words
// (store/title-words-schema.ts). The copy must follow every change of what it copies: writes,
// retitles, aliases, moves within and across spaces, deletes, restores, revivals, ACL set and
// dropped, metadata patches. After each step the table is compared with what the pages table
// and the title index rules say it holds, and bob's answers with the pages he may read.

const { srv, bob } = useServer({ agents: ['bob'], spaces: [{ slug: 'one' }, { slug: 'two' }], noErrors: true });
const tempDir = tempDirs('title-order');

type Row = { len: number; updated_at: number; page_id: number; space_id: number; has_acl: number; wholes: string; words: string };

/** title_order and title_words as they are, and as the live pages say they should be. */
function both(s: TestServer): { held: Row[]; expected: Row[]; words: string[]; expectedWords: string[] } {
  const db = s.svc.db;
  const held = db.prepare('SELECT * FROM title_order ORDER BY page_id').all() as Row[];
  const words = (
    db.prepare('SELECT page_id, whole, word FROM title_words').all() as Array<{ page_id: number; whole: number; word: string }>
  )
    .map((r) => `${r.page_id} ${r.whole} ${r.word}`)
    .sort();
  const live = db
    .prepare(
      'SELECT id, length(title) AS len, title, path, frontmatter, updated_at, space_id, has_acl FROM pages WHERE deleted_at IS NULL ORDER BY id',
    )
    .all() as Array<{
    id: number;
    len: number;
    title: string;
    path: string;
    frontmatter: string;
    updated_at: string;
    space_id: number;
    has_acl: number;
  }>;
  const expected = live.map((p) => ({
    len: p.len,
    updated_at: Date.parse(p.updated_at),
    page_id: p.id,
    space_id: p.space_id,
    has_acl: p.has_acl,
    ...titleOrderText(titleWordRows(p.title, p.path, JSON.parse(p.frontmatter))),
  }));
  const expectedWords = live
    .flatMap((p) => titleWordRows(p.title, p.path, JSON.parse(p.frontmatter)).map((r) => `${p.id} ${r.whole} ${r.word}`))
    .sort();
  return { held, expected, words, expectedWords };
}

const expectInStep = (what: string) => {
  const { held, expected, words, expectedWords } = both(srv);
  expect(held, what).toEqual(expected);
  expect(words, what).toEqual(expectedWords);
};

const titles = async (c: Client, q: string) => {
  const r = await c.get(`/search/titles?q=${encodeURIComponent(q)}`);
  expect(r.status).toBe(200);
  return (r.body.hits as Array<{ space: string; path: string }>).map((h) => `${h.space}/${h.path}`);
};

describe('title_order', () => {
  it('follows writes, moves, deletes, restores and ACL changes of the pages it copies', async () => {
    const a = srv.admin;
    expect((await a.put('/pages/one/alpha', { title: 'Quokka notes', content: 'x' })).status).toBe(201);
    expect((await a.put('/pages/one/beta', { title: 'Quokka', content: 'x', frontmatter: { aliases: ['Wallaby diary'] } })).status).toBe(
      201,
    );
    expect((await a.put('/pages/one/dir/gamma', { title: 'Gamma', content: 'x' })).status).toBe(201);
    expectInStep('written');
    expect(await titles(bob, 'quok')).toEqual(['one/beta', 'one/alpha']);

    expect((await a.put('/pages/one/alpha', { title: 'Quokka', content: 'y' })).status).toBe(200);
    expectInStep('retitled');
    // Same title length: the one changed last first.
    expect(await titles(bob, 'quokka')).toEqual(['one/alpha', 'one/beta']);
    expect((await a.patch('/pages/one/beta/metadata', { set: { stage: 'done' } })).status).toBe(200);
    expectInStep('metadata patched');
    expect(await titles(bob, 'quokka')).toEqual(['one/beta', 'one/alpha']);

    expect((await a.put('/pages/one/beta', { title: 'Quokka', content: 'x', frontmatter: {} })).status).toBe(200);
    expectInStep('alias dropped');
    expect(await titles(bob, 'wallaby')).toEqual([]);

    expect((await a.put('/pages/one/alpha/acl', { read: [], write: [] })).status).toBe(200);
    expectInStep('ACL set');
    expect(await titles(bob, 'quokka')).toEqual(['one/beta']);
    expect(await titles(a, 'quokka')).toEqual(['one/beta', 'one/alpha']);
    expect((await a.del('/pages/one/alpha/acl')).status).toBe(200);
    expectInStep('ACL dropped');
    expect(await titles(bob, 'quokka')).toEqual(['one/beta', 'one/alpha']);

    expect((await a.post('/spaces/one/moves', { from: 'dir/gamma', to: 'moved/gamma' })).status).toBeLessThan(300);
    expectInStep('moved within its space');
    expect(await titles(bob, 'moved')).toEqual(['one/moved/gamma']);
    expect((await a.post('/spaces/one/moves', { from: 'moved/gamma', to: 'gamma', toSpace: 'two' })).status).toBeLessThan(300);
    expectInStep('moved to another space');
    expect(await titles(bob, 'gamma')).toEqual(['two/gamma']);

    expect((await a.put('/pages/two/gamma/acl', { read: [], write: [] })).status).toBe(200);
    expect((await a.del('/pages/two/gamma')).status).toBe(204);
    expectInStep('deleted');
    expect(await titles(a, 'gamma')).toEqual([]);
    expect((await a.post('/spaces/two/trash/restore', { path: 'gamma' })).status).toBe(200);
    expectInStep('restored with its ACL');
    expect(await titles(a, 'gamma')).toEqual(['two/gamma']);
    expect(await titles(bob, 'gamma')).toEqual([]);

    expect((await a.del('/pages/one/beta')).status).toBe(204);
    expect((await a.put('/pages/one/beta', { title: 'Beta again', content: 'z' })).status).toBe(201);
    expectInStep('revived by a write at its address');
    expect(await titles(bob, 'beta')).toEqual(['one/beta']);
  });

  it('is filled from the live pages by the steps to schema versions 19 and 20', async () => {
    const dir = tempDir();
    const old = await startServer({}, { dataDir: dir, keepData: true });
    expect((await old.admin.post('/spaces', { slug: 'w', name: 'W' })).status).toBe(201);
    expect((await old.admin.put('/pages/w/a', { title: 'Okapi', content: 'x', frontmatter: { aliases: 'Forest giraffe' } })).status).toBe(
      201,
    );
    expect((await old.admin.put('/pages/w/b', { title: 'Okapi herd', content: 'x' })).status).toBe(201);
    expect((await old.admin.put('/pages/w/b/acl', { read: [], write: [] })).status).toBe(200);
    expect((await old.admin.put('/pages/w/c', { title: 'Okapi gone', content: 'x' })).status).toBe(201);
    expect((await old.admin.del('/pages/w/c')).status).toBe(204);
    // Version 18: no title_order, the index pages_title_order instead, title_words by page id.
    old.svc.db.exec(`DROP TABLE title_order; ${PAGES_TITLE_ORDER_SQL} CREATE INDEX title_words_page ON title_words(page_id, whole, word);`);
    old.svc.db.pragma('user_version = 18');
    await old.close();
    const after = await startServer({}, { dataDir: dir });
    try {
      const { held, expected, words, expectedWords } = both(after);
      expect(held).toHaveLength(2);
      expect(held).toEqual(expected);
      expect(words).toEqual(expectedWords);
      expect(await titles(after.admin, 'okapi')).toEqual(['w/a', 'w/b']);
      expect(await titles(after.admin, 'forest gir')).toEqual(['w/a']);
      expect(after.svc.db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'title_words_page'").pluck().get()).toBe(0);
      // A write after the upgrade finds the page's old title_words rows by its title_order row.
      expect((await after.admin.put('/pages/w/a', { title: 'Zebra duiker', content: 'x' })).status).toBe(200);
      const again = both(after);
      expect(again.words).toEqual(again.expectedWords);
      expect(await titles(after.admin, 'okapi')).toEqual(['w/b']);
    } finally {
      await after.close();
    }
  });

  it('is made anew, its times in milliseconds, by the step to schema version 20', async () => {
    const dir = tempDir();
    const old = await startServer({}, { dataDir: dir, keepData: true });
    expect((await old.admin.post('/spaces', { slug: 'w', name: 'W' })).status).toBe(201);
    // Same title lengths (ordered by time, then id) and other lengths, an alias, a page with an ACL.
    for (const [p, title] of [
      ['a', 'Tapir one'],
      ['b', 'Tapir two'],
      ['c', 'Tapir'],
      ['d', 'Tapir three'],
      ['e', 'Tapir fox'],
    ])
      expect((await old.admin.put(`/pages/w/${p}`, { title, content: 'x' })).status).toBe(201);
    expect((await old.admin.put('/pages/w/b', { title: 'Tapir two', content: 'y', frontmatter: { aliases: 'Tapir pair' } })).status).toBe(
      200,
    );
    expect((await old.admin.put('/pages/w/e/acl', { read: [], write: [] })).status).toBe(200);
    const queries = ['tapir', 'tap', 'tapir t', 'tapir pair', 'w'];
    const answers = async (c: Client) => Promise.all(queries.map((q) => titles(c, q)));
    const carolId = (await old.admin.post('/admin/principals', { name: 'carol', kind: 'agent' })).body.id as string;
    const carolKey = (await old.admin.post(`/admin/principals/${carolId}/keys`)).body.key as string;
    const carol = client(old.url, carolKey);
    const before = await answers(old.admin);
    const beforeCarol = await answers(carol);
    // Version 19: title_order keyed in answer order, its times ISO strings.
    old.svc.db.exec(`ALTER TABLE title_order RENAME TO title_order_20;
      CREATE TABLE title_order (
        len INTEGER NOT NULL, updated_at TEXT NOT NULL, page_id INTEGER NOT NULL REFERENCES pages(id),
        space_id INTEGER NOT NULL, has_acl INTEGER NOT NULL, wholes TEXT NOT NULL, words TEXT NOT NULL,
        PRIMARY KEY (len, updated_at DESC, page_id)) WITHOUT ROWID;
      INSERT INTO title_order SELECT o.len, p.updated_at, o.page_id, o.space_id, o.has_acl, o.wholes, o.words
        FROM title_order_20 o JOIN pages p ON p.id = o.page_id;
      DROP TABLE title_order_20;
      CREATE INDEX title_order_page ON title_order(page_id);`);
    old.svc.db.pragma('user_version = 19');
    await old.close();
    const after = await startServer({}, { dataDir: dir });
    try {
      const { held, expected } = both(after);
      expect(held).toHaveLength(5);
      expect(held).toEqual(expected);
      expect(typeof held[0].updated_at).toBe('number');
      expect(await answers(after.admin)).toEqual(before);
      expect(await answers(client(after.url, carolKey))).toEqual(beforeCarol);
      expect(before[0]).toEqual(['w/c', 'w/b', 'w/e', 'w/a', 'w/d']);
      expect(beforeCarol[0]).toEqual(['w/c', 'w/b', 'w/a', 'w/d']);
    } finally {
      await after.close();
    }
  });
});
