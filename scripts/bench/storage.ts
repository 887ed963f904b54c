// Storage (issue 22): what the data directory holds for the core section's 20,000 pages of ~2 KB
// (one revision each), written through the HTTP API the same way, against the raw content; then
// what each further revision that changes 5 % of a page adds, and how fast old revisions read.
// `KSPACE_BENCH_KEEP=<dir>` keeps the data directory there (to time a migration on it);
// `KSPACE_BENCH_EDIT_ROUNDS=n` edits each of the 2,000 pages n times instead of 20.
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { authHeaders, startChild, type ChildServer } from '../lib/child-server.ts';
import { rng, syntheticPages, type SyntheticPage } from '../lib/corpus.ts';
import { runLoad } from '../lib/load.ts';
import type { BenchResult, BenchOptions } from '../bench.ts';

const EDITED_PAGES = 2000;
// 20 rounds: over 5 (10,000 revisions) the full-text index's unmerged segments still held 470–1,040
// bytes a revision (0.42–0.70× in all); over 20 they hold ~140 once merges have caught up.
const EDIT_ROUNDS = Number(process.env.KSPACE_BENCH_EDIT_ROUNDS) || 20;

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const n = opts.quick ? 2000 : 20_000;
  const { pages, words } = syntheticPages(n, n, 42);
  const rawBytes = pages.reduce((s, p) => s + Buffer.byteLength(p.content), 0);
  const out: BenchResult[] = [];
  const keep = process.env.KSPACE_BENCH_KEEP;
  const dir = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bench-storage-'));
  if (keep) fs.rmSync(keep, { recursive: true, force: true });
  spawnSync('sync');
  try {
    let server = await startChild(dir);
    const headers = authHeaders();
    await fetch(`${server.url}/spaces`, { method: 'POST', headers, body: JSON.stringify({ slug: 'bench', name: 'Bench' }) });
    const put = await runLoad(server.url, {
      connections: 16,
      total: n,
      next: (i) => ({ method: 'PUT', path: `/pages/bench/${pages[i].path}`, headers, body: body(pages[i], pages[i].content) }),
    });
    if (put.errors) throw new Error(`PUT errors: ${JSON.stringify(put.statuses)}`);
    out.push({ name: `PUT ${n.toLocaleString('en')} pages of 2 KB (16 connections)`, value: put.perSecond, unit: 'writes/s' });
    await settle(server);
    await server.stop();
    const loaded = measureDir(dir);
    out.push({ name: 'raw content', value: rawBytes / 1e6, unit: 'MB' });
    out.push({ name: 'data directory after the load (server stopped)', value: loaded.total / 1e6, unit: 'MB' });
    for (const [f, size] of Object.entries(loaded.files)) out.push({ name: `  ${f}`, value: size / 1e6, unit: 'MB' });
    for (const [t, size] of tableSizes(dir)) out.push({ name: `  table ${t}`, value: size / 1e6, unit: 'MB' });
    const ratio = loaded.total / rawBytes;
    out.push({ name: 'data directory ÷ raw content, one revision each', value: ratio, unit: '×', target: '≤ 2.0', pass: ratio <= 2.0 });

    // Further revisions: EDITED_PAGES pages, each changed in 5 % of its content, EDIT_ROUNDS times.
    server = await startChild(dir);
    const edited = pages.slice(0, Math.min(EDITED_PAGES, n));
    const current = edited.map((p) => p.content);
    const editRandom = rng(99);
    let editedBytes = 0;
    for (let round = 0; round < EDIT_ROUNDS; round++) {
      for (let i = 0; i < edited.length; i++) current[i] = changeFivePercent(current[i], words, editRandom);
      editedBytes += current.reduce((s, c) => s + Buffer.byteLength(c), 0);
      const r = await runLoad(server.url, {
        connections: 16,
        total: edited.length,
        next: (i) => ({ method: 'PUT', path: `/pages/bench/${edited[i].path}`, headers, body: body(edited[i], current[i]) }),
      });
      if (r.errors) throw new Error(`PUT errors: ${JSON.stringify(r.statuses)}`);
    }
    await settle(server);
    // Reading history: the oldest revision (the longest way back from the current content) and the current page.
    const readRandom = rng(5);
    const oldest = await runLoad(server.url, {
      connections: 16,
      total: opts.quick ? 5000 : 20_000,
      next: () => ({ method: 'GET', path: `/pages/bench/${edited[Math.floor(readRandom() * edited.length)].path}/revisions/1`, headers }),
    });
    if (oldest.errors) throw new Error(`GET revision errors: ${JSON.stringify(oldest.statuses)}`);
    const latest = await runLoad(server.url, {
      connections: 16,
      total: opts.quick ? 5000 : 20_000,
      next: () => ({ method: 'GET', path: `/pages/bench/${edited[Math.floor(readRandom() * edited.length)].path}`, headers }),
    });
    await server.stop();
    const after = measureDir(dir);
    const revisions = edited.length * EDIT_ROUNDS;
    const perRevision = (after.total - loaded.total) / revisions;
    const pageSize = editedBytes / revisions;
    out.push({
      name: `data directory after ${revisions.toLocaleString('en')} further revisions (5 % changed)`,
      value: after.total / 1e6,
      unit: 'MB',
    });
    for (const [f, size] of Object.entries(after.files)) out.push({ name: `  ${f}`, value: size / 1e6, unit: 'MB' });
    out.push({ name: 'growth per further revision', value: perRevision, unit: 'bytes' });
    out.push({
      name: "growth per further revision ÷ the page's size",
      value: perRevision / pageSize,
      unit: '×',
      target: '≤ 0.5',
      pass: perRevision / pageSize <= 0.5,
    });
    out.push({ name: `GET revision 1 of ${EDIT_ROUNDS + 1} (16 connections)`, value: oldest.perSecond, unit: 'req/s' });
    out.push({ name: 'GET revision 1 p99', value: oldest.p99, unit: 'ms' });
    out.push({ name: 'GET current page of the same pages (16 connections)', value: latest.perSecond, unit: 'req/s' });
    out.push({ name: 'GET current page p99', value: latest.p99, unit: 'ms' });
    out.push({ name: 'load average (1 min) at the end', value: os.loadavg()[0], unit: '' });
    return out;
  } finally {
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}

