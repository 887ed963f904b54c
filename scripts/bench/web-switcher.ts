// The quick switcher's answer in the browser (issue 35 item 4): on an N-page corpus (default 100k,
// scripts/lib/search-corpus.ts, read by a person who may read half of it), page titles typed key
// by key into the open switcher at a fast typist's pace; per key, from the keydown's time stamp
// to the frame painted after the options for the text so far have come (the list's `aria-busy`
// back to false). That span holds the switcher's debounce, GET /search/titles and the render.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import chromium from '@sparticuz/chromium';
import Database from 'better-sqlite3';
import { chromium as pw } from 'playwright-core';
import { BENCH_ADMIN_KEY, authHeaders, startChild, type ChildServer } from '../lib/child-server.ts';
import { percentile } from '../lib/load.ts';
import { insertCorpus } from '../lib/search-corpus.ts';

export type SwitcherLatency = {
  p50: number;
  p99: number;
  max: number;
  keys: number;
  pages: number;
  requestP50: number;
  requestP99: number;
};

const KEY_GAP_MS = 120; // a fast typist: about 100 words a minute

export async function switcherLatency(pages: number, titlesTyped: number): Promise<SwitcherLatency> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bench-switcher-'));
  let server: ChildServer | null = null;
  const browser = await pw.launch({
    executablePath: await chromium.executablePath(),
    args: chromium.args.filter((a) => !['--single-process', '--no-zygote', '--in-process-gpu'].includes(a)),
  });
  try {
    server = await startChild(dir);
    const post = async (url: string, p: string, body?: unknown) => {
      const r = await fetch(url + p, {
        method: 'POST',
        headers: { ...authHeaders(BENCH_ADMIN_KEY), 'content-type': 'application/json' },
        body: JSON.stringify(body ?? {}),
      });
      if (r.status >= 300) throw new Error(`POST ${p}: ${r.status} ${await r.text()}`);
      return r.json();
    };
    await post(server.url, '/spaces', { slug: 'bench', name: 'Bench' });
    const other = await post(server.url, '/admin/principals', { name: 'other', kind: 'agent' });
    await post(server.url, '/admin/principals', { name: 'reader', kind: 'user', password: 'reader password' });
    const me = await (await fetch(`${server.url}/me`, { headers: authHeaders(BENCH_ADMIN_KEY) })).json();
    await server.stop();
    insertCorpus(dir, pages, me.id, other.id);
    server = await startChild(dir);
    await post(server.url, '/links/rebuild'); // the title index of the bulk-inserted pages
    const db = new Database(path.join(dir, 'kspace.db'), { readonly: true });
    // Pages the reader may read (the even half: odd pages carry an ACL for `other` only).
    const titles = (
      db.prepare('SELECT title FROM pages WHERE has_acl = 0 ORDER BY random() LIMIT ?').all(titlesTyped) as Array<{ title: string }>
    ).map((r) => r.title);
    db.close();

    const signIn = await fetch(`${server.url}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'reader', password: 'reader password' }),
    });
    const token = /kspace_session=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1];
    if (!token) throw new Error(`sign-in failed: ${signIn.status}`);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addCookies([{ name: 'kspace_session', value: token, url: server.url }]);
    const page = await context.newPage();
    await page.goto(`${server.url}/app/`);
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.evaluate(() => {
      const w = window as unknown as { __keyAt: number | null };
      w.__keyAt = null;
      document.addEventListener(
        'keydown',
        (e) => {
          if (e.key.length === 1 && e.key !== ' ') w.__keyAt = e.timeStamp;
        },
        { capture: true },
      );
      new MutationObserver((records) => {
        for (const r of records) {
          if ((r.target as Element).getAttribute('aria-busy') !== 'false' || w.__keyAt === null) continue;
          const start = w.__keyAt;
          w.__keyAt = null;
          requestAnimationFrame(() => setTimeout(() => performance.measure('switcher', { start, end: performance.now() }), 0));
        }
      }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['aria-busy'] });
    });
    for (const title of titles) {
      await page.keyboard.press('Control+k');
      await page.getByRole('combobox').waitFor();
      const typed = title.split(' ').slice(0, 2).join(' ');
      for (const ch of typed) {
        await page.keyboard.type(ch);
        await page.waitForTimeout(KEY_GAP_MS);
      }
      await page.waitForTimeout(300);
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
    }
    const all = await page.evaluate(() => performance.getEntriesByName('switcher').map((e) => e.duration));
    // The GET /search/titles requests alone, as the browser timed them (aborted ones included).
    const requests = (
      await page.evaluate(() =>
        performance
          .getEntriesByType('resource')
          .filter((e) => e.name.includes('/search/titles'))
          .map((e) => e.duration),
      )
    ).sort((a, b) => a - b);
    await context.close();
    const warm = all.slice(5).sort((a, b) => a - b); // the first keys also warm up the JIT and the server's caches
    return {
      p50: percentile(warm, 0.5),
      p99: percentile(warm, 0.99),
      max: Math.max(...warm),
      keys: warm.length,
      pages,
      requestP50: percentile(requests, 0.5),
      requestP99: percentile(requests, 0.99),
    };
  } finally {
    await browser.close();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
