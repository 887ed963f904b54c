import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newAgent, startServer, type Client, type TestServer } from '../support/server.ts';

// GET /search/titles reads each group of its order with one of several plans, chosen by how many
// index rows the query's words have (store/title-words.ts). Whatever plan runs, the answer must be
// the contract's order over the pages the caller may read: this test writes enough pages that the
// common words take the walk in answer order and the rare ones the sorted range, and compares
// every answer with the order computed here from what was written.

let srv: TestServer;
let bob: Client & { id: string };
type Page = { space: string; path: string; title: string; readable: boolean; id: number; changed: number };
const pages: Page[] = [];
const A = ['sun', 'sea', 'sky', 'star'];
const B = ['pine', 'pond', 'peak', 'path', 'plum'];
const C = ['', ' a', ' bb', ' ccc', ' dddd', ' zeb'];

beforeAll(async () => {
  srv = await startServer();
  bob = await newAgent(srv, 'bob');
  expect((await srv.admin.post('/spaces', { slug: 'many', name: 'Many' })).status).toBe(201);
  let clock = 0;
  for (let i = 0; i < 480; i++) {
    const title = i % 97 === 0 ? `${B[i % 5]} ${A[i % 4]}` : `${A[i % 4]} ${B[(i * 7) % 5]}${C[(i * 5) % 6]}`;
    const path = `f${i % 10}/n${i}`;
    const r = await srv.admin.put(`/pages/many/${path}`, { title, content: 'x' });
    expect(r.status).toBe(201);
    const readable = i % 3 !== 0;
    if (!readable) expect((await srv.admin.put(`/pages/many/${path}/acl`, { read: [], write: [] })).status).toBe(200);
    pages.push({ space: 'many', path, title, readable, id: i, changed: clock++ });
  }
  // A small space: a common word there is read by listing the space.
  expect((await srv.admin.post('/spaces', { slug: 'few', name: 'Few' })).status).toBe(201);
  for (let i = 0; i < 12; i++) {
    const title = `${A[i % 4]} ${B[i % 5]}${C[i % 6]}`;
    expect((await srv.admin.put(`/pages/few/g${i}`, { title, content: 'x' })).status).toBe(201);
    const readable = i % 4 !== 1;
    if (!readable) expect((await srv.admin.put(`/pages/few/g${i}/acl`, { read: [], write: [] })).status).toBe(200);
    pages.push({ space: 'few', path: `g${i}`, title, readable, id: 480 + i, changed: clock++ });
  }
  // Some pages changed again: recency differs from creation order.
  for (let i = 5; i < 480; i += 11) {
    expect((await srv.admin.put(`/pages/many/${pages[i].path}`, { title: pages[i].title, content: 'changed' })).status).toBe(200);
    pages[i].changed = clock++;
  }
}, 120_000);
afterAll(() => srv.close());
afterEach(() => expect(srv.errors).toEqual([]));

const words = (s: string) =>
  s
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/** The contract's answer, computed from the pages written. */
function expected(q: string, readAll: boolean, limit: number, space: string | null): string[] {
  const qw = words(q);
  const phrase = qw.join(' ');
  const tier = (p: Page) => {
    const whole = words(p.title).join(' ');
    if (whole === phrase) return 0;
    if (whole.startsWith(phrase)) return 1;
    const all = [...words(p.title), ...words(p.path)];
    return qw.every((w) => all.some((x) => x.startsWith(w))) ? 2 : null;
  };
  return pages
    .filter((p) => (space === null || p.space === space) && (readAll || p.readable) && tier(p) !== null)
    .sort((a, b) => tier(a)! - tier(b)! || a.title.length - b.title.length || b.changed - a.changed || a.id - b.id)
    .slice(0, limit)
    .map((p) => `${p.space}/${p.path}`);
}

describe('GET /search/titles, whichever plan reads a group', () => {
  it('answers the contract order over the readable pages, for common and rare words, at every limit', async () => {
    const oneWord = 's p su sun pond z zeb f3 n4 x'.split(' ');
    const severalWords = ['sun p', 'p s', 'pond sun', 'sun pond', 'sun pond a', 'st pl zeb', 'f3 n1', 'sea path dddd'];
    for (const q of [...oneWord, ...severalWords]) {
      for (const limit of [50, 7, 1]) {
        for (const [who, c, all] of [
          ['bob', bob, false],
          ['admin', srv.admin, true],
        ] as const) {
          for (const space of ['many', 'few', null]) {
            const r = await c.get(`/search/titles?${new URLSearchParams({ q, limit: String(limit), ...(space ? { space } : {}) })}`);
            expect(r.status).toBe(200);
            expect(
              r.body.hits.map((h: { space: string; path: string }) => `${h.space}/${h.path}`),
              `${who} ${q} ${limit} ${space}`,
            ).toEqual(expected(q, all, limit, space));
          }
        }
      }
    }
  }, 120_000);
});
