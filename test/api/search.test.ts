import { describe, expect, it } from 'vitest';
import { ranking } from '../../src/domain/search/full-text.ts';
import { startServer, type Client } from '../support/server.ts';
import { hitPaths, search, useSearchServer } from '../support/search.ts';

const { srv, bob } = useSearchServer();
const paths = hitPaths;

/** Every hit over all pages of a search, following nextCursor. */
async function searchAll(c: Client, q: string, limit: number, extra = ''): Promise<string[]> {
  const out: string[] = [];
  let cursor = '';
  for (let i = 0; i < 100; i++) {
    const r = await search(c, q, `&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}${extra}`);
    expect(r.status).toBe(200);
    expect(r.body.hits.length).toBeLessThanOrEqual(limit);
    out.push(...paths(r));
    if (!r.body.nextCursor) return out;
    cursor = r.body.nextCursor;
  }
  throw new Error('no end');
}

describe('GET /search', () => {
  it('ranks pages holding every word first, then pages holding some; title matches above body matches; marks the match', async () => {
    await srv.admin.put('/pages/kb/body-only', { title: 'Notes', content: 'The zebrafish tank needs cleaning. Zebrafish eat flakes.' });
    await srv.admin.put('/pages/kb/title-hit', { title: 'Zebrafish', content: 'A small freshwater fish.' });
    await srv.admin.put('/pages/kb/unrelated', { title: 'Cats', content: 'Cats sleep a lot.' });
    const r = await search(srv.admin, 'zebrafish');
    expect(r.status).toBe(200);
    expect(paths(r)).toEqual(['kb/title-hit', 'kb/body-only']);
    expect(r.body.hits[0]).toMatchObject({ space: 'kb', path: 'title-hit', title: 'Zebrafish' });
    expect(r.body.hits[1].snippet).toContain('<mark>zebrafish</mark>');
    expect(r.body.hits[0].score).toBeGreaterThan(r.body.hits[1].score);
    expect(r.body.hits[1].score).toBeGreaterThan(0);
    expect(r.body.nextCursor).toBeNull();
    // Every word first, then the pages holding some of them.
    expect(paths(await search(srv.admin, 'zebrafish flakes '))).toEqual(['kb/body-only', 'kb/title-hit']);
    expect(paths(await search(srv.admin, 'zebrafish cats ')).sort()).toEqual(['kb/body-only', 'kb/title-hit', 'kb/unrelated']);
    expect(paths(await search(srv.admin, 'okapis ocelots '))).toEqual([]);
  });

  it('supports "quoted phrases" and prefix*', async () => {
    await srv.admin.put('/pages/kb/phrase-a', { title: 'P1', content: 'red panda habitat' });
    await srv.admin.put('/pages/kb/phrase-b', { title: 'P2', content: 'panda that is red' });
    expect(paths(await search(srv.admin, '"red panda"'))).toEqual(['kb/phrase-a']);
    expect(paths(await search(srv.admin, 'red panda')).sort()).toEqual(['kb/phrase-a', 'kb/phrase-b']);
    expect(paths(await search(srv.admin, 'habita*'))).toEqual(['kb/phrase-a']);
    expect(paths(await search(srv.admin, '"red pan"*'))).toEqual(['kb/phrase-a']);
    // The last word typed, without a space after it, is a prefix too.
    expect(paths(await search(srv.admin, 'habita'))).toEqual(['kb/phrase-a']);
    expect(paths(await search(srv.admin, 'habita '))).toEqual([]);
  });

  it('matches across diacritics and case both ways', async () => {
    await srv.admin.put('/pages/kb/cafe', { title: 'Le Café', content: 'Crème brûlée at the CAFÉ' });
    expect(paths(await search(srv.admin, 'cafe'))).toEqual(['kb/cafe']);
    expect(paths(await search(srv.admin, 'creme brulee'))).toEqual(['kb/cafe']);
    await srv.admin.put('/pages/kb/plain', { title: 'Naive', content: 'a naive resume' });
    expect(paths(await search(srv.admin, 'naïve résumé'))).toEqual(['kb/plain']);
  });

  it('follows every write in the same transaction: replace, delete, re-create', async () => {
    await srv.admin.put('/pages/kb/moving', { title: 'Moving', content: 'quokka' });
    expect(paths(await search(srv.admin, 'quokka'))).toEqual(['kb/moving']);
    await srv.admin.put('/pages/kb/moving', { title: 'Moving', content: 'wombat' });
    expect(paths(await search(srv.admin, 'quokka'))).toEqual([]);
    expect(paths(await search(srv.admin, 'wombat'))).toEqual(['kb/moving']);
    // A metadata patch keeps the text indexed.
    await srv.admin.patch('/pages/kb/moving/metadata', { set: { stage: 'x' } });
    expect(paths(await search(srv.admin, 'wombat'))).toEqual(['kb/moving']);
    await srv.admin.put('/pages/kb/moving', { title: 'Wombat facts', content: 'wombat' });
    expect(paths(await search(srv.admin, 'facts'))).toEqual(['kb/moving']);
    expect((await srv.admin.del('/pages/kb/moving')).status).toBe(204);
    expect(paths(await search(srv.admin, 'wombat'))).toEqual([]);
    await srv.admin.put('/pages/kb/moving', { title: 'Back', content: 'wombat again' });
    expect(paths(await search(srv.admin, 'wombat'))).toEqual(['kb/moving']);
  });

  it('narrows to a space; an unknown or hidden space is 404', async () => {
    await srv.admin.put('/pages/other/aardvark', { title: 'A', content: 'aardvark' });
    await srv.admin.put('/pages/kb/aardvark', { title: 'A', content: 'aardvark' });
    expect(paths(await search(srv.admin, 'aardvark', '&space=other'))).toEqual(['other/aardvark']);
    expect((await search(srv.admin, 'aardvark', '&space=nope')).status).toBe(404);
    expect((await search(srv.admin, 'aardvark', '&space=~bob')).status).toBe(404);
  });

  it('escapes page text in snippets', async () => {
    await srv.admin.put('/pages/kb/xss', { title: 'X', content: 'ocelot <script>alert(1)</script> & "quotes"' });
    const r = await search(srv.admin, 'ocelot');
    expect(r.body.hits[0].snippet).toBe('<mark>ocelot</mark> &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;');
  });

  it('pages with limit and cursor: every hit once, in order', async () => {
    for (let i = 0; i < 23; i++) {
      await srv.admin.put(`/pages/kb/many/${i}`, {
        title: i % 5 === 0 ? 'Tapir notes' : `Page ${i}`,
        content: `tapir ${'tapir '.repeat(i % 4)} filler ${i}`,
      });
    }
    const all = await searchAll(srv.admin, 'tapir', 200);
    expect(all).toHaveLength(23);
    for (const limit of [1, 4, 7]) expect(await searchAll(srv.admin, 'tapir', limit)).toEqual(all);
    // Title matches first.
    expect(all.slice(0, 5).sort()).toEqual(['kb/many/0', 'kb/many/10', 'kb/many/15', 'kb/many/20', 'kb/many/5']);
  });

  it('ranks by how often a page holds the word, and pages through every hit in small chunks in that order', async () => {
    // okapi once, twice or three times in bodies of the same length; the title holds it in one.
    for (let i = 0; i < 12; i++)
      await srv.admin.put(`/pages/kb/slice/${String(i).padStart(2, '0')}`, {
        title: i === 1 ? 'Okapi' : 'Slice',
        content: `${'okapi '.repeat(1 + (i % 3))}${'x '.repeat(3 - (i % 3))}`,
      });
    const order = [1, 11, 8, 5, 2, 10, 7, 4, 9, 6, 3, 0].map((i) => `kb/slice/${String(i).padStart(2, '0')}`);
    expect(await searchAll(srv.admin, 'okapi ', 50)).toEqual(order);
    const saved = { ...ranking };
    ranking.firstChunk = 2;
    ranking.maxChunk = 3;
    ranking.window = 3; // a window of 3 ids first for one word, then wider
    try {
      expect(await searchAll(srv.admin, 'okapi ', 2)).toEqual(order);
      const r = await search(srv.admin, 'okapi ', '&limit=3');
      const scores = r.body.hits.map((h: { score: number }) => h.score);
      expect(scores[0]).toBeGreaterThan(scores[1]);
      expect(scores[1]).toBe(scores[2]); // the same counts and length: the newer page first
    } finally {
      Object.assign(ranking, saved);
    }
  });

  it('answers the same whether the walk met many pages the caller may not read or none: an early stop never shows', async () => {
    // 30 pages hold 'quokka' and bob may read none of them; 'numbat' is in no page at all. Each
    // round of the walk reads 2 ids and checks them, so the walk over 'quokka' stops 15 times.
    for (let i = 0; i < 30; i++) {
      await srv.admin.put(`/pages/kb/quokka/${i}`, { title: `Q${i}`, content: 'quokka island' });
      expect((await srv.admin.put(`/pages/kb/quokka/${i}/acl`, { read: [], write: [] })).status).toBe(200);
    }
    const saved = { ...ranking };
    ranking.firstChunk = 2;
    ranking.maxChunk = 2;
    ranking.maxSteps = 1;
    try {
      const hidden = await search(bob, 'quokka', '&limit=5');
      const none = await search(bob, 'numbat', '&limit=5');
      expect(hidden.status).toBe(200);
      expect(hidden.body).toEqual({ hits: [], nextCursor: null });
      expect(hidden.body).toEqual(none.body);
      // One page of bob's, older than all of them: the first answer holds it, and nothing follows.
      await bob.put('/pages/~bob/quokka', { title: 'Mine', content: 'quokka' });
      await srv.admin.put('/pages/kb/quokka/30', { title: 'Q30', content: 'quokka' });
      expect((await srv.admin.put('/pages/kb/quokka/30/acl', { read: [], write: [] })).status).toBe(200);
      const one = await search(bob, 'quokka', '&limit=5');
      expect(paths(one)).toEqual(['~bob/quokka']);
      expect(one.body.nextCursor).toBeNull();
      const admin = await search(srv.admin, 'quokka', '&limit=5');
      expect(admin.body.hits).toHaveLength(5); // a full page: more may follow
      expect(admin.body.nextCursor).not.toBeNull();
    } finally {
      Object.assign(ranking, saved);
    }
  });

  it('seals cursors: no page id or position readable in them, a tampered one is 400 on cursor', async () => {
    const r = await search(srv.admin, 'quokka', '&limit=2');
    const sealed: string = r.body.nextCursor;
    expect(sealed).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(() => JSON.parse(Buffer.from(sealed, 'base64url').toString('utf8'))).toThrow();
    const again = await search(srv.admin, 'quokka', '&limit=2');
    expect(again.body.nextCursor).toBe(sealed); // the same position seals the same way
    const next = await search(srv.admin, 'quokka', `&limit=2&cursor=${sealed}`);
    expect(next.status).toBe(200);
    expect(next.body.hits).toHaveLength(2);
    const bytes = Buffer.from(sealed, 'base64url');
    bytes[bytes.length - 20] ^= 1;
    for (const bad of [
      bytes.toString('base64url'),
      sealed.slice(0, -2),
      `${sealed}x`,
      Buffer.from('{"g":0,"s":2,"i":9}').toString('base64url'),
    ]) {
      const t = await search(srv.admin, 'quokka', `&limit=2&cursor=${bad}`);
      expect(t.status).toBe(400);
      expect(t.body.issues[0]).toMatchObject({ key: 'cursor', code: 'format' });
    }
    // Another list's cursors are sealed the same way.
    const spaces = await srv.admin.get('/spaces?limit=1');
    expect(() => JSON.parse(Buffer.from(spaces.body.nextCursor, 'base64url').toString('utf8'))).toThrow();
  });

  it('past ranking.requestMs, ranks the candidates found so far', async () => {
    for (let i = 0; i < 10; i++) {
      await srv.admin.put(`/pages/kb/walk/${i}`, { title: `W${i}`, content: 'dugong' });
      if (i > 0) expect((await srv.admin.put(`/pages/kb/walk/${i}/acl`, { read: [], write: [] })).status).toBe(200);
    }
    await bob.put('/pages/~bob/dugong', { title: 'Mine', content: 'dugong' });
    const saved = { ...ranking };
    ranking.firstChunk = 2;
    ranking.maxChunk = 2;
    ranking.maxSteps = 1;
    ranking.requestMs = 0; // one round per request
    try {
      const first = await search(bob, 'dugong', '&limit=5');
      expect(first.status).toBe(200);
      expect(first.body.hits.length).toBeLessThan(2); // the walk stopped after one statement
      expect(first.body.nextCursor).toBeNull(); // what it found is ranked, and nothing follows
    } finally {
      Object.assign(ranking, saved);
    }
    expect((await searchAll(bob, 'dugong', 5)).sort()).toEqual(['kb/walk/0', '~bob/dugong']);
  });

  it('ends a round on the clock in a small corpus too (a query of many common words held the loop ~0.2 s at 10,000 pages)', async () => {
    for (let i = 0; i < 6; i++) await srv.admin.put(`/pages/kb/clock/${i}`, { title: `C${i}`, content: 'manatee' });
    const saved = { ...ranking };
    ranking.firstChunk = 2;
    ranking.maxChunk = 2;
    ranking.budgetMs = 0; // every round ends after its first statement
    ranking.requestMs = 0; // one round per request
    try {
      const first = await search(srv.admin, 'manatee ', '&limit=10');
      expect(first.status).toBe(200);
      expect(first.body.hits.length).toBeLessThan(6); // the round stopped; the walk was cut short
    } finally {
      Object.assign(ranking, saved);
    }
    expect(paths(await search(srv.admin, 'manatee ', '&limit=10'))).toHaveLength(6);
  });

  it('ends a round between two access checks of one chunk (a chunk of 4,096 ids is 16 of them: ~0.1 s held)', async () => {
    for (let i = 0; i < 6; i++) await srv.admin.put(`/pages/kb/slices/${i}`, { title: `Margay ${i}`, content: 'margay' });
    const saved = { ...ranking };
    ranking.firstChunk = 6;
    ranking.maxChunk = 6;
    ranking.checkSlice = 2; // the chunk's 6 ids are checked 2 at a time
    ranking.budgetMs = 0; // every round ends after its first statement
    ranking.requestMs = 0; // one round per request
    try {
      const first = await search(srv.admin, 'margay ', '&limit=10');
      expect(first.status).toBe(200);
      expect(first.body.hits.length).toBeLessThan(6); // the round did not check the whole chunk
    } finally {
      Object.assign(ranking, saved);
    }
    expect(paths(await search(srv.admin, 'margay ', '&limit=10'))).toHaveLength(6);
    ranking.checkSlice = 2;
    ranking.budgetMs = 0; // rounds of one statement each, resumed: the same answer
    try {
      expect(paths(await search(srv.admin, 'margay ', '&limit=10'))).toHaveLength(6);
    } finally {
      Object.assign(ranking, saved);
    }
  });

  it('bounds the cost of a query: repeated words count once, short or broad prefixes are refused', async () => {
    await srv.admin.put('/pages/kb/prefix', { title: 'Prefix', content: 'tamarin tamandua tambourine' });
    expect(paths(await search(srv.admin, 'tamarin '.repeat(40)))).toEqual(['kb/prefix']);
    expect(paths(await search(srv.admin, 'tam* '.repeat(40)))).toEqual(['kb/prefix']);
    const short = await search(srv.admin, 'ta*');
    expect(short.status).toBe(400);
    expect(short.body.issues[0]).toMatchObject({ key: 'q', code: 'min' });
    expect(short.body.issues[0].message).toContain('`ta*`');
    expect((await search(srv.admin, 'tama* tamb* tamc*')).body.issues[0]).toMatchObject({ key: 'q', code: 'max' });
    // A long question is searched, by its first 32 words.
    expect(paths(await search(srv.admin, `${'w '.repeat(40)} tamarin ${Array.from({ length: 40 }, (_, i) => `v${i}`).join(' ')}`))).toEqual(
      ['kb/prefix'],
    );
    const saved = { ...ranking };
    ranking.prefixMaxPages = 0;
    try {
      const broad = await search(srv.admin, 'tam*');
      expect(broad.status).toBe(400);
      expect(broad.body.issues[0].message).toContain('`tam*` matches too many words');
    } finally {
      Object.assign(ranking, saved);
    }
  });

  it('never shows, counts or pages over a page the caller may not read', async () => {
    for (let i = 0; i < 10; i++) {
      await srv.admin.put(`/pages/kb/secret/${i}`, { title: `Narwhal ${i}`, content: 'narwhal tusk' });
      if (i % 2 === 0) expect((await srv.admin.put(`/pages/kb/secret/${i}/acl`, { read: [], write: [] })).status).toBe(200);
    }
    await bob.put('/pages/~bob/narwhal', { title: 'Mine', content: 'narwhal' });
    const admin = await searchAll(srv.admin, 'narwhal', 3);
    expect(admin).toHaveLength(10);
    const visible = await searchAll(bob, 'narwhal', 2);
    expect(visible.sort()).toEqual(['kb/secret/1', 'kb/secret/3', 'kb/secret/5', 'kb/secret/7', 'kb/secret/9', '~bob/narwhal'].sort());
    const first = await search(bob, 'narwhal', '&limit=6');
    expect(first.body.hits).toHaveLength(6);
    expect(first.body.nextCursor).toBeNull();
  });

  it('pages over sparse readable hits: the candidates of a chunk are checked a few at a time, none skipped or repeated', async () => {
    // 48 matches, bob reads every 8th: each access check of 16 candidates finds 2, so a page of 3
    // hits takes two checks within one chunk (the second starting on a readable one), and the next
    // page resumes after its last hit.
    for (let i = 0; i < 48; i++) {
      await srv.admin.put(`/pages/kb/zorilla/${i}`, { title: `Zorilla ${i}`, content: 'zorilla stripes' });
      if (i % 8 !== 7) expect((await srv.admin.put(`/pages/kb/zorilla/${i}/acl`, { read: [], write: [] })).status).toBe(200);
    }
    const readable = await searchAll(bob, 'zorilla', 50);
    expect([...readable].sort()).toEqual([15, 23, 31, 39, 47, 7].map((i) => `kb/zorilla/${i}`).sort());
    expect(await searchAll(bob, 'zorilla', 3)).toEqual(readable);
    expect(await searchAll(bob, 'zorilla', 1)).toEqual(readable);
    expect(await searchAll(srv.admin, 'zorilla', 5)).toHaveLength(48);
  });

  const TRICKY: string[] = [
    '"',
    '""',
    '"unclosed phrase',
    '*',
    '**',
    'a*b*',
    'AND',
    'OR',
    'NOT',
    'a AND',
    'AND b',
    'a OR b',
    'a NOT b',
    'NEAR(',
    'NEAR(a b)',
    'NEAR/2',
    '-x',
    '- -',
    '+x',
    'col:x',
    'title:x',
    '{title}: x',
    '{content}:x',
    '^',
    '^x',
    '(x',
    ')',
    'x)',
    '[x]',
    "'",
    '\\',
    '%',
    '%00',
    '\u0000',
    '🎉',
    '🎉 party',
    '👨‍👩‍👧',
    '\u0301',
    'a\u0301',
    '   ',
    '',
    '漢字',
    'مرحبا',
    'ß',
    'ǅ',
    'x"y',
    '"a""b"',
    'a"b c"d',
    '*"x"',
    '"x"*',
    '"x" *',
    'x:*',
    '"*"',
    'rowid',
    'page_fts',
    "'; DROP TABLE pages; --",
    '\uFDD0x\uFDD1',
    'a\u0000b',
    'x\u0000',
    '\u0000\u{F0000}',
    '"x\u0000y"*',
    'ab\u0305cd',
    'x\u0378y z',
  ];
  it.each(TRICKY.map((q) => [JSON.stringify(q), q]))('answers 200 or 400 to %s, never 500', async (_name, q) => {
    const r = await search(srv.admin, q);
    expect([200, 400]).toContain(r.status);
    if (r.status === 400) expect(r.body.issues[0].key).toBe('q');
    else expect(Array.isArray(r.body.hits)).toBe(true);
  });

  it.each([
    ['1,000 characters', 'x'.repeat(1000), 200],
    ['10 KB of text', 'lorem ipsum dolor sit amet, '.repeat(360), 400],
    ['33 words', Array.from({ length: 33 }, (_, i) => `w${i}`).join(' '), 200],
    ['one word 33 times', 'w '.repeat(33), 200],
  ])('answers a query of %s with %i', async (_name, q, status) => {
    const r = await search(srv.admin, q);
    expect(r.status).toBe(status);
  });

  it('refuses a missing or blank q, a bad limit and a forged cursor with 400', async () => {
    expect((await srv.admin.get('/search')).status).toBe(400);
    expect((await search(srv.admin, '  ')).body.issues[0]).toMatchObject({ key: 'q', code: 'required' });
    expect((await search(srv.admin, 'x'.repeat(1001))).body.issues[0]).toMatchObject({ key: 'q', code: 'max' });
    expect((await search(srv.admin, 'x', '&limit=0')).body.issues[0].key).toBe('limit');
    expect((await search(srv.admin, 'x', '&limit=201')).status).toBe(400);
    expect((await search(srv.admin, 'x', '&cursor=abc')).body.issues[0].key).toBe('cursor');
    const forged = Buffer.from(JSON.stringify({ g: 3, s: 0, i: 1 })).toString('base64url');
    expect((await search(srv.admin, 'x', `&cursor=${forged}`)).status).toBe(400);
  });

  it('answers 200 with no hits for a query of punctuation only', async () => {
    const r = await search(srv.admin, '^ - * "');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ hits: [], nextCursor: null });
  });
});

