import { describe, expect, it } from 'vitest';
import type { Client } from '../support/server.ts';
import { useServer } from '../support/fixture.ts';
import { ranking } from '../../src/domain/search/full-text.ts';

// Issue 18: bm25 scored with corpus-wide statistics (how many pages hold a word), so a caller
// could learn whether a page they cannot read contains a word by comparing the scores of their
// own pages. Every output of a search must be the same with or without pages the caller may not
// read: hits, order, scores, snippets, cursors.

const { srv, bob } = useServer({ agents: ['bob'], spaces: [{ slug: 'kb', name: 'KB' }], noErrors: true });

/** Every answer of a search as bob sees it, page by page, following nextCursor. */
async function answers(c: Client, q: string, limit: number): Promise<unknown[]> {
  const out: unknown[] = [];
  let cursor = '';
  for (let i = 0; i < 50; i++) {
    const r = await c.get(`/search?${new URLSearchParams({ q, limit: String(limit), ...(cursor ? { cursor } : {}) })}`);
    expect(r.status).toBe(200);
    out.push(r.body);
    if (!r.body.nextCursor) return out;
    cursor = r.body.nextCursor;
  }
  throw new Error('no end');
}

// Single words, every word and some words, stems (scale, pangolins), typed prefixes, phrases.
const QUERIES = [
  'pangolin',
  'pangolin scales ',
  'pangolin scales keratin ',
  'pango*',
  'pango',
  'pangolins scale',
  '"pangolin scales"',
  'scales',
  'keratin tails',
];

async function everything(c: Client): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const q of QUERIES) for (const limit of [1, 2, 50]) out.push(await answers(c, q, limit));
  return out;
}

describe('search answers do not depend on pages the caller may not read', () => {
  it('gives bob the same hits, order, scores, snippets and cursors with or without hidden pages holding the words', async () => {
    // bob's pages: of the same shape, different word counts and lengths, one with the word in its title.
    await bob.put('/pages/~bob/a', { title: 'Notes', content: 'pangolin scales are keratin' });
    await bob.put('/pages/~bob/b', {
      title: 'More notes',
      content: 'pangolin pangolin pangolin scales and a longer body about other things entirely',
    });
    await bob.put('/pages/~bob/c', { title: 'Pangolin', content: 'scales' });
    await bob.put('/pages/~bob/d', { title: 'Unrelated', content: 'a page about scales only' });
    await srv.admin.put('/pages/kb/open', { title: 'Open', content: 'pangolin scales in the open' });
    const before = await everything(bob);
    expect(JSON.stringify(before)).toContain('~bob');

    // 50 pages bob may not read, full of the words, in titles and bodies, long and short: had the
    // ranking counted them (how many pages hold a word, their lengths), bob's scores would move.
    for (let i = 0; i < 50; i++) {
      const path = `/pages/kb/hidden/${i}`;
      expect(
        (
          await srv.admin.put(path, {
            title: i % 2 ? 'Pangolin scales' : 'Secret',
            content: `${'pangolin scales '.repeat(1 + (i % 7) * 20)} pangolins ${i % 3 ? 'keratin' : ''}`,
          })
        ).status,
      ).toBe(201);
      expect((await srv.admin.put(`${path}/acl`, { read: [], write: [] })).status).toBe(200);
    }
    const after = await everything(bob);
    expect(after).toEqual(before);
    // The admin, who reads them, does see them.
    expect(JSON.stringify(await answers(srv.admin, 'pangolin', 50))).toContain('"path":"hidden/');
  });

  it('gives bob the same answers for a typed word whose guessed stem hidden pages hold, where the guesses fill the candidates', async () => {
    // A typed `tapirin` is also looked up by the stem `tapir` (tapiring), a guess walked last. With
    // three candidates wanted, bob's answer is t0 (holds tapirin), then from the guesses, newest
    // first, t4 (tapiring) and t3, which does not hold it but is read and counts: had the hidden
    // pages (newer still) counted too, t4 would be crowded out.
    await bob.put('/pages/~bob/t0', { title: 'T0', content: 'a tapirin' });
    for (let i = 1; i <= 3; i++) await bob.put(`/pages/~bob/t${i}`, { title: `T${i}`, content: 'a tapir' });
    await bob.put('/pages/~bob/t4', { title: 'T4', content: 'tapiring today' });
    const saved = { ...ranking };
    ranking.oneItem = 3;
    try {
      const seen = async () => [await answers(bob, 'tapirin', 1), await answers(bob, 'tapirin', 50)];
      const before = await seen();
      expect(JSON.stringify(before)).toMatch(/"path":"t0".*"path":"t4"|"path":"t4".*"path":"t0"/);
      for (let i = 0; i < 20; i++) {
        const path = `/pages/kb/guessed/${i}`;
        expect((await srv.admin.put(path, { title: 'Tapir', content: i % 2 ? 'tapir tapirs' : 'tapirin tapir' })).status).toBe(201);
        expect((await srv.admin.put(`${path}/acl`, { read: [], write: [] })).status).toBe(200);
      }
      expect(await seen()).toEqual(before);
    } finally {
      Object.assign(ranking, saved);
    }
  });
});
