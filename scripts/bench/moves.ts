// Move figures (issue 21): a 1,000-page prefix with 5,000 inbound links from 1,000 other pages
// (five each), moved with one POST /spaces/:slug/moves; every linking page is rewritten (a new
// revision each). `node scripts/bench.ts --only moves`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { authHeaders, startChild } from '../lib/child-server.ts';
import type { BenchOptions, BenchResult } from '../bench.ts';

const MOVED = 1000;
const SOURCES = 1000;
const LINKS_EACH = 5;

export async function run(_opts: BenchOptions): Promise<BenchResult[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bench-moves-'));
  const server = await startChild(dir, { SERVICE_MAX_IMPORT_BYTES: String(256 * 1024 * 1024) });
  try {
    const now = new Date().toISOString();
    const body = 'Some text about the topic, a paragraph or so of ordinary prose to move along with it.\n'.repeat(10);
    const pages = [
      ...Array.from({ length: MOVED }, (_, i) => ({
        path: `guide/section-${i % 10}/page-${i}`,
        title: `Page ${i}`,
        content: body,
        frontmatter: {},
        metadata: { n: i },
        version: 1,
        updatedAt: now,
      })),
      ...Array.from({ length: SOURCES }, (_, i) => ({
        path: `notes/note-${i}`,
        title: `Note ${i}`,
        frontmatter: {},
        metadata: {},
        version: 1,
        updatedAt: now,
        content:
          body +
          Array.from({ length: LINKS_EACH }, (_, k) => {
            const t = (i * LINKS_EACH + k) % MOVED;
            return `- see [page ${t}](/pages/bench/guide/section-${t % 10}/page-${t})`;
          }).join('\n'),
      })),
    ];
    const bundle = JSON.stringify({
      format: 'service-space-export',
      formatVersion: 1,
      exportedAt: now,
      space: { slug: 'bench', name: 'Bench', description: '' },
      pages,
    });
    const imp = await fetch(`${server.url}/spaces/bench/import`, { method: 'POST', headers: authHeaders(), body: bundle });
    if (!imp.ok) throw new Error(`import: ${imp.status} ${await imp.text()}`);
    const t0 = performance.now();
    const r = await fetch(`${server.url}/spaces/bench/moves`, {
      method: 'POST',
      headers: { ...authHeaders(), 'content-type': 'application/json' },
      body: JSON.stringify({ from: 'guide', to: 'manual', prefix: true }),
    });
    const seconds = (performance.now() - t0) / 1000;
    const out = (await r.json()) as { moved: unknown[]; rewritten: unknown[] };
    if (!r.ok || out.moved.length !== MOVED || out.rewritten.length !== SOURCES)
      throw new Error(`move: ${r.status} ${JSON.stringify(out).slice(0, 300)}`);
    return [
      {
        name: `move of a ${MOVED.toLocaleString('en')}-page prefix with ${(SOURCES * LINKS_EACH).toLocaleString('en')} inbound links (${SOURCES.toLocaleString('en')} pages rewritten)`,
        value: seconds,
        unit: 's',
        target: '≤ 10',
        pass: seconds <= 10,
      },
    ];
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
