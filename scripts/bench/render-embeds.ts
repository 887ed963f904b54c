// A page with 20 note embeds rendered with the render cache cold (issue 39: p99 ≤ 20 ms): each
// sample is GET ?render=html of a host page never rendered before, embedding 20 pages never
// rendered before (whole pages, sections and blocks), so every parse is a miss. Part of the
// render section (scripts/bench/render.ts).
import fs from 'node:fs';
import type { BenchOptions, BenchResult } from '../bench.ts';
import { authHeaders } from '../lib/child-server.ts';
import { timeCalls } from '../lib/load.ts';

const EMBEDS = 20;
const WARMUP = 20;

/** An embedded page: about 1.5 KB of ordinary Markdown with a section and a block id. */
function embedded(i: number, j: number): string {
  return [
    `# Note ${i}-${j}`,
    '',
    `Some opening text of note ${j}, with *emphasis*, **strong** words, \`code\` and a [[host-${i}|link back]].`,
    '',
    '## Details',
    '',
    `- first point of note ${j}, written out to a realistic length for a list item`,
    '- second point, with a [relative link](other) and a bare https://example.com/x',
    '- third point',
    '',
    `A paragraph worth embedding by its block id, long enough to be a real paragraph of a note ${j}. ^b${j}`,
    '',
    '## More',
    '',
    '> [!tip] A callout',
    '> With some text inside it, and ==a highlight==.',
    '',
    '| a | b |',
    '| - | - |',
    '| 1 | 2 |',
    '',
    'Closing words. '.repeat(30),
  ].join('\n');
}

/** The host: some text and 20 embeds, a third each whole, by section and by block. */
function host(i: number): string {
  const lines = [`# Host ${i}`, '', 'A page that gathers twenty notes.', ''];
  for (let j = 0; j < EMBEDS; j++) {
    const target = `notes/n-${i}-${j}`;
    lines.push(j % 3 === 0 ? `![[${target}]]` : j % 3 === 1 ? `![[${target}#Details]]` : `![[${target}#^b${j}]]`, '');
  }
  return lines.join('\n');
}

/** The CPU time the process `pid` has used (user + system), in milliseconds (Linux). */
function cpuMs(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // utime, stime in clock ticks of 10 ms
}

/**
 * `pid`: the server's, for its CPU time per render (mean), a figure a loaded machine inflates
 * less than the latencies.
 */
export async function renderEmbeds(url: string, pid: number, opts: BenchOptions): Promise<BenchResult[]> {
  const samples = opts.quick ? 50 : 200;
  const json = { ...authHeaders(), 'content-type': 'application/json' };
  const pages = [];
  for (let i = 0; i < samples + WARMUP; i++) {
    pages.push({ path: `host-${i}`, title: `Host ${i}`, content: host(i) });
    for (let j = 0; j < EMBEDS; j++) pages.push({ path: `notes/n-${i}-${j}`, title: `Note ${i}-${j}`, content: embedded(i, j) });
  }
  const bundle = { format: 'service-space-export', formatVersion: 1, space: { slug: 'emb', name: 'Embeds', description: '' }, pages };
  const imported = await fetch(`${url}/spaces/emb/import`, { method: 'POST', headers: json, body: JSON.stringify(bundle) });
  const result = (await imported.json()) as { created: number; errors: unknown[] };
  if (imported.status !== 200 || result.errors.length)
    throw new Error(`import: ${imported.status} ${JSON.stringify(result).slice(0, 300)}`);
  const render = async (i: number) => {
    const r = await fetch(`${url}/pages/emb/host-${i}?render=html`, { headers: authHeaders() });
    const body = (await r.json()) as { html?: string };
    if (r.status !== 200) throw new Error(`render: ${r.status}`);
    const shown = body.html?.match(/<div class="embed"/g)?.length ?? 0;
    if (shown !== EMBEDS) throw new Error(`render of host-${i}: ${shown} of ${EMBEDS} embeds shown`);
  };
  for (let i = 0; i < WARMUP; i++) await render(samples + i); // the server's JIT, not its render cache
  const cpu0 = cpuMs(pid);
  const t = await timeCalls(samples, (i) => render(i));
  const cpu = (cpuMs(pid) - cpu0) / samples;
  return [
    { name: `GET ?render=html, a page with ${EMBEDS} embeds, render cache cold: server CPU per render (mean)`, value: cpu, unit: 'ms' },
    { name: `GET ?render=html, a page with ${EMBEDS} embeds, render cache cold: p50`, value: t.p50, unit: 'ms' },
    {
      name: `GET ?render=html, a page with ${EMBEDS} embeds, render cache cold: p99 (${samples} pages)`,
      value: t.p99,
      unit: 'ms',
      target: '≤ 20',
      pass: t.p99 <= 20,
    },
  ];
}
