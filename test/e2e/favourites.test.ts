// Favourites in a real browser (issue 35 item 8): the page view's Favourite toggle (aria-pressed),
// kept on the server, so it holds across a reload and in a second browser context, and the home
// view's Favourites region lists it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { type AppServer, checkA11y, type Guard, guard, openBrowser, type Session, signedInSession, startAppServer } from './support/index.ts';

const POLL = { timeout: 15_000, interval: 100 };
let app: AppServer;
let browser: Browser;
let session: Session;

beforeAll(async () => {
  app = await startAppServer();
  browser = await openBrowser();
  const user = await app.createUser('fran');
  await app.createSpace('kb', 'Knowledge base');
  await app.putPage('kb', 'guides/setup', { title: 'Setup guide', content: 'Install it.' });
  session = await signedInSession(browser, app.url, user);
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

async function open(): Promise<{ page: Page; g: Guard }> {
  const ctx = await browser.newContext({ baseURL: app.url, storageState: session });
  const page = await ctx.newPage();
  return { page, g: guard(page, app.url) };
}

describe('favourites', { timeout: 120_000 }, () => {
  it('a page marked Favourite stays marked across a reload and a second context, and shows on the home view', async () => {
    const { page, g } = await open();
    await page.goto('/app/p/kb/guides/setup');
    const toggle = page.getByRole('button', { name: 'Favourite' });
    await expect.poll(() => toggle.getAttribute('aria-pressed'), POLL).toBe('false');
    await toggle.click();
    await expect.poll(() => toggle.getAttribute('aria-pressed'), POLL).toBe('true');
    await checkA11y(page);
    await page.reload();
    await expect.poll(() => page.getByRole('button', { name: 'Favourite' }).getAttribute('aria-pressed'), POLL).toBe('true');

    const other = await open();
    await other.page.goto('/app/');
    const region = other.page.getByRole('region', { name: 'Favourites' });
    await region.getByRole('link', { name: 'Setup guide' }).waitFor(POLL);
    await checkA11y(other.page);
    await region.getByRole('link', { name: 'Setup guide' }).click();
    const toggle2 = other.page.getByRole('button', { name: 'Favourite' });
    await expect.poll(() => toggle2.getAttribute('aria-pressed'), POLL).toBe('true');
    // Unmarked there: gone from the first context's home view too.
    await toggle2.click();
    await expect.poll(() => toggle2.getAttribute('aria-pressed'), POLL).toBe('false');
    await page.goto('/app/');
    await page.getByRole('region', { name: 'Favourites' }).getByText('No favourites yet').waitFor(POLL);
    g.check();
    other.g.check();
  });
});
