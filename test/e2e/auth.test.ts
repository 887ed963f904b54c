import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  binaryUnavailable, checkA11y, guard, openBrowser, signIn, startAppServer, startBinaryServer, type AppServer,
} from './support/index.ts';

// Sign-in and sign-out through the app, as a person does it, against kspace from source and
// (when it is built and current) the single executable.

let browser: Browser;
let context: BrowserContext | null = null;
beforeAll(async () => { browser = await openBrowser(); });
afterAll(async () => { await browser?.close(); });
afterEach(async () => {
  await context?.close();
  context = null;
});

async function newPage(): Promise<Page> {
  context = await browser.newContext();
  return context.newPage();
}

function suite(label: string, start: () => Promise<AppServer>, skip: string | null): void {
  describe.skipIf(skip !== null)(`${label}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    let app: AppServer;
    beforeAll(async () => {
      app = await start();
      await app.createUser('ann', 'ann password 1');
      await app.createSpace('team', 'Team');
      await app.putPage('team', 'welcome', { title: 'Welcome aboard', content: '# Hello\n\nSee [the plan](plan).' });
      await app.putPage('team', 'plan', { title: 'The plan', content: 'Links back to [welcome](welcome).' });
    });
    afterAll(async () => { await app?.close(); });

    it('signs in with Name and Password, sets an HttpOnly SameSite=Lax cookie, and signs out', async () => {
      const page = await newPage();
      guard(page, app.url);
      await page.goto(`${app.url}/app/`);
      await page.waitForURL((u) => u.pathname === '/app/sign-in');
      await checkA11y(page, 'sign-in');
      await signIn(page, 'ann', 'ann password 1');
      await page.waitForURL((u) => u.pathname === '/app/');
      const cookies = await context!.cookies(app.url);
      const session = cookies.find((c) => c.name === 'kspace_session');
      expect(session).toBeDefined();
      expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', secure: false });
      expect(await page.evaluate(() => document.cookie)).not.toContain('kspace_session');
      await checkA11y(page, 'home');

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      expect((await context!.cookies(app.url)).find((c) => c.name === 'kspace_session')).toBeUndefined();
      // The old session is over on the server too: reloading the app lands on sign-in again.
      await page.goto(`${app.url}/app/`);
      await page.waitForURL((u) => u.pathname === '/app/sign-in');
    });

    it('shows an error for a wrong password and stays signed out', async () => {
      const page = await newPage();
      guard(page, app.url);
      await page.goto(`${app.url}/app/sign-in`);
      await page.getByLabel('Name').fill('ann');
      await page.getByLabel('Password').fill('not the password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').filter({ hasText: /wrong name or password/i }).waitFor();
      expect((await context!.cookies(app.url)).find((c) => c.name === 'kspace_session')).toBeUndefined();
      await checkA11y(page, 'sign-in with an error');
    });

    it('goes back to the address that sent the person to sign in, and shows the page with its backlinks', async () => {
      const page = await newPage();
      guard(page, app.url);
      await page.goto(`${app.url}/app/p/team/plan`);
      await page.waitForURL((u) => u.pathname === '/app/sign-in');
      await signIn(page, 'ann', 'ann password 1');
      await page.waitForURL((u) => u.pathname === '/app/p/team/plan');
      await page.getByRole('heading', { name: 'The plan', level: 1 }).waitFor();
      const backlinks = page.getByRole('region', { name: 'Backlinks' });
      await backlinks.getByRole('link', { name: 'Welcome aboard' }).waitFor();
      await checkA11y(page, 'page view');
    });
  });
}

suite('from source', () => startAppServer(), null);
suite('dist/kspace', () => startBinaryServer(), binaryUnavailable());
