// Input latency of the editor: from a keystroke (the keydown's own time stamp) to the frame that
// shows its text, typed in the middle of a 20 KB page in the headless Chromium of
// @sparticuz/chromium. A `keystroke` performance measure per key: it ends in a task queued from the
// first animation frame after the key, which runs once that frame has been painted. The floor is
// the same keys in a bare <textarea> with the same text: the browser's own input, layout and paint,
// and the wait for its next frame.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import chromium from '@sparticuz/chromium';
import { chromium as pw, type Page } from 'playwright-core';
import { BENCH_ADMIN_KEY, startChild } from '../lib/child-server.ts';

export type Latency = { p50: number; p99: number; max: number; keys: number };
/** The editor's latency, and the floor: the same keys in a bare <textarea> holding the same text, same browser. */
export type InputLatency = Latency & { floor: Latency };

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

export async function inputLatency(content: string, keys: number): Promise<InputLatency> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bench-input-'));
  const server = await startChild(dataDir);
  const auth = { authorization: `Bearer ${BENCH_ADMIN_KEY}`, 'content-type': 'application/json' };
  const call = (method: string, p: string, body: unknown) => fetch(server.url + p, { method, headers: auth, body: JSON.stringify(body) });
  await call('POST', '/admin/principals', { name: 'writer', kind: 'user', password: 'writer password' });
  await call('POST', '/spaces', { slug: 'bench', name: 'Bench' });
  await call('PUT', '/pages/bench/long', { title: 'A long page', content });
  const LEFT_OUT = new Set(['--single-process', '--no-zygote', '--in-process-gpu']);
  const browser = await pw.launch({ executablePath: await chromium.executablePath(), args: chromium.args.filter((a) => !LEFT_OUT.has(a)) });
  try {
    const signIn = await fetch(`${server.url}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'writer', password: 'writer password' }),
    });
    const token = /kspace_session=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1];
    if (!token) throw new Error(`sign-in failed: ${signIn.status}`);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addCookies([{ name: 'kspace_session', value: token, url: server.url }]);
    const page = await context.newPage();
    await page.goto(`${server.url}/app/p/bench/long?edit`);
    await page.locator('.cm-content').waitFor();
    await page.getByRole('textbox', { name: 'Content' }).click();
    for (let i = 0; i < 40; i++) await page.keyboard.press('ArrowDown'); // into the middle of the page
    const app = await typeAndMeasure(page, keys);
    await context.close();
    // The floor: what the browser alone takes from a key to its painted frame (no script of ours).
    const bare = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const floorPage = await bare.newPage();
    const escaped = content.replace(/&/g, '&amp;').replace(/</g, '&lt;');
    await floorPage.setContent(`<textarea aria-label="Content" rows="40" cols="100">${escaped}</textarea>`);
    await floorPage.getByRole('textbox', { name: 'Content' }).click();
    for (let i = 0; i < 40; i++) await floorPage.keyboard.press('ArrowDown');
    const floor = await typeAndMeasure(floorPage, keys);
    await bare.close();
    return { ...app, floor };
  } finally {
    await browser.close();
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function typeAndMeasure(page: Page, keys: number): Promise<Latency> {
  await page.evaluate(() => {
    document.addEventListener(
      'keydown',
      (e) => {
        const start = e.timeStamp;
        requestAnimationFrame(() => setTimeout(() => performance.measure('keystroke', { start, end: performance.now() }), 0));
      },
      { capture: true },
    );
  });
  const text = 'the quick brown fox jumps over the lazy dog ';
  for (let i = 0; i < keys; i++) await page.keyboard.type(text[i % text.length]!, { delay: 0 }).then(() => page.waitForTimeout(40));
  await page.waitForTimeout(200);
  const all = await page.evaluate(() => performance.getEntriesByName('keystroke').map((e) => e.duration));
  const warm = all.slice(10); // the first keys also warm up the JIT
  return { p50: quantile(warm, 0.5), p99: quantile(warm, 0.99), max: Math.max(...warm), keys: warm.length };
}