describe('snippets of long pages', () => {
  it('finds the match deep inside a long body', async () => {
    const filler = 'lorem ipsum dolor sit amet '.repeat(3000); // ~80 KB
    await srv.admin.put('/pages/kb/long', { title: 'Long', content: `${filler} the <b>capybara</b> & co ${filler}` });
    const r = await search(srv.admin, 'capybara');
    expect(r.body.hits[0].path).toBe('long');
    expect(r.body.hits[0].snippet).toContain('&lt;b&gt;<mark>capybara</mark>&lt;/b&gt; &amp; co');
    expect(r.body.hits[0].snippet.length).toBeLessThan(400);
  });

  it('shows the start of a long body found by its title alone', async () => {
    const filler = 'lorem ipsum dolor sit amet '.repeat(3000);
    await srv.admin.put('/pages/kb/long-titled', { title: 'Axolotl notes', content: `First words here. ${filler}` });
    const r = await search(srv.admin, 'axolotl');
    expect(r.body.hits.map((h: { path: string }) => h.path)).toEqual(['long-titled']);
    expect(r.body.hits[0].snippet).toMatch(/^First words here\. lorem ipsum .*…$/);
  });
});

// The index keeps no word positions (detail = column): FTS5 finds the pages holding a phrase's
// words, and the server checks that they are in a row, in the title or in the body. Each of
// these fails when that check is skipped.
describe('phrases of several words', () => {
  it('match only the words in a row, in the title or in the body, never across the two', async () => {
    await srv.admin.put('/pages/kb/ph/apart', { title: 'Quetzal notes', content: 'the quetzal has a long plumage tail' });
    await srv.admin.put('/pages/kb/ph/body', { title: 'Birds', content: 'The resplendent Quetzal-Plumage is green.' });
    await srv.admin.put('/pages/kb/ph/across', { title: 'All about the quetzal', content: 'Plumage: green and red.' });
    await srv.admin.put('/pages/kb/ph/title', { title: 'Quetzal plumage', content: 'colours' });
    // Title holds both words but not the phrase; the body holds the phrase: a body hit.
    await srv.admin.put('/pages/kb/ph/both', { title: 'Plumage of the quetzal', content: 'On quetzal plumage, see below.' });
    const r = await search(srv.admin, '"quetzal plumage"');
    expect(paths(r)).toEqual(['kb/ph/title', 'kb/ph/both', 'kb/ph/body']);
    expect(paths(await search(srv.admin, 'quetzal plumage')).sort()).toEqual([
      'kb/ph/across',
      'kb/ph/apart',
      'kb/ph/body',
      'kb/ph/both',
      'kb/ph/title',
    ]);
    // A word beside the phrase may be anywhere; the phrase still needs its words in a row.
    // (Pages holding both first; then those holding the phrase or the word alone.)
    expect(paths(await search(srv.admin, 'colours "quetzal plumage"'))[0]).toBe('kb/ph/title');
    expect(paths(await search(srv.admin, 'colours "quetzal plumage"')).sort()).toEqual(['kb/ph/body', 'kb/ph/both', 'kb/ph/title']);
    expect(paths(await search(srv.admin, 'green "quetzal plumage"')).slice(0, 1)).toEqual(['kb/ph/body']);
    // Words joined by punctuation are a phrase too (docs/search.md: foo-bar is foo then bar).
    expect(paths(await search(srv.admin, 'quetzal-plumage'))).toEqual(['kb/ph/title', 'kb/ph/both', 'kb/ph/body']);
    // Case and diacritics, and a prefix as the last word.
    expect(paths(await search(srv.admin, '"QUÉTZAL PLUMAGE"'))).toEqual(['kb/ph/title', 'kb/ph/both', 'kb/ph/body']);
    expect(paths(await search(srv.admin, '"resplendent quetz"*'))).toEqual(['kb/ph/body']);
    expect(paths(await search(srv.admin, '"the quetz"*')).sort()).toEqual(['kb/ph/across', 'kb/ph/apart', 'kb/ph/both']);
    expect(paths(await search(srv.admin, '"quetzal plum"*'))).toEqual(['kb/ph/title', 'kb/ph/both', 'kb/ph/body']);
  });

  it('ranks a page whose title holds every phrase first, and pages every hit once', async () => {
    for (let i = 0; i < 9; i++) {
      const title = i % 3 === 0 ? `Jacana wader ${i}` : `Jacana and a wader ${i}`;
      const content = i % 2 === 0 ? `jacana wader, item ${i}` : `wader then jacana, item ${i}`;
      await srv.admin.put(`/pages/kb/jacana/${i}`, { title, content });
    }
    // Title hits: 0, 3, 6 (the title weighs more); body hits: the other even ones (2, 4, 8).
    const all = await searchAll(srv.admin, '"jacana wader"', 50);
    expect(all.slice(0, 3).sort()).toEqual(['kb/jacana/0', 'kb/jacana/3', 'kb/jacana/6']);
    expect(all.slice(3).sort()).toEqual(['kb/jacana/2', 'kb/jacana/4', 'kb/jacana/8']);
    for (const limit of [1, 2, 4]) expect(await searchAll(srv.admin, '"jacana wader"', limit)).toEqual(all);
  });

  it('finds the phrase at the end of a body longer than what a search reads for snippets', async () => {
    const filler = 'lorem ipsum dolor sit amet '.repeat(1500); // ~40 KB, past SNIPPET_SOURCE_CHARS
    await srv.admin.put('/pages/kb/ph/long', { title: 'Long', content: `hoatzin first. ${filler} and last the hoatzin chick` });
    await srv.admin.put('/pages/kb/ph/long-apart', { title: 'Long too', content: `hoatzin first. ${filler} and a chick` });
    const r = await search(srv.admin, '"hoatzin chick"');
    expect(paths(r)).toEqual(['kb/ph/long']);
    expect(r.body.hits[0].snippet).toContain('<mark>hoatzin</mark> <mark>chick</mark>');
  });

  it('checks only pages the caller may read', async () => {
    await srv.admin.put('/pages/kb/ph/secret', { title: 'Kakapo parrot', content: 'kakapo parrot' });
    expect((await srv.admin.put('/pages/kb/ph/secret/acl', { read: [], write: [] })).status).toBe(200);
    await srv.admin.put('/pages/kb/ph/open', { title: 'Open', content: 'a kakapo is a parrot' });
    await bob.put('/pages/~bob/kakapo', { title: 'Mine', content: 'the kakapo parrot of bob' });
    expect(await searchAll(bob, '"kakapo parrot"', 1)).toEqual(['~bob/kakapo']);
    expect(await searchAll(srv.admin, '"kakapo parrot"', 1)).toEqual(['kb/ph/secret']);
  });

  it('finds the one page holding the phrase among many holding its words apart, through small rounds', async () => {
    await srv.admin.put('/pages/kb/miss/hit', { title: 'M', content: 'sifaka lemur' });
    for (let i = 0; i < 40; i++) await srv.admin.put(`/pages/kb/miss/${i}`, { title: `M${i}`, content: `lemur and sifaka ${i}` });
    const saved = { ...ranking };
    ranking.firstChunk = 4;
    ranking.maxChunk = 4;
    ranking.maxSteps = 2;
    try {
      expect(await searchAll(srv.admin, '"sifaka lemur"', 1)).toEqual(['kb/miss/hit']);
    } finally {
      Object.assign(ranking, saved);
    }
    expect(await searchAll(srv.admin, '"sifaka lemur"', 1)).toEqual(['kb/miss/hit']);
  });
});

describe('sealed cursors across a restart', () => {
  it('reads back a cursor issued before the server restarted (the key lives in the database)', async () => {
    const first = await startServer({}, { keepData: true });
    let cursor: string;
    try {
      for (const slug of ['r1', 'r2']) expect((await first.admin.post('/spaces', { slug, name: slug })).status).toBe(201);
      cursor = (await first.admin.get('/spaces?limit=1')).body.nextCursor;
      expect(cursor).toBeTruthy();
    } finally {
      await first.close();
    }
    const again = await startServer({}, { dataDir: first.dataDir });
    try {
      const r = await again.admin.get(`/spaces?limit=1&cursor=${cursor}`);
      expect(r.status, r.text).toBe(200);
      expect(r.body.spaces).toHaveLength(1);
    } finally {
      await again.close();
    }
  });
});
