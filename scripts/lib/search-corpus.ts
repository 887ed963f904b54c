// The search benchmark's corpus, bulk-inserted straight into a stopped server's database: pages
// and revisions only. POST /links/rebuild then derives every index (metadata, key stats,
// links, full text) through the server's own code, and is itself one of the figures.
import Database from 'better-sqlite3';
import path from 'node:path';
import { rng, vocabulary, zipf } from './corpus.ts';

export type CorpusInfo = {
  pages: number;
  /** Words of the vocabulary by rank (0 = most frequent). */
  words: string[];
  paths: string[];
};

const STAGES = ['todo', 'doing', 'review', 'done', 'blocked'];
const OWNERS = ['ana', 'bo', 'cem', 'dee', 'eli', 'fay', 'gus', 'hal'];

/**
 * `n` pages of ~2 KB in space `bench`: Zipf-distributed words, 6 metadata keys, 3 links (one to
 * a page that does not exist). Odd pages carry an ACL listing only `otherId`, so the principal
 * `half` (no ACL entry, not an admin) reads exactly the even half.
 */
export function insertCorpus(dataDir: string, n: number, authorId: string, otherId: string): CorpusInfo {
  const db = new Database(path.join(dataDir, 'kspace.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const space = db.prepare("SELECT id FROM spaces WHERE slug = 'bench'").get() as { id: number };
  const random = rng(42);
  const words = vocabulary(50_000);
  const pick = zipf(words.length, random);
  const paths = Array.from({ length: n }, (_, i) => `section-${i % 100}/page-${i}`);
  const insPage = db.prepare(`INSERT INTO pages (space_id, path, title, content, metadata, version, has_acl, created_at, updated_at)
    VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?)`);
  // Version 1 of a page: its state is the page row's (store/revision-codec.ts).
  const insRev = db.prepare(`INSERT INTO revisions (page_id, version, title, author_id, created_at)
    VALUES (?, 1, ?, ?, ?)`);
  const insAcl = db.prepare("INSERT INTO page_acl (page_id, principal_id, perm) VALUES (?, ?, 'write')");
  const start = Date.UTC(2024, 0, 1);
  db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const title = `${words[pick()]} ${words[pick()]} ${words[pick()]}`;
      let body = '';
      while (body.length < 1900) {
        let sentence = '';
        for (let k = 0; k < 12; k++) sentence += words[pick()] + ' ';
        body += sentence.trim() + '. ';
      }
      const targets = [Math.floor(random() * n), Math.floor(random() * n)];
      const links = targets.map((j, k) => `[see ${k}](/pages/bench/${paths[j]})`).join(' ') + ` [todo](../missing-${i})`;
      const content = `# ${title}\n\n${body}\n\n${links}\n`;
      const metadata = JSON.stringify({
        done: i % 3 === 0,
        due: new Date(start + Math.floor(random() * 730) * 86_400_000).toISOString().slice(0, 10),
        owner: OWNERS[Math.floor(random() * OWNERS.length)],
        points: Math.floor(random() * 13),
        stage: STAGES[Math.floor(random() * STAGES.length)],
        tags: [`t${Math.floor(random() * 20)}`, `t${Math.floor(random() * 20)}`],
      });
      const now = new Date(start + i * 1000).toISOString();
      const id = Number(insPage.run(space.id, paths[i], title, content, metadata, i % 2, now, now).lastInsertRowid);
      insRev.run(id, title, authorId, start + i * 1000); // a revision's time: epoch milliseconds (schema.sql)
      if (i % 2 === 1) insAcl.run(id, otherId);
    }
  })();
  db.close();
  return { pages: n, words, paths };
}

/**
 * Terms by how many pages hold them, read from the built full-text index: rare ones, and one
 * in every page (`prefer` if it is, such as the corpus's most frequent word).
 */
export function termsByPages(dataDir: string, prefer?: string): { rare: string[]; everywhere: string | null } {
  const db = new Database(path.join(dataDir, 'kspace-fts.db'), { readonly: true }); // the index file
  db.exec("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, 'page_fts', 'row')");
  const total = (db.prepare('SELECT count(*) AS n FROM page_fts').get() as { n: number }).n;
  const rare = (
    db.prepare("SELECT term FROM temp.vocab WHERE doc BETWEEN 20 AND 100 AND term GLOB '[a-z]*' ORDER BY term LIMIT 200").all() as Array<{
      term: string;
    }>
  ).map((r) => r.term);
  const preferred = prefer
    ? (db.prepare('SELECT term, doc FROM temp.vocab WHERE term = ?').get(prefer) as { term: string; doc: number } | undefined)
    : undefined;
  const top =
    preferred?.doc === total
      ? preferred
      : (db.prepare('SELECT term, doc FROM temp.vocab ORDER BY doc DESC LIMIT 1').get() as { term: string; doc: number } | undefined);
  db.close();
  return { rare, everywhere: top && top.doc === total ? top.term : null };
}
