import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkA11y, guard, signIn, useBrowserFixture } from './support/index.ts';

// What a hostile page or hostile Markdown can do to a signed-in person: nothing.

const HOSTILE = [
  '## Hostile content',
  '',
  '<script>window.__pwned = "script"</script>',
  '',
  '<div onclick="window.__pwned = \'div\'">raw html block</div>',
  '',
  'inline <img src="x" onerror="window.__pwned = \'img\'"> html and <svg onload="window.__pwned = \'svg\'"></svg>',
  '',
  '[a javascript link](javascript:window.__pwned=%22link%22) [entity](&#106;avascript:window.__pwned=1) [vb](vbscript:x) [data](data:text/html,<script>1</script>)',
  '',
  '![remote image](https://evil.example/track.png) ![protocol relative](//evil.example/t.png) ![js image](javascript:1)',
  '',
  '<iframe src="https://evil.example/frame"></iframe> <link rel="stylesheet" href="https://evil.example/s.css"> <style>body{display:none}</style>',
  '',
  '<https://evil.example/autolink> and a bare https://evil.example/bare link',
  '',
  '| left | right |',
  '|:--|--:|',
  '| a | b |',
  '',
  '[ref][r]',
  '',
  '[r]: javascript:window.__pwned="ref"',
].join('\n');

const t = useBrowserFixture({
  user: { name: 'vic', password: 'victim password', signIn: false },
  spaces: [['team', 'Team']],
  pages: [['team', 'hostile', { title: 'Hostile', content: HOSTILE }]],
});
let attacker: http.Server;
let attackerUrl = '';
let attackerHits: string[] = [];

beforeAll(async () => {
  // Another origin (another port): a page that tries to write to kspace with the person's cookie.
  attacker = http.createServer((req, res) => {
    attackerHits.push(req.url ?? '');
    const target = new URL(req.url ?? '/', 'http://x').searchParams.get('target') ?? '';
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (!target) return void res.end('<!doctype html><html lang="en"><title>probe</title><p>probe</p></html>');
    res.end(`<!doctype html><html><body>
      <form id="f" method="POST" action="${target}/spaces" enctype="text/plain"><input name='{"slug":"pwned-form","name":"x","a":"' value='"}'></form>
      <script>
        fetch(${JSON.stringify(target)} + '/spaces', { method: 'POST', mode: 'no-cors', credentials: 'include',
          headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ slug: 'pwned-fetch', name: 'x' }) })
          .finally(() => document.getElementById('f').submit());
      </script></body></html>`);
  });
  await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', () => r()));
  attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => attacker?.close(() => r()));
});
const newPage = (): Promise<Page> => t.open({ signedIn: false, guarded: false });

describe('security in the browser', () => {
  it('refuses a cross-origin POST that carries the session cookie (403), and nothing is created', async () => {
    const page = await newPage();
    await page.goto(`${t.app.url}/app/sign-in`);
    await signIn(page, 'vic', 'victim password');
    const statuses: number[] = [];
    page.on('response', (r) => {
      if (new URL(r.url()).pathname === '/spaces' && r.request().method() === 'POST') statuses.push(r.status());
    });
    await page.goto(`${attackerUrl}/?target=${encodeURIComponent(t.app.url)}`);
    await expect.poll(() => statuses.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    expect(statuses).toEqual([403, 403]);
    const spaces = (await t.app.admin.get('/spaces?limit=100')).body.spaces as Array<{ slug: string }>;
    expect(spaces.map((s) => s.slug)).not.toContain('pwned-form');
    expect(spaces.map((s) => s.slug)).not.toContain('pwned-fetch');
    // 403, not 401: the browser did send the session cookie (same site, other port); the CSRF rule stopped it.
    expect(attackerHits.length).toBeGreaterThan(0);
  });

  it('shows a page of hostile Markdown without running anything or loading from elsewhere', async () => {
    const page = await newPage();
    const g = guard(page, t.app.url);
    await page.goto(`${t.app.url}/app/p/team/hostile`);
    await signIn(page, 'vic', 'victim password');
    await page.getByRole('heading', { name: 'Hostile', level: 1 }).waitFor();
    const article = page.locator('.markdown, [data-rendered], article').first();
    await article.getByText('raw html block', { exact: false }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    const found = await page.evaluate(() => {
      const sel = [
        'script:not([src^="/app/assets/"])',
        'iframe',
        'object',
        'embed',
        'link:not([href^="/app/assets/"])',
        'style:not([nonce])',
        '[onerror]',
        '[onclick]',
        '[onload]',
        'a[href^="javascript:" i]',
        'a[href^="vbscript:" i]',
        'a[href^="data:" i]',
        'img[src*="//"]',
      ];
      return sel.filter((s) => document.querySelector(s) !== null);
    });
    expect(found).toEqual([]);
    // The remote image is a link to it, not an image; the table is aligned without inline styles.
    expect(await page.getByRole('link', { name: 'remote image' }).getAttribute('href')).toBe('https://evil.example/track.png');
    expect(await page.locator('#app [style]').count()).toBe(0);
    await page.getByText('raw html block').click(); // the escaped onclick is text
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    await checkA11y(page, 'hostile page');
    expect(g.problems).toEqual([]);
  });

  it('the guard itself notices a request to another origin', async () => {
    const page = await newPage();
    const g = guard(page, t.app.url);
    await page.goto(`${t.app.url}/app/sign-in`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.goto(`${attackerUrl}/probe`);
    expect(g.problems.join('\n')).toContain(`request to another origin: GET ${attackerUrl}/probe`);
    g.problems.length = 0; // expected here: the test passes
  });
});
