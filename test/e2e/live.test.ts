// Live updates in the web app (issue 35 item 10, issue 38 "live clients"; docs/web.md, "Live
// updates"): two browser contexts, two people. A page view follows another person's save in
// place (scroll kept), a move and a delete; the Pages sidebar shows a page created elsewhere and
// loses a deleted one, and the home view lists the edit under Recently edited; an open editor says
// "Updated by <name>", keeps what is being typed, and its save merges through the conflict panel.
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { checkA11y, editorText, type Guard, useBrowserFixture } from './support/index.ts';

// The machine may be busy: wait up to 15 s for what a page shows (the 2 s promise is measured apart).
const POLL = { timeout: 15_000, interval: 50 };
const t = useBrowserFixture({ user: { name: 'lena' }, people: [{ name: 'omar' }], spaces: [['team', 'Team']] });

type Tab = { ctx: BrowserContext; page: Page; g: Guard };

/** A context of `who` (a name) with `url` open and its change stream answered (so no later change is missed). */
async function openLive(who: string, url: string, viewport = { width: 1280, height: 800 }): Promise<Tab> {
  const { page, g } = await t.openGuarded({ as: who, viewport });
  const ctx = page.context();
  const streaming = page.waitForResponse((r) => new URL(r.url()).pathname === '/changes/stream' && r.status() === 200);
  await page.goto(url);
  await streaming;
  return { ctx, page, g };
}

/** A write by the person signed in to `ctx`, through the API with that session (cookie, CSRF token, Origin). */
async function writeAs(ctx: BrowserContext, method: 'PUT' | 'POST' | 'DELETE', path: string, data?: unknown): Promise<void> {
  const s = await ctx.request.get('/session');
  const { csrfToken } = (await s.json()) as { csrfToken: string };
  const r = await ctx.request.fetch(path, { method, data, headers: { 'x-csrf-token': csrfToken, origin: t.app.url } });
  expect(r.status(), await r.text()).toBeLessThan(300);
}

