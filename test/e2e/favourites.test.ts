// Favourites in a real browser (issue 35 item 8): the page view's Favourite toggle (aria-pressed),
// kept on the server, so it holds across a reload and in a second browser context, and the home
// view's Favourites region lists it. Also the smaller things of item 9 on the same views: one top
// heading when the text starts with `# Its title`, the space's Export, the editor's heading.
import { describe, expect, it } from 'vitest';
import { checkA11y, useBrowserFixture } from './support/index.ts';

const POLL = { timeout: 15_000, interval: 100 };
const t = useBrowserFixture({
  user: { name: 'fran' },
  spaces: [['kb', 'Knowledge base']],
  pages: [['kb', 'guides/setup', { title: 'Setup guide', content: 'Install it.' }]],
});

describe('favourites', { timeout: 120_000 }, () => {
  it('a page marked Favourite stays marked across a reload and a second context, and shows on the home view', async () => {
    const { page, g } = await t.openGuarded();
    await page.goto('/app/p/kb/guides/setup');
    const toggle = page.getByRole('button', { name: 'Favourite' });
    await expect.poll(() => toggle.getAttribute('aria-pressed'), POLL).toBe('false');
    await toggle.click();
    await expect.poll(() => toggle.getAttribute('aria-pressed'), POLL).toBe('true');
    await checkA11y(page);
    await page.reload();
    await expect.poll(() => page.getByRole('button', { name: 'Favourite' }).getAttribute('aria-pressed'), POLL).toBe('true');

    const other = await t.openGuarded();
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

  it('shows one top heading when the text starts with the title, and the editor has its own', async () => {
    await t.app.putPage('kb', 'intro', { title: 'Introduction', content: '# Introduction\n\nWelcome.\n\n# Next steps\n' });
    const { page, g } = await t.openGuarded();
    await page.goto('/app/p/kb/intro');
    await page.getByText('Welcome.').waitFor(POLL);
    expect(await page.getByRole('heading', { level: 1 }).allTextContents()).toEqual(['Introduction', 'Next steps']);
    await page.goto('/app/p/kb/intro?edit');
    await page.locator('.cm-content').waitFor(POLL);
    // The view's own top heading comes first (the Preview's headings are the text's).
    expect((await page.getByRole('heading', { level: 1 }).allTextContents())[0]).toBe('Edit Introduction');
    g.check();
  });

  it('exports a space as a Markdown zip from its view', async () => {
    const { page, g } = await t.openGuarded();
    await page.goto('/app/s/kb');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export' }).click()]);
    expect(download.suggestedFilename()).toMatch(/\.zip$/);
    const file = await download.path();
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(file).subarray(0, 2).toString()).toBe('PK');
    g.check();
  });

  it('lets a keyboard reach a code block wider than a phone screen', async () => {
    await t.app.putPage('kb', 'wide', { title: 'Wide', content: `Some code:\n\n\`\`\`\n${'x = 1; '.repeat(60)}\n\`\`\`\n` });
    const { page, g } = await t.openGuarded({ viewport: { width: 375, height: 740 } });
    await page.goto('/app/p/kb/wide');
    const pre = page.locator('.markdown pre');
    await pre.waitFor(POLL);
    expect(await pre.evaluate((e) => e.scrollWidth > e.clientWidth)).toBe(true);
    await checkA11y(page);
    expect(await pre.getAttribute('tabindex')).toBe('0');
    g.check();
  });
});
