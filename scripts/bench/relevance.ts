// Relevance on a public test collection with relevance judgements (issue 37): the Cranfield
// collection (1,400 abstracts, 225 questions, graded judgements) is loaded into kspace through
// the API, each question is asked through GET /search, and the hits are scored against the
// judgements: nDCG@10, MAP@100, Recall@100, MRR. Beside it, the floor measured in the same run:
// SQLite FTS5's own bm25() with the `porter unicode61` tokenizer over the same title and body,
// the question's words OR-ed (the query a plain FTS5 search box would run).
//
// The collection is not in the repository. Put `cran.all.1400`, `cran.qry` and `cranqrel` in
// $KSPACE_RELEVANCE_DATA/cranfield (default ~/.cache/kspace-relevance/cranfield); they are in
// many public repositories (e.g. github.com/olivernn/cranfield, data/cran/cran.all.1400, and
// any copy of cran.qry and cranqrel from the Glasgow IR test collections). Without them the
// section says so and reports nothing.
//
// Judgements: cranqrel grades 1 (a complete answer) to 4 (minimum interest), -1 no interest;
// the gain is 5 - grade (4 … 1), and -1 gains nothing. Questions are numbered 1–225 in cranqrel
// in the order of cran.qry (whose own numbers skip).
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { BENCH_ADMIN_KEY, startChild, type ChildServer } from '../lib/child-server.ts';
import type { BenchOptions, BenchResult } from '../bench.ts';

const DATA = process.env.KSPACE_RELEVANCE_DATA ?? path.join(os.homedir(), '.cache', 'kspace-relevance');

type Doc = { id: number; title: string; body: string };
type Collection = { docs: Doc[]; queries: string[]; qrels: Map<number, Map<number, number>> };

/** The fields of a SMART-format file (`.I n`, then `.T`, `.W` … sections). */
function smart(text: string): Array<Record<string, string>> {
  const out: Array<Record<string, string>> = [];
  let cur: Record<string, string> | null = null;
  let field = '';
  for (const line of text.split('\n')) {
    const m = /^\.([A-Z])(?:\s+(\d+))?\s*$/.exec(line);
    if (m && m[1] === 'I') {
      cur = { I: m[2] };
      out.push(cur);
      field = '';
    } else if (m) {
      field = m[1];
      cur![field] = '';
    } else if (cur && field) cur[field] += `${line}\n`;
  }
  return out;
}

function loadCranfield(dir: string): Collection | null {
  const files = ['cran.all.1400', 'cran.qry', 'cranqrel'].map((f) => path.join(dir, f));
  if (!files.every((f) => fs.existsSync(f))) return null;
  const docs = smart(fs.readFileSync(files[0], 'utf8')).map((r) => ({ id: Number(r.I), title: (r.T ?? '').replace(/\s+/g, ' ').trim(), body: (r.W ?? '').trim() }));
  const queries = smart(fs.readFileSync(files[1], 'utf8')).map((r) => (r.W ?? '').replace(/\s+/g, ' ').trim());
  const qrels = new Map<number, Map<number, number>>();
  for (const line of fs.readFileSync(files[2], 'utf8').split('\n')) {
    const [q, d, r] = line.trim().split(/\s+/).map(Number);
    if (!q || !d || !Number.isFinite(r)) continue;
    const gain = r >= 1 && r <= 4 ? 5 - r : 0;
    if (gain > 0) (qrels.get(q) ?? qrels.set(q, new Map()).get(q)!).set(d, gain);
  }
  return { docs, queries, qrels };
}

type Scores = { ndcg10: number; map100: number; recall100: number; mrr: number };

/** The mean figures of ranked doc ids against the judgements, over the questions that have any. */
export function evaluate(runs: Map<number, number[]>, qrels: Map<number, Map<number, number>>): Scores {
  const sum = { ndcg10: 0, map100: 0, recall100: 0, mrr: 0 };
  let n = 0;
  for (const [q, judged] of qrels) {
    const ranked = runs.get(q) ?? [];
    n++;
    const dcg = (gains: number[]) => gains.slice(0, 10).reduce((s, g, i) => s + (2 ** g - 1) / Math.log2(i + 2), 0);
    const ideal = dcg([...judged.values()].sort((a, b) => b - a));
    sum.ndcg10 += ideal > 0 ? dcg(ranked.map((d) => judged.get(d) ?? 0)) / ideal : 0;
    let hits = 0;
    let ap = 0;
    ranked.slice(0, 100).forEach((d, i) => {
      if (!judged.has(d)) return;
      hits++;
      ap += hits / (i + 1);
    });
    sum.map100 += ap / judged.size;
    sum.recall100 += hits / judged.size;
    const first = ranked.findIndex((d) => judged.has(d));
    sum.mrr += first >= 0 ? 1 / (first + 1) : 0;
  }
  return { ndcg10: sum.ndcg10 / n, map100: sum.map100 / n, recall100: sum.recall100 / n, mrr: sum.mrr / n };
}

