// The web app offline (docs/web.md "Offline"): a page the person opened (its text and its image)
// reads without a connection under a banner; an edit made offline is kept and saved when the
// connection returns, through the merge when someone saved meanwhile; sign-out, even offline,
// deletes the person's offline copies and ends the session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type AppServer, checkA11y, guard, openBrowser, type Session, signedInSession, startAppServer } from './support/index.ts';
import { gradientPng } from './support/png.ts';

// The machine may be busy: wait up to 20 s for what a page shows.
const POLL = { timeout: 20_000, interval: 100 };
// Offline, Chromium reports each request the worker has no copy for (the live feed, the preview's
// render, favourites) as a failed load: the app going on without them is what is tested.
const OFFLINE_NOISE = [/net::ERR_INTERNET_DISCONNECTED/, /Failed to load resource/, /Failed to fetch/];
const PAGE_API = '/pages/notes/trip';
let app: AppServer;
let browser: Browser;
let session: Session;

beforeAll(async () => {
  app = await startAppServer();
  browser = await openBrowser();
  const user = await app.createUser('olga');
  await app.createSpace('notes', 'Notes');
  await app.putPage('notes', 'trip', { title: 'Trip', content: 'Packing list.\n\n![Map](files/map.png)\n\nBring a coat.\n\nThe end.' });
  const r = await fetch(`${app.url}/files/notes/trip/map.png`, {
    method: 'PUT',
    body: gradientPng(120, 60) as BodyInit,
    headers: { authorization: `Bearer ${app.admin.key}` },
  });
  expect(r.status).toBe(201);
  session = await signedInSession(browser, app.url, user);
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** Opens the page online and waits until the worker holds its answer and its image. */
async function openAndKeep(page: Page): Promise<void> {
  await page.goto('/app/p/notes/trip');
  await page.getByRole('heading', { name: 'Trip', level: 1 }).waitFor();
  await expect
    .poll(
      () =>
        page.evaluate(async (api) => {
          const name = (await caches.keys()).find((n) => n.startsWith('kspace-person-'));
          if (!name) return false;
          const cache = await caches.open(name);
          return Boolean(await cache.match(`${api}?render=html`)) && Boolean(await cache.match('/files/notes/trip/map.png'));
        }, PAGE_API),
      POLL,
    )
    .toBe(true);
}

/** A new signed-in tab (guarded, the offline noise allowed) on the page, opened and kept by the worker. */
async function openKept(): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await browser.newContext({ baseURL: app.url, storageState: session });
  const page = await ctx.newPage();
  guard(page, app.url, { allowConsole: OFFLINE_NOISE });
  await openAndKeep(page);
  return { ctx, page };
}

describe('the web app offline', { timeout: 90_000 }, () => {
  it('reads an opened page offline with a banner, and saves an offline edit (merged) when back online', async () => {
    const { ctx, page } = await openKept();

    await ctx.setOffline(true);
    await page.reload();
    await page.getByRole('heading', { name: 'Trip', level: 1 }).waitFor(POLL);
    await page.getByRole('status').filter({ hasText: 'You are offline' }).waitFor(POLL);
    const map = page.getByRole('img', { name: 'Map' });
    await expect.poll(() => map.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), POLL).toBe(120);
    await checkA11y(page, 'page view offline');
    if (process.env.SCREENSHOTS) await page.screenshot({ path: 'docs/screenshots/offline.png', fullPage: false });

    await page.getByRole('link', { name: 'Edit' }).click();
    await page.locator('.cm-content').waitFor(POLL);
    await page.getByRole('textbox', { name: 'Content' }).click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.type('Offline: ');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'no connection' }).waitFor(POLL);
    expect(await page.evaluate(() => localStorage.getItem('kspace:draft:notes/trip'))).toContain('Offline: Packing list.');

    // Someone saves meanwhile: the offline edit must not go silently over it.
    const other = await app.admin.put(PAGE_API, {
      title: 'Trip',
      content: 'Packing list.\n\n![Map](files/map.png)\n\nBring a coat and boots.\n\nThe end.',
      baseVersion: 1,
    });
    expect(other.status).toBe(200);
    await ctx.setOffline(false);
    await page.getByRole('heading', { name: 'This page was changed while you were editing' }).waitFor(POLL);
    expect((await app.admin.get(PAGE_API)).body.version).toBe(2);
    await page.getByRole('button', { name: 'Save merged version' }).click();
    await page.waitForURL((u) => u.pathname === '/app/p/notes/trip' && u.search === '', POLL);
    const saved = (await app.admin.get(PAGE_API)).body;
    expect(saved.version).toBe(3);
    expect(saved.content).toBe('Offline: Packing list.\n\n![Map](files/map.png)\n\nBring a coat and boots.\n\nThe end.');
    await ctx.close();
  });

  it("deletes the person's offline copies at a sign-out made offline, and ends the session when the connection returns", async () => {
    const { ctx, page } = await openKept();
    await ctx.setOffline(true);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((u) => u.pathname === '/app/sign-in', POLL);
    expect(await page.evaluate(async () => (await caches.keys()).filter((n) => n.startsWith('kspace-person-')))).toEqual([]);
    // The app still opens offline (its shell is everyone's), but not the page.
    await page.goto('/app/p/notes/trip');
    await page.getByRole('status').filter({ hasText: 'You are offline' }).waitFor(POLL);
    await page.getByLabel('Password').waitFor(POLL);
    expect(await page.getByRole('heading', { name: 'Trip', level: 1 }).count()).toBe(0);
    // The server did not hear the sign-out: the app sends it when the connection returns.
    expect((await page.request.get('/session')).status()).toBe(200);
    await ctx.setOffline(false);
    await expect.poll(async () => (await page.request.get('/session')).status(), POLL).toBe(401);
    await page.reload();
    await page.getByLabel('Password').waitFor(POLL);
    await ctx.close();
  });
});
