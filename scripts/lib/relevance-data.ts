// Public test collections with relevance judgements for the relevance bench
// (scripts/bench/relevance.ts): their parsers, where each comes from, and the figures a ranked
// run is scored by (nDCG@10, MAP@100, Recall@100, MRR). Pure functions over the files' text.
import fs from 'node:fs';
import path from 'node:path';

export type Doc = { id: number; title: string; body: string };
export type Query = { id: number; text: string };
/** Judged questions: question id → (doc id → gain, > 0). */
export type Qrels = Map<number, Map<number, number>>;
export type Collection = { name: string; docs: Doc[]; queries: Query[]; qrels: Qrels };

/** The records of a SMART-format file: `.I n` starts one, `.T`, `.W`, `.A` … start its fields. */
export function parseSmart(text: string): Array<Record<string, string>> {
  const out: Array<Record<string, string>> = [];
  let cur: Record<string, string> | null = null;
  let field = '';
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    const m = /^\.([A-Z])(?:\s+(\d+))?\s*$/.exec(line);
    if (m && m[1] === 'I') {
      cur = { I: m[2] ?? '' };
      out.push(cur);
      field = '';
    } else if (m) {
      field = m[1];
      if (cur) cur[field] = '';
    } else if (cur && field) cur[field] += `${line}\n`;
  }
  return out;
}

/**
 * Judgements from lines of whitespace-separated columns `question doc grade …`; `gain` turns the
 * grade (the third column, 0 when absent) into a gain, and a gain of 0 or less is no judgement.
 */
export function parseQrels(text: string, gain: (grade: number) => number): Qrels {
  const qrels: Qrels = new Map();
  for (const line of text.split('\n')) {
    const [q, d, g] = line.trim().split(/\s+/).map(Number);
    if (!Number.isInteger(q) || !Number.isInteger(d) || q <= 0 || d <= 0) continue;
    const value = gain(Number.isFinite(g) ? g : 0);
    if (value <= 0) continue;
    let judged = qrels.get(q);
    if (!judged) qrels.set(q, (judged = new Map()));
    judged.set(d, Math.max(value, judged.get(d) ?? 0));
  }
  return qrels;
}

const oneLine = (s: string | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();

/** Docs of a SMART file: the title `.T` and the body `.W` (authors, dates and references left out). */
export function smartDocs(text: string): Doc[] {
  return parseSmart(text).map((r) => ({ id: Number(r.I), title: oneLine(r.T), body: (r.W ?? '').trim() }));
}

/** Questions of a SMART file: `.W`, or `.T` when a question has no `.W`. */
export function smartQueries(text: string): Array<{ id: number; text: string }> {
  return parseSmart(text).map((r) => ({ id: Number(r.I), text: oneLine(r.W) || oneLine(r.T) }));
}

export type Source = {
  name: string;
  /** Directory under the relevance data directory. */
  dir: string;
  files: string[];
  /** Where to get the files, for the message when they are missing. */
  where: string;
  load(read: (file: string) => string): Omit<Collection, 'name'>;
};

export const SOURCES: Source[] = [
  {
    name: 'Cranfield',
    dir: 'cranfield',
    files: ['cran.all.1400', 'cran.qry', 'cranqrel'],
    where: 'the Glasgow IR test collections (ir.dcs.gla.ac.uk/resources/test_collections/cran), or github.com/olivernn/cranfield',
    // cranqrel grades 1 (a complete answer) to 4 (minimum interest), -1 no interest: gain 5 - grade.
    // It numbers the questions 1–225 in the order of cran.qry, whose own numbers skip.
    load: (read) => ({
      docs: smartDocs(read('cran.all.1400')),
      queries: smartQueries(read('cran.qry')).map((q, i) => ({ id: i + 1, text: q.text })),
      qrels: parseQrels(read('cranqrel'), (g) => (g >= 1 && g <= 4 ? 5 - g : 0)),
    }),
  },
  {
    name: 'CISI',
    dir: 'cisi',
    files: ['CISI.ALL', 'CISI.QRY', 'CISI.REL'],
    where: 'the Glasgow IR test collections (ir.dcs.gla.ac.uk/resources/test_collections/cisi), or github.com/PsychoProg/tf-idf',
    // 1,460 library-science abstracts, 112 questions of which 76 are judged; CISI.REL is binary.
    load: (read) => ({
      docs: smartDocs(read('CISI.ALL')),
      queries: smartQueries(read('CISI.QRY')),
      qrels: parseQrels(read('CISI.REL'), () => 1),
    }),
  },
  {
    name: 'CACM',
    dir: 'cacm',
    files: ['cacm.all', 'query.text', 'qrels.text'],
    where:
      'the Glasgow IR test collections (ir.dcs.gla.ac.uk/resources/test_collections/cacm), or github.com/atcherepanov/Stemming-Algorithm',
    // 3,204 Communications of the ACM titles, most with an abstract; 64 questions, 52 judged, binary.
    load: (read) => ({
      docs: smartDocs(read('cacm.all')),
      queries: smartQueries(read('query.text')),
      qrels: parseQrels(read('qrels.text'), () => 1),
    }),
  },
];

/** The collection when all its files are in `dataDir/<dir>`, else null. */
export function loadCollection(dataDir: string, source: Source): Collection | null {
  const dir = path.join(dataDir, source.dir);
  if (!source.files.every((f) => fs.existsSync(path.join(dir, f)))) return null;
  return { name: source.name, ...source.load((f) => fs.readFileSync(path.join(dir, f), 'utf8')) };
}

export type Scores = { ndcg10: number; map100: number; recall100: number; mrr: number };

/**
 * The mean figures of ranked doc ids (question id → ids, best first) against the judgements,
 * over the judged questions. nDCG@10 with gain 2^g − 1 and log2 discount; MAP@100 and
 * Recall@100 over the judged docs; MRR of the first judged doc.
 */
export function evaluate(runs: Map<number, number[]>, qrels: Qrels): Scores {
  const sum = { ndcg10: 0, map100: 0, recall100: 0, mrr: 0 };
  const dcg = (gains: number[]) => gains.slice(0, 10).reduce((s, g, i) => s + (2 ** g - 1) / Math.log2(i + 2), 0);
  for (const [q, judged] of qrels) {
    const ranked = runs.get(q) ?? [];
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
  const n = Math.max(qrels.size, 1);
  return { ndcg10: sum.ndcg10 / n, map100: sum.map100 / n, recall100: sum.recall100 / n, mrr: sum.mrr / n };
}