function body(p: SyntheticPage, content: string): string {
  return JSON.stringify({ title: p.title, content, metadata: p.metadata });
}

/** Replaces a run of ~5 % of the text at a random place with as many characters of other words. */
export function changeFivePercent(text: string, words: string[], random: () => number): string {
  const len = Math.round(text.length * 0.05);
  const at = Math.floor(random() * (text.length - len));
  let repl = '';
  while (repl.length < len) repl += words[Math.floor(random() * words.length)] + ' ';
  return text.slice(0, at) + repl.slice(0, len) + text.slice(at + len);
}

/** Waits until the full-text index holds every write (a search makes it catch up) and the helper is idle. */
async function settle(server: ChildServer): Promise<void> {
  const r = await fetch(`${server.url}/search?q=settle`, { headers: authHeaders() });
  await r.body?.cancel();
  await new Promise((res) => setTimeout(res, 1000));
}

function measureDir(dir: string): { total: number; files: Record<string, number> } {
  const files: Record<string, number> = {};
  let total = 0;
  for (const f of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const st = fs.statSync(path.join(dir, f));
    if (!st.isFile()) continue;
    files[f] = st.size;
    total += st.size;
  }
  return { total, files };
}

/** Bytes per table of kspace.db and kspace-fts.db (dbstat), indexes counted with their table, largest first. */
function tableSizes(dir: string): Array<[string, number]> {
  const sizes = new Map<string, number>();
  for (const file of ['kspace.db', 'kspace-fts.db']) {
    if (!fs.existsSync(path.join(dir, file))) continue;
    const db = new Database(path.join(dir, file), { readonly: true });
    const rows = db
      .prepare(`SELECT coalesce(m.tbl_name, d.name) AS t, sum(d.pgsize) AS bytes
      FROM dbstat d LEFT JOIN sqlite_schema m ON m.name = d.name GROUP BY t`)
      .all() as Array<{ t: string; bytes: number }>;
    for (const r of rows) {
      const t = file === 'kspace.db' ? r.t : `fts:${r.t}`;
      sizes.set(t, (sizes.get(t) ?? 0) + r.bytes);
    }
    const free = db.pragma('freelist_count', { simple: true }) as number;
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    if (free) sizes.set(`${file} free pages`, free * pageSize);
    db.close();
  }
  return [...sizes].filter(([, b]) => b >= 500_000).sort((a, b) => b[1] - a[1]);
}