describe('live updates', { timeout: 120_000 }, () => {
  it("updates a page view within 2 s of another person's save, keeping the scroll position; follows a move; says a delete", async () => {
    const paragraphs = Array.from({ length: 60 }, (_, i) => `Paragraph ${i + 1}.`);
    await t.app.putPage('team', 'notes', { title: 'Notes', content: paragraphs.join('\n\n') });
    const a = await openLive('lena', '/app/p/team/notes');
    await a.page.getByText('Paragraph 60.').waitFor(POLL);
    await a.page.evaluate(() => {
      window.scrollTo(0, 600);
      (window as unknown as { marker: number }).marker = 1;
    });
    const other = await t.browser.newContext({ baseURL: t.app.url, storageState: t.sessions.omar });

    await writeAs(other, 'PUT', '/pages/team/notes', { content: ['Paragraph 1, revised by Omar.', ...paragraphs.slice(1)].join('\n\n') });
    const saved = Date.now();
    await a.page.getByText('Paragraph 1, revised by Omar.').waitFor(POLL);
    const ms = Date.now() - saved;
    console.log(`live: a save shown in the other person's page view after ${ms} ms`);
    // Asked: within 2 s. 1 s more for a loaded two-core CI; typically 100–300 ms.
    expect(ms).toBeLessThan(3000);
    expect(await a.page.getByText(/version 2/).count()).toBeGreaterThan(0);
    // Replaced in place: the same document (no reload), scrolled where it was.
    expect(await a.page.evaluate(() => [(window as unknown as { marker?: number }).marker, Math.round(window.scrollY)])).toEqual([1, 600]);
    await checkA11y(a.page);

    await writeAs(other, 'POST', '/spaces/team/moves', { from: 'notes', to: 'archive/notes' });
    await a.page.waitForURL((u) => u.pathname === '/app/p/team/archive/notes', POLL);
    await a.page.getByText('team/archive/notes', { exact: true }).waitFor(POLL); // the page view of the new address
    // Deleting in a shared space is for org admins: the admin does it.
    expect((await t.app.admin.req('DELETE', '/pages/team/archive/notes')).status).toBe(204);
    await a.page.getByRole('status').filter({ hasText: 'This page has just been deleted' }).waitFor(POLL);
    a.g.check();
  });

  it('shows a page another person creates in the Pages sidebar, drops it when deleted, and lists the edit on the home view', async () => {
    await t.app.putPage('team', 'welcome', { title: 'Welcome', content: 'Hello.' });
    const a = await openLive('lena', '/app/p/team/welcome');
    const tree = a.page.getByRole('navigation', { name: 'Pages' }).getByRole('tree');
    await tree.getByRole('treeitem', { name: 'Welcome' }).waitFor(POLL);
    const other = await t.browser.newContext({ baseURL: t.app.url, storageState: t.sessions.omar });

    await writeAs(other, 'PUT', '/pages/team/zeta-plan', { title: 'Zeta plan', content: 'New.' });
    await tree.getByRole('treeitem', { name: 'Zeta plan' }).waitFor(POLL);
    await checkA11y(a.page);
    expect((await t.app.admin.req('DELETE', '/pages/team/zeta-plan')).status).toBe(204);
    await expect.poll(() => tree.getByRole('treeitem', { name: 'Zeta plan' }).count(), POLL).toBe(0);

    // Home: the page edited last comes first under Recently edited (not the one created last).
    await writeAs(other, 'PUT', '/pages/team/welcome', { content: 'Hello again.' });
    await t.app.putPage('team', 'later', { title: 'Created later', content: '' });
    await writeAs(other, 'PUT', '/pages/team/welcome', { content: 'Hello, once more.' });
    await a.page.goto('/app/');
    const recent = a.page.getByRole('region', { name: 'Recently edited' });
    await recent.getByRole('link').first().waitFor(POLL);
    expect(await recent.getByRole('link').first().textContent()).toBe('Welcome');
    a.g.check();
  });

  it('says "Updated by <name>" in an open editor, keeps the typed text, and merges it on save', async () => {
    await t.app.putPage('team', 'plan', { title: 'Plan', content: 'First line.\nSecond line.' });
    const a = await openLive('lena', '/app/p/team/plan?edit');
    await a.page.locator('.cm-content').waitFor(POLL);
    await a.page.getByRole('textbox', { name: 'Content' }).click();
    await a.page.keyboard.press('Control+End');
    await a.page.keyboard.type('\nLena adds this.', { delay: 5 });

    // Omar edits the first line in his own editor and saves.
    const b = await openLive('omar', '/app/p/team/plan?edit');
    await b.page.locator('.cm-content').waitFor(POLL);
    await b.page.getByRole('textbox', { name: 'Content' }).click();
    await b.page.keyboard.press('Control+Home');
    await b.page.keyboard.type('Omar: ');
    await b.page.keyboard.press('Control+s');
    await b.page.waitForURL((u) => u.pathname === '/app/p/team/plan' && u.search === '', POLL);

    const status = a.page.getByRole('status').filter({ hasText: 'Updated by omar' });
    await status.waitFor(POLL);
    expect(await editorText(a.page)).toBe('First line.\nSecond line.\nLena adds this.');
    await checkA11y(a.page);
    await a.page.keyboard.type(' And this.', { delay: 5 });
    await expect.poll(() => editorText(a.page), POLL).toBe('First line.\nSecond line.\nLena adds this. And this.');

    await a.page.getByRole('button', { name: 'Save', exact: true }).click();
    await a.page.getByRole('heading', { name: 'This page was changed while you were editing' }).waitFor(POLL);
    await a.page.getByText('Both sets of changes were combined.').waitFor(POLL);
    await a.page.getByRole('button', { name: 'Save merged version' }).click();
    await a.page.waitForURL((u) => u.pathname === '/app/p/team/plan' && u.search === '', POLL);
    const saved = await t.app.admin.get('/pages/team/plan');
    expect(saved.body).toMatchObject({ content: 'Omar: First line.\nSecond line.\nLena adds this. And this.', version: 3 });

    // Omar moves the page while Lena edits it again: her save goes to where the page now is.
    await a.page.goto('/app/p/team/plan?edit');
    await a.page.locator('.cm-content').waitFor(POLL);
    await a.page.getByRole('textbox', { name: 'Content' }).click();
    await a.page.keyboard.press('Control+End');
    await a.page.keyboard.type(' Moved too.', { delay: 5 });
    await writeAs(b.ctx, 'POST', '/spaces/team/moves', { from: 'plan', to: 'archive/plan' });
    await a.page.getByRole('status').filter({ hasText: 'moved to team/archive/plan' }).waitFor(POLL);
    await a.page.keyboard.press('Control+s');
    await a.page.waitForURL((u) => u.pathname === '/app/p/team/archive/plan' && u.search === '', POLL);
    expect((await t.app.admin.get('/pages/team/archive/plan')).body).toMatchObject({
      content: 'Omar: First line.\nSecond line.\nLena adds this. And this. Moved too.',
      version: 4,
    });
    expect((await t.app.admin.get('/spaces/team/pages?prefix=plan')).body.pages).toEqual([]);
    a.g.check();
    b.g.check();
  });
});
