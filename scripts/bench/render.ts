// Rendering and diffing at the page-size cap (issue 34, docs/security.md "Rendering"): each
// adversarial input of scripts/lib/adversarial-markdown.ts rendered by POST /render and written by
// PUT (link extraction), and a diff of two pages at the cap (three times), each while GET /healthz is
// sent one after another; the figure is the answer's time and the slowest /healthz beside it, and for
// the diff the longest event-loop block in the server's CPU time (loop-block.ts). First, a page
// with 20 embeds rendered with the render cache cold (render-embeds.ts).
// `npm run bench -- --only render` (`--quick`: the cases the API test runs).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchOptions, BenchResult } from '../bench.ts';
import { ADVERSARIAL_MARKDOWN, PAGE_CAP } from '../lib/adversarial-markdown.ts';
import { authHeaders, startChild } from '../lib/child-server.ts';
import { longestBlock, loopBlockEnv } from '../lib/loop-block.ts';
import { renderEmbeds } from './render-embeds.ts';

const QUICK = ['wikilink opens', 'wikilink closes', 'distinct wikilinks', 'deep quote', 'entities'];

async function whileProbing(
  url: string,
  work: () => Promise<Response>,
  refusable = false,
): Promise<{ status: number; ms: number; healthz: number }> {
  let done = false;
  const t0 = performance.now();
  const running = work()
    .then(async (r) => ({ status: r.status, text: await r.text(), ms: performance.now() - t0 }))
    .finally(() => {
      done = true;
    });
  let healthz = 0;
  while (!done) {
    const p0 = performance.now();
    await (await fetch(`${url}/healthz`)).arrayBuffer();
    if (!done) healthz = Math.max(healthz, performance.now() - p0);
    await new Promise((res) => setTimeout(res, 5));
  }
  const r = await running;
  if (r.status >= 300 && !(refusable && r.status === 400)) throw new Error(`${r.status} ${r.text.slice(0, 200)}`);
  return { status: r.status, ms: r.ms, healthz };
}

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bench-render-'));
  const server = await startChild(dir, loopBlockEnv());
  const json = { ...authHeaders(), 'content-type': 'application/json' };
  const out: BenchResult[] = [];
  const add = (name: string, r: { ms: number; healthz: number }, boundMs: number) => {
    out.push({ name: `${name}: answer`, value: r.ms, unit: 'ms', target: `≤ ${boundMs}`, pass: r.ms <= boundMs });
    out.push({ name: `${name}: slowest /healthz beside it`, value: r.healthz, unit: 'ms', target: '≤ 100', pass: r.healthz <= 100 });
  };
  try {
    out.push(...(await renderEmbeds(server.url, server.proc.pid!, opts)));
    await fetch(`${server.url}/spaces`, { method: 'POST', headers: json, body: JSON.stringify({ slug: 'adv', name: 'Adversarial' }) });
    const cases = Object.entries(ADVERSARIAL_MARKDOWN).filter(([name]) => !opts.quick || QUICK.includes(name));
    for (const [i, [name, content]] of cases.entries()) {
      add(
        `render ${name}`,
        await whileProbing(server.url, () =>
          fetch(`${server.url}/render`, { method: 'POST', headers: json, body: JSON.stringify({ space: 'adv', path: 'x', content }) }),
        ),
        1000,
      );
      // A write past the link budget is refused (400 naming content: docs/security.md "Links on writes").
      const put = await whileProbing(
        server.url,
        () => fetch(`${server.url}/pages/adv/p${i}`, { method: 'PUT', headers: json, body: JSON.stringify({ title: name, content }) }),
        true,
      );
      out.push({ name: `PUT ${name}: answer (${put.status})`, value: put.ms, unit: 'ms' });
      out.push({ name: `PUT ${name}: slowest /healthz beside it`, value: put.healthz, unit: 'ms' });
    }
    const lines = (s: string) => Array.from({ length: PAGE_CAP / 8 }, (_, i) => `${s}${String(i).padStart(6, '0')}`).join('\n');
    await fetch(`${server.url}/pages/adv/d`, { method: 'PUT', headers: json, body: JSON.stringify({ title: 'D', content: lines('a') }) });
    await fetch(`${server.url}/pages/adv/d`, { method: 'PUT', headers: json, body: JSON.stringify({ content: lines('b') }) });
    // The longest block is the server's main-thread CPU between two turns of its event loop
    // (loop-block.ts): what the diff itself leaves on the loop, whatever else runs on the machine.
    for (let k = 1; k <= 3; k++) {
      await longestBlock(server);
      const diff = await whileProbing(server.url, () => fetch(`${server.url}/pages/adv/d/revisions/1/diff/2`, { headers: authHeaders() }));
      const block = await longestBlock(server);
      add(`diff of two pages at the cap (every line changed), run ${k}`, diff, 2000);
      out.push({
        name: `diff run ${k}: longest event-loop block (server main-thread CPU)`,
        value: block,
        unit: 'ms',
        target: '≤ 100',
        pass: block <= 100,
      });
    }
    return out;
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