/** The floor: FTS5 bm25() with porter over title and body, the question's words OR-ed. */
function fts5Floor(c: Collection): Map<number, number[]> {
  const db = new Database(':memory:');
  db.exec("CREATE VIRTUAL TABLE d USING fts5(title, body, tokenize = 'porter unicode61 remove_diacritics 2')");
  const ins = db.prepare('INSERT INTO d (rowid, title, body) VALUES (?, ?, ?)');
  db.transaction(() => c.docs.forEach((d) => ins.run(d.id, d.title, d.body)))();
  const find = db.prepare('SELECT rowid FROM d WHERE d MATCH ? ORDER BY bm25(d) LIMIT 100').pluck();
  const runs = new Map<number, number[]>();
  c.queries.forEach((q, i) => {
    const words = q.match(/[\p{L}\p{N}]+/gu) ?? [];
    runs.set(i + 1, words.length ? (find.all(words.map((w) => `"${w}"`).join(' OR ')) as number[]) : []);
  });
  db.close();
  return runs;
}

export async function run(_opts: BenchOptions): Promise<BenchResult[]> {
  const c = loadCranfield(path.join(DATA, 'cranfield'));
  if (!c) {
    console.error(`relevance: no Cranfield collection in ${path.join(DATA, 'cranfield')} (cran.all.1400, cran.qry, cranqrel); skipped`);
    return [];
  }
  const out: BenchResult[] = [];
  const floor = evaluate(fts5Floor(c), c.qrels);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bench-relevance-'));
  let server: ChildServer | null = null;
  try {
    server = await startChild(dir);
    const pool = new Pool(server.url, { connections: 8 });
    const call = async (method: string, p: string, body?: unknown) => {
      const r = await pool.request({ method: method as 'GET', path: p, headers: { authorization: `Bearer ${BENCH_ADMIN_KEY}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      const data = await r.body.json() as Record<string, unknown>;
      if (r.statusCode >= 300) throw new Error(`${method} ${p}: ${r.statusCode} ${JSON.stringify(data)}`);
      return data;
    };
    await call('POST', '/spaces', { slug: 'cran', name: 'Cranfield' });
    const t0 = performance.now();
    for (let i = 0; i < c.docs.length; i += 8) {
      await Promise.all(c.docs.slice(i, i + 8).map((d) => call('PUT', `/pages/cran/d${d.id}`, { title: d.title || `Document ${d.id}`, content: d.body })));
    }
    out.push({ name: `Cranfield: ${c.docs.length} pages written through the API`, value: (performance.now() - t0) / 1000, unit: 's' });
    const runs = new Map<number, number[]>();
    const times: number[] = [];
    for (let i = 0; i < c.queries.length; i++) {
      const t = performance.now();
      const r = await call('GET', `/search?${new URLSearchParams({ q: c.queries[i], limit: '100', space: 'cran' })}`) as { hits: Array<{ path: string }> };
      times.push(performance.now() - t);
      runs.set(i + 1, r.hits.map((h) => Number(h.path.slice(1))));
    }
    await pool.close();
    const k = evaluate(runs, c.qrels);
    times.sort((a, b) => a - b);
    const rows: Array<[keyof Scores, string]> = [['ndcg10', 'nDCG@10'], ['map100', 'MAP@100'], ['recall100', 'Recall@100'], ['mrr', 'MRR']];
    for (const [key, label] of rows) {
      out.push({ name: `Cranfield ${label}: kspace (floor: FTS5 bm25() porter, ${floor[key].toFixed(3)})`, value: k[key], unit: '', ...(key === 'ndcg10' ? { target: `≥ ${floor.ndcg10.toFixed(3)}`, pass: k.ndcg10 >= floor.ndcg10 } : {}) });
    }
    out.push({ name: `Cranfield: ${c.queries.length} questions through GET /search, p50`, value: times[Math.floor(times.length / 2)], unit: 'ms' });
    out.push({ name: 'Cranfield: questions p99', value: times[Math.floor(times.length * 0.99)], unit: 'ms' });
  } finally {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

if (import.meta.main) {
  for (const r of await run({ quick: false, pages: 0 })) console.log(`${r.name}: ${r.value.toFixed(3)} ${r.unit}${r.target ? `  (target ${r.target})${r.pass ? '  ok' : '  MISSED'}` : ''}`);
}
