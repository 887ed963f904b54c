// Relevance on public test collections with relevance judgements (issue 37): Cranfield (1,400
// aeronautics abstracts, 225 questions, graded judgements), CISI (1,460 library-science abstracts,
// 76 judged questions) and CACM (3,204 computing titles and abstracts, 52 judged questions),
// scripts/lib/relevance-data.ts. Each collection is loaded into kspace through the API, each
// judged question is asked through GET /search, and the hits are scored against the judgements:
// nDCG@10, MAP@100, Recall@100, MRR. Beside it, two floors measured in the same run over the same
// title and body, with the question as it is written:
// - SQLite FTS5's own bm25() with the `porter unicode61` tokenizer, the question's words OR-ed
//   (the query a plain FTS5 search box would run);
// - MiniSearch with its defaults (BM25+, words OR-ed, no stemming, no field boosts).
// kspace runs with its defaults too: nothing is tuned per collection.
//
// The collections are not in the repository. Put each one's files in
// $KSPACE_RELEVANCE_DATA/<cranfield|cisi|cacm> (default ~/.cache/kspace-relevance/…); a missing
// collection is skipped with a line saying which files and where to get them.
import Database from 'better-sqlite3';
import MiniSearch from 'minisearch';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { BENCH_ADMIN_KEY, startChild, type ChildServer } from '../lib/child-server.ts';
import { evaluate, loadCollection, SOURCES, type Collection, type Scores } from '../lib/relevance-data.ts';
import type { BenchOptions, BenchResult } from '../bench.ts';

const DATA = process.env.KSPACE_RELEVANCE_DATA ?? path.join(os.homedir(), '.cache', 'kspace-relevance');

/** The judged questions: the others score nothing, so they are not asked. */
const judged = (c: Collection) => c.queries.filter((q) => c.qrels.has(q.id));

/** The FTS5 floor: bm25() with porter over title and body, the question's words OR-ed. */
function fts5Floor(c: Collection): Map<number, number[]> {
  const db = new Database(':memory:');
  db.exec("CREATE VIRTUAL TABLE d USING fts5(title, body, tokenize = 'porter unicode61 remove_diacritics 2')");
  const ins = db.prepare('INSERT INTO d (rowid, title, body) VALUES (?, ?, ?)');
  db.transaction(() => c.docs.forEach((d) => ins.run(d.id, d.title, d.body)))();
  const find = db.prepare('SELECT rowid FROM d WHERE d MATCH ? ORDER BY bm25(d) LIMIT 100').pluck();
  const runs = new Map<number, number[]>();
  for (const q of judged(c)) {
    const words = q.text.match(/[\p{L}\p{N}]+/gu) ?? [];
    runs.set(q.id, words.length ? (find.all(words.map((w) => `"${w}"`).join(' OR ')) as number[]) : []);
  }
  db.close();
  return runs;
}

/** The MiniSearch floor: its defaults (BM25+, OR) over title and body. */
function miniSearchFloor(c: Collection): Map<number, number[]> {
  const ms = new MiniSearch<{ id: number; title: string; body: string }>({ fields: ['title', 'body'] });
  ms.addAll(c.docs);
  const runs = new Map<number, number[]>();
  for (const q of judged(c))
    runs.set(
      q.id,
      ms
        .search(q.text)
        .slice(0, 100)
        .map((r) => Number(r.id)),
    );
  return runs;
}

/** A question as `q` takes it: at most 1,000 characters (the contract's bound), cut at a word's end. */
const cut = (q: string) => (q.length <= 1000 ? q : q.slice(0, 1001).replace(/\s+\S*$/, ''));

type Call = (method: string, p: string, body?: unknown) => Promise<Record<string, unknown>>;

/** Loads a collection into its own space through the API and asks its judged questions. */
async function kspaceRuns(call: Call, c: Collection, slug: string, out: BenchResult[]): Promise<Map<number, number[]>> {
  await call('POST', '/spaces', { slug, name: c.name });
  const t0 = performance.now();
  for (let i = 0; i < c.docs.length; i += 8) {
    await Promise.all(
      c.docs.slice(i, i + 8).map((d) => call('PUT', `/pages/${slug}/d${d.id}`, { title: d.title || `Document ${d.id}`, content: d.body })),
    );
  }
  out.push({ name: `${c.name}: ${c.docs.length} pages written through the API`, value: (performance.now() - t0) / 1000, unit: 's' });
  const runs = new Map<number, number[]>();
  const times: number[] = [];
  const questions = judged(c);
  for (const q of questions) {
    const t = performance.now();
    const r = (await call('GET', `/search?${new URLSearchParams({ q: cut(q.text), limit: '100', space: slug })}`)) as {
      hits: Array<{ path: string }>;
    };
    times.push(performance.now() - t);
    runs.set(
      q.id,
      r.hits.map((h) => Number(h.path.slice(1))),
    );
  }
  times.sort((a, b) => a - b);
  out.push({
    name: `${c.name}: ${questions.length} judged questions through GET /search, p50`,
    value: times[Math.floor(times.length / 2)],
    unit: 'ms',
  });
  out.push({ name: `${c.name}: questions p99`, value: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))], unit: 'ms' });
  return runs;
}

const METRICS: Array<[keyof Scores, string]> = [
  ['ndcg10', 'nDCG@10'],
  ['map100', 'MAP@100'],
  ['recall100', 'Recall@100'],
  ['mrr', 'MRR'],
];

export async function run(_opts: BenchOptions): Promise<BenchResult[]> {
  const collections: Collection[] = [];
  for (const source of SOURCES) {
    const c = loadCollection(DATA, source);
    if (c) collections.push(c);
    else
      console.error(
        `relevance: no ${source.name} collection in ${path.join(DATA, source.dir)} (${source.files.join(', ')}; from ${source.where}); skipped`,
      );
  }
  if (!collections.length) return [];
  const out: BenchResult[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bench-relevance-'));
  let server: ChildServer | null = null;
  try {
    server = await startChild(dir);
    const pool = new Pool(server.url, { connections: 8 });
    const call: Call = async (method, p, body) => {
      const r = await pool.request({
        method: method as 'GET',
        path: p,
        headers: { authorization: `Bearer ${BENCH_ADMIN_KEY}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const data = (await r.body.json()) as Record<string, unknown>;
      if (r.statusCode >= 300) throw new Error(`${method} ${p}: ${r.statusCode} ${JSON.stringify(data)}`);
      return data;
    };
    for (const c of collections) {
      const fts5 = evaluate(fts5Floor(c), c.qrels);
      const mini = evaluate(miniSearchFloor(c), c.qrels);
      const k = evaluate(await kspaceRuns(call, c, c.name.toLowerCase(), out), c.qrels);
      for (const [key, label] of METRICS) {
        const floor = Math.max(fts5[key], mini[key]);
        out.push({
          name: `${c.name} ${label}: kspace (floors: FTS5 bm25() porter ${fts5[key].toFixed(3)}, MiniSearch BM25+ ${mini[key].toFixed(3)})`,
          value: k[key],
          unit: '',
          ...(key === 'ndcg10' ? { target: `≥ ${floor.toFixed(3)}`, pass: k[key] >= floor } : {}),
        });
      }
    }
    await pool.close();
  } finally {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

if (import.meta.main) {
  for (const r of await run({ quick: false, pages: 0 }))
    console.log(`${r.name}: ${r.value.toFixed(3)} ${r.unit}${r.target ? `  (target ${r.target})${r.pass ? '  ok' : '  MISSED'}` : ''}`);
}
