// Export and import figures (issue 5): a 10,000-page bundle imported into an empty space, then
// the space grown to `--pages` (default 100,000) and exported by a freshly started server whose
// peak RSS (VmHWM) is read afterwards. `node scripts/bench.ts --only bundles [--quick]`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { authHeaders, peakRssBytes, startChild, type ChildServer } from '../lib/child-server.ts';
import { rng, syntheticPage, vocabulary, zipf } from '../lib/corpus.ts';
import type { BenchOptions, BenchResult } from '../bench.ts';

const IMPORT_PAGES = 10_000;

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const total = opts.quick ? 20_000 : Math.max(opts.pages, IMPORT_PAGES);
  const out: BenchResult[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bench-bundles-'));
  const env = { SERVICE_MAX_IMPORT_BYTES: String(512 * 1024 * 1024) };
  let server = await startChild(dir, env);
  try {
    const first = await importSlice(server, 0, IMPORT_PAGES, total);
    out.push({
      name: `import of a ${IMPORT_PAGES.toLocaleString('en')}-page bundle (empty space)`,
      value: first.perSecond,
      unit: 'pages/s',
      target: '≥ 2,000',
      pass: first.perSecond >= 2000,
    });
    out.push({ name: 'import: bundle size', value: first.bytes / 1024 / 1024, unit: 'MB' });
    let seconds = 0;
    for (let from = IMPORT_PAGES; from < total; from += IMPORT_PAGES) {
      seconds += (await importSlice(server, from, Math.min(IMPORT_PAGES, total - from), total)).seconds;
    }
    if (total > IMPORT_PAGES)
      out.push({
        name: `import: further pages into a growing space (up to ${total.toLocaleString('en')})`,
        value: (total - IMPORT_PAGES) / seconds,
        unit: 'pages/s',
      });
    const again = await importSlice(server, 0, IMPORT_PAGES, total, 'overwrite');
    out.push({
      name: `re-import of the same ${IMPORT_PAGES.toLocaleString('en')} pages, mode=overwrite (all identical → skipped)`,
      value: again.perSecond,
      unit: 'pages/s',
    });
    out.push({ name: 'server peak RSS after the imports', value: peakRssBytes(server.proc.pid!) / 1024 / 1024, unit: 'MB' });
    await server.stop();

    // A fresh server, so its peak RSS is the export's own.
    server = await startChild(dir, env);
    const exp = await exportSpace(server, total);
    out.push({
      name: `export of ${total.toLocaleString('en')} pages (streamed)`,
      value: exp.perSecond,
      unit: 'pages/s',
      target: '≥ 20,000',
      pass: exp.perSecond >= 20_000,
    });
    out.push({ name: 'export: bundle size', value: exp.bytes / 1024 / 1024, unit: 'MB' });
    out.push({ name: 'export: time to first byte', value: exp.firstByteMs, unit: 'ms' });
    const rss = peakRssBytes(server.proc.pid!) / 1024 / 1024;
    out.push({ name: 'server peak RSS (VmHWM) over start-up and the export', value: rss, unit: 'MB', target: '≤ 200', pass: rss <= 200 });
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

/** Pages [from, from + n) of the corpus as one bundle, imported with one request. */
export async function importSlice(server: ChildServer, from: number, n: number, total: number, mode = 'skip') {
  const random = rng(42 + from);
  const words = vocabulary(20_000);
  const pick = zipf(words.length, random);
  const updatedAt = new Date().toISOString();
  const pages = Array.from({ length: n }, (_, k) => {
    const p = syntheticPage(from + k, total, words, random, pick);
    return { path: p.path, title: p.title, frontmatter: {}, content: p.content, version: 1, updatedAt, metadata: p.metadata };
  });
  const body = JSON.stringify({
    format: 'service-space-export',
    formatVersion: 1,
    exportedAt: updatedAt,
    space: { slug: 'bench', name: 'Bench', description: '' },
    pages,
  });
  const t0 = performance.now();
  const r = await fetch(`${server.url}/spaces/bench/import?mode=${mode}`, { method: 'POST', headers: authHeaders(), body });
  const result = (await r.json()) as { created: number; updated: number; skipped: number; errors: unknown[] };
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 200 || result.errors.length || result.created + result.skipped !== n) {
    throw new Error(`import ${from}: ${r.status} ${JSON.stringify(result).slice(0, 500)}`);
  }
  return { seconds, perSecond: n / seconds, bytes: Buffer.byteLength(body) };
}

/** Downloads the export, counting pages as they stream past without holding the bundle. */
async function exportSpace(server: ChildServer, expected: number) {
  const t0 = performance.now();
  const r = await fetch(`${server.url}/spaces/bench/export`, { headers: authHeaders() });
  if (r.status !== 200 || !r.body) throw new Error(`export: ${r.status}`);
  const marker = Buffer.from('{"path":');
  let tail = Buffer.alloc(0);
  let pages = 0;
  let bytes = 0;
  let firstByteMs = 0;
  for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) {
    if (!bytes) firstByteMs = performance.now() - t0;
    bytes += chunk.length;
    const buf = Buffer.concat([tail, chunk]);
    for (let i = buf.indexOf(marker); i !== -1; i = buf.indexOf(marker, i + 1)) pages++;
    tail = buf.subarray(Math.max(0, buf.length - marker.length + 1));
  }
  const seconds = (performance.now() - t0) / 1000;
  if (pages !== expected) throw new Error(`export: ${pages} pages, expected ${expected}`);
  return { perSecond: pages / seconds, bytes, firstByteMs };
}
