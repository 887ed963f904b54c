// The web app (issue 19): bytes the page view and the editor send, the page view's largest
// contentful paint in the headless Chromium of @sparticuz/chromium (loopback, cold cache, a
// 20 KB page), the editor's keystroke-to-paint latency in that page, and what the embedded app
// adds to dist/kspace, and the quick switcher's answer per keystroke at --pages pages.
// `npm run bench -- --only web`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import chromium from '@sparticuz/chromium';
import { chromium as pw } from 'playwright-core';
import type { WebManifest } from '../../src/http/web-manifest.ts';
import type { BenchOptions, BenchResult } from '../bench.ts';
import { BENCH_ADMIN_KEY, startChild } from '../lib/child-server.ts';
import { inputLatency } from './web-input.ts';
import { switcherLatency } from './web-switcher.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const WEB = path.join(ROOT, 'dist/web');
const KB = 1024;

function manifest(): WebManifest {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-web.ts')], { cwd: ROOT, stdio: 'ignore' });
  return JSON.parse(fs.readFileSync(path.join(WEB, 'manifest.json'), 'utf8')) as WebManifest;
}

/** ~20 KB of Markdown: headings, paragraphs, lists, a table, links, code. */
function twentyKbPage(): string {
  const parts: string[] = [];
  for (let i = 1; parts.join('\n').length < 20 * KB; i++) {
    parts.push(
      `## Section ${i}\n\nThis is paragraph ${i} of a long page with **bold**, _emphasis_, \`code\` and a [link to another page](other-${i}).` +
        ' It goes on for a while so that the paragraph has the length of real prose in a knowledge base, about two lines or three on a wide screen.\n' +
        `\n- item one of list ${i}\n- item two with [a link](https://example.com/${i})\n- item three\n\n| key | value |\n|---|--:|\n| a${i} | ${i * 7} |\n`,
    );
  }
  return `# A long page\n\n${parts.join('\n')}`;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

type Lcp = { median: number; all: number[] };

async function largestContentfulPaint(runs: number): Promise<{ app: Lcp; floor: Lcp }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bench-web-'));
  const server = await startChild(dataDir);
  const auth = { authorization: `Bearer ${BENCH_ADMIN_KEY}`, 'content-type': 'application/json' };
  const call = (method: string, p: string, body: unknown) => fetch(server.url + p, { method, headers: auth, body: JSON.stringify(body) });
  await call('POST', '/admin/principals', { name: 'reader', kind: 'user', password: 'reader password' });
  await call('POST', '/spaces', { slug: 'bench', name: 'Bench' });
  await call('PUT', '/pages/bench/long', { title: 'A long page', content: twentyKbPage() });
  const LEFT_OUT = new Set(['--single-process', '--no-zygote', '--in-process-gpu']);
  const browser = await pw.launch({ executablePath: await chromium.executablePath(), args: chromium.args.filter((a) => !LEFT_OUT.has(a)) });
  try {
    // The session cookie, from a sign-in over the API; each run is a new context: an empty cache.
    const signIn = await fetch(`${server.url}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'reader', password: 'reader password' }),
    });
    const token = /kspace_session=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1];
    if (!token) throw new Error(`sign-in failed: ${signIn.status}`);
    const measure = async (url: string, cookie: boolean): Promise<Lcp> => {
      const all: number[] = [];
      for (let i = 0; i < runs + 1; i++) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        if (cookie) await context.addCookies([{ name: 'kspace_session', value: token, url: server.url }]);
        const page = await context.newPage();
        await page.addInitScript(() => {
          const w = window as unknown as { __lcp: number };
          w.__lcp = 0;
          new PerformanceObserver((list) => {
            for (const e of list.getEntries()) w.__lcp = Math.max(w.__lcp, e.startTime);
          }).observe({ type: 'largest-contentful-paint', buffered: true });
        });
        await page.goto(url);
        await page.getByRole('heading', { name: 'A long page', level: 1 }).first().waitFor();
        await page.locator('#h-section-20').waitFor();
        await page.waitForTimeout(300); // LCP settles after the last large paint
        const lcp = await page.evaluate(() => (window as unknown as { __lcp: number }).__lcp);
        if (i > 0) all.push(lcp); // the first run warms the server and the browser, not the page's cache
        await context.close();
      }
      return { median: median(all), all };
    };
    // The floor: the same rendered HTML as a static page (no script, no API calls), same browser, same moment.
    const rendered = (await (await fetch(`${server.url}/pages/bench/long?render=html`, { headers: auth })).json()) as { html: string };
    const staticPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>floor</title></head><body><h1>A long page</h1>${rendered.html}</body></html>`;
    const floorServer = http.createServer((_req, res) => res.end(staticPage));
    await new Promise<void>((r) => floorServer.listen(0, '127.0.0.1', () => r()));
    try {
      const floor = await measure(`http://127.0.0.1:${(floorServer.address() as AddressInfo).port}/`, false);
      const app = await measure(`${server.url}/app/p/bench/long`, true);
      return { app, floor };
    } finally {
      floorServer.close();
    }
  } finally {
    await browser.close();
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Bytes the executable holds for the web app: every dist/web file is one SEA asset, stored as is. */
function embeddedBytes(m: WebManifest): number {
  return m.files.reduce((sum, f) => sum + fs.statSync(path.join(WEB, f)).size + f.length + 'dist/web/'.length, 0);
}

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const m = manifest();
  const editor = m.lazyChunks.find((c) => c.editor);
  const lcp = await largestContentfulPaint(opts.quick ? 3 : 7);
  const embedded = embeddedBytes(m);
  const input = await inputLatency(twentyKbPage(), opts.quick ? 100 : 300);
  const switcher = await switcherLatency(opts.quick ? 10_000 : opts.pages, opts.quick ? 15 : 40);
  return [
    { name: 'page view JS, gzipped', value: m.pageJs.gzipBytes / KB, unit: 'KB', target: '≤ 60 KB', pass: m.pageJs.gzipBytes <= 60 * KB },
    { name: 'page view CSS, gzipped', value: m.css.gzipBytes / KB, unit: 'KB' },
    {
      name: 'editor chunk, gzipped',
      value: (editor?.gzipBytes ?? Number.NaN) / KB,
      unit: 'KB',
      target: '≤ 150 KB',
      pass: editor !== undefined && editor.gzipBytes <= 150 * KB,
    },
    {
      name: `page view LCP, 20 KB page, cold cache (median of ${lcp.app.all.length}: ${lcp.app.all.map((x) => Math.round(x)).join(', ')})`,
      value: lcp.app.median,
      unit: 'ms',
      target: '≤ 300 ms',
      pass: lcp.app.median <= 300,
    },
    {
      name: `floor: the same HTML as a static page (median of ${lcp.floor.all.length}: ${lcp.floor.all.map((x) => Math.round(x)).join(', ')})`,
      value: lcp.floor.median,
      unit: 'ms',
    },
    {
      name: `editor keystroke to painted text, 20 KB page (p99 of ${input.keys} keys; p50 ${input.p50.toFixed(1)}, max ${input.max.toFixed(1)})`,
      value: input.p99,
      unit: 'ms',
      target: '≤ 16 ms',
      pass: input.p99 <= 16,
    },
    {
      name: `floor: the same keys in a bare <textarea> with the same text (p99 of ${input.floor.keys} keys; p50 ${input.floor.p50.toFixed(1)}, max ${input.floor.max.toFixed(1)})`,
      value: input.floor.p99,
      unit: 'ms',
    },
    {
      name: `quick switcher: keystroke to painted options, ${switcher.pages.toLocaleString('en')} pages (p99 of ${switcher.keys} keys; p50 ${switcher.p50.toFixed(1)}, max ${switcher.max.toFixed(1)})`,
      value: switcher.p99,
      unit: 'ms',
      target: '≤ 100 ms',
      pass: switcher.p99 <= 100,
    },
    {
      name: 'executable growth (embedded dist/web)',
      value: embedded / KB / KB,
      unit: 'MB',
      target: '≤ 5 MB',
      pass: embedded <= 5 * KB * KB,
    },
  ];
}
