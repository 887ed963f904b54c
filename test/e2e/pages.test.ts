// Page tree → page view → backlinks, broken links, and the keyboard shortcuts, in a real browser.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { checkA11y, signIn, useBrowserFixture } from './support/index.ts';

// The machine may be busy: wait up to 15 s for what a page shows.
const POLL = { timeout: 15_000, interval: 100 };
const t = useBrowserFixture({
  user: { name: 'wendy' },
  spaces: [['wiki', 'Team wiki']],
  pages: [
    ['wiki', 'index', { title: 'Start here', content: 'Read the [setup guide](guides/setup) and the [FAQ](faq).' }],
    [
      'wiki',
      'guides/setup',
      {
        title: 'Setup guide',
        content: '# Install\n\nRun `npm ci`.',
        metadata: { owner: 'wendy', due: '2026-12-01', points: 3, tags: ['a', 'b'] },
      },
    ],
    ['wiki', 'guides/faq-old', { title: 'Old FAQ', content: 'See [setup](setup).' }],
  ],
});

describe('reading pages', { timeout: 90_000 }, () => {
  it('signs in from a page address and comes back to it; a wrong password says so', async () => {
    const page = await t.open({ signedIn: false, allowConsole: [/status of 401/] });
    await page.goto('/app/p/wiki/guides/setup');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.waitForURL(/\/app\/sign-in\?/);
    expect(new URL(page.url()).searchParams.get('next')).toBe('/app/p/wiki/guides/setup');
    await page.getByLabel('Name').fill(t.user.name);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong name or password' }).waitFor();
    // Focus is back in the (emptied) Password field, ready for another try, not lost on the page.
    await expect
      .poll(() => page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name), { timeout: 5_000 })
      .toBe('password');
    await checkA11y(page);
    await signIn(page, t.user.name, t.user.password);
    await page.getByRole('heading', { level: 1, name: 'Setup guide' }).waitFor();
    expect(page.url()).toBe(`${t.app.url}/app/p/wiki/guides/setup`);
    expect(await page.getByRole('banner').getByText(t.user.name, { exact: true }).isVisible()).toBe(true);
  });

  it('goes from the page tree to a page and its backlinks', async () => {
    const page = await t.open();
    await page.goto('/app/');
    await page.getByRole('link', { name: 'Team wiki' }).click();
    await expect.poll(() => page.url(), POLL).toContain('/app/s/wiki');
    await page.getByRole('list', { name: 'Pages' }).getByRole('link', { name: 'Setup guide' }).click();
    await page.getByRole('heading', { level: 1, name: 'Setup guide' }).waitFor();
    expect(page.url()).toBe(`${t.app.url}/app/p/wiki/guides/setup`);
    const backlinks = page.getByRole('region', { name: 'Backlinks' });
    await backlinks.getByRole('link', { name: 'Start here' }).waitFor();
    expect(await backlinks.getByRole('link').allTextContents()).toEqual(expect.arrayContaining(['Start here', 'Old FAQ']));
    // The typed metadata panel shows the values.
    const meta = page.getByRole('region', { name: 'Metadata' });
    await expect.poll(() => meta.textContent(), POLL).toContain('wendy');
    expect(await meta.locator('time').getAttribute('datetime')).toBe('2026-12-01');
    await checkA11y(page);
    // A backlink leads to the linking page, whose rendered links stay inside the t.app.
    await backlinks.getByRole('link', { name: 'Start here' }).click();
    await page.getByRole('heading', { level: 1, name: 'Start here' }).waitFor();
    await page.locator('.markdown').getByRole('link', { name: 'setup guide' }).click();
    await page.getByRole('heading', { level: 1, name: 'Setup guide' }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'Start here' }).waitFor();
  });

  it('shows broken links as broken and offers to create the page', async () => {
    const page = await t.open();
    await page.goto('/app/p/wiki/index');
    const faq = page.locator('.markdown').getByRole('link', { name: 'FAQ' });
    await faq.waitFor();
    expect(await faq.getAttribute('class')).toContain('broken');
    await faq.click();
    await page.getByRole('heading', { level: 1, name: 'New page' }).waitFor();
    expect(await page.getByLabel('Path').inputValue()).toBe('faq');
    await checkA11y(page);
  });

  it('answers unknown pages and spaces with a not-found view', async () => {
    const page = await t.open({ allowConsole: [/status of 404/] });
    await page.goto('/app/p/wiki/nope');
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await page.getByRole('link', { name: 'Create this page' }).waitFor();
    await checkA11y(page);
    await page.goto('/app/s/no-such-space');
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
  });

  it('has keyboard shortcuts: / searches, e edits, n creates', async () => {
    const page = await t.open();
    await page.goto('/app/p/wiki/guides/setup');
    await page.getByRole('heading', { level: 1, name: 'Setup guide' }).waitFor();
    await page.keyboard.press('/');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')), POLL).toBe('Search');
    await page.keyboard.press('Escape');
    await page.locator('body').click({ position: { x: 5, y: 300 } });
    await page.keyboard.press('e');
    await page.getByRole('button', { name: 'Save' }).waitFor();
    expect(page.url()).toContain('?edit');
    await page.goto('/app/s/wiki');
    await page.getByRole('heading', { level: 1, name: 'Team wiki' }).waitFor();
    await page.keyboard.press('n');
    await page.getByRole('heading', { level: 1, name: 'New page' }).waitFor();
    expect(await page.getByLabel('Space').inputValue()).toBe('wiki');
  });
});
