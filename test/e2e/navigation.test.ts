// The Pages sidebar and the quick switcher in a real browser (issue 35 items 3 and 4): the tree by
// keyboard alone, loaded a folder at a time; the switcher by prefix and by keyboard alone, typed
// key by key with no delay; its commands; Ctrl-K inside the editor's text left to the editor.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { checkA11y, useBrowserFixture } from './support/index.ts';

const POLL = { timeout: 15_000, interval: 100 };
const t = useBrowserFixture({
  user: { name: 'nora' },
  spaces: [['kb', 'Knowledge base']],
  pages: (
    [
      ['index', 'Start here'],
      ['guides', 'Guides'],
      ['guides/setup', 'Setup guide'],
      ['guides/deploy/docker', 'Docker'],
      ['notes/2026/jan', 'January notes'],
      ['notes/2026/feb', 'February notes'],
      ['zebra', 'Zebra crossing'],
    ] as const
  ).map(([path, title]) => ['kb', path, { title, content: `About ${title.toLowerCase()}.` }]),
});

async function open(viewport = { width: 1280, height: 800 }): Promise<{ page: Page; levels: string[] }> {
  const page = await t.open({ viewport });
  // Each request for a level of the tree, by the folder it asks for ('' for the top).
  const levels: string[] = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname === '/spaces/kb/pages') levels.push(`${u.searchParams.get('depth')}:${u.searchParams.get('prefix') ?? ''}`);
  });
  return { page, levels };
}

const focusedName = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const el = document.activeElement;
    return `${el?.getAttribute('role')} ${el?.querySelector('.tree-label')?.textContent ?? el?.textContent ?? ''}`;
  });

/** Presses Tab until focus is on a row of the tree (keyboard only), at most 30 times. */
async function tabIntoTree(page: Page): Promise<void> {
  for (let i = 0; i < 30; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(() => document.activeElement?.getAttribute('role') === 'treeitem')) return;
  }
  throw new Error('Tab never reached the tree');
}

describe('the Pages sidebar', { timeout: 120_000 }, () => {
  it('shows the current page in its open folders, loads a folder when opened, and is driven by keyboard alone', async () => {
    const { page, levels } = await open();
    await page.goto('/app/p/kb/guides/setup');
    const nav = page.getByRole('navigation', { name: 'Pages' });
    const tree = nav.getByRole('tree');
    const current = tree.getByRole('treeitem', { name: 'Setup guide' });
    await current.waitFor(POLL);
    expect(await current.getAttribute('aria-current')).toBe('page');
    expect(await tree.getByRole('treeitem', { name: 'Guides' }).getAttribute('aria-expanded')).toBe('true');
    expect(await tree.getByRole('treeitem', { name: 'notes' }).getAttribute('aria-expanded')).toBe('false');
    // Only the current page's levels were asked for, one folder each; notes/ is not loaded.
    expect([...levels].sort()).toEqual(['1:', '1:guides/']);
    expect(await page.getByText('January notes').count()).toBe(0);
    await checkA11y(page);

    await tabIntoTree(page);
    await expect.poll(() => focusedName(page), POLL).toBe('treeitem Setup guide'); // the current page is the tree's tab stop
    await page.keyboard.press('Home');
    await expect.poll(() => focusedName(page), POLL).toBe('treeitem Guides');
    await page.keyboard.press('ArrowDown'); // Guides' own level: deploy (a folder), then Setup guide
    await expect.poll(() => focusedName(page), POLL).toBe('treeitem deploy');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => focusedName(page), POLL).toBe('treeitem notes');
    await page.keyboard.press('ArrowRight'); // opens notes: its level is asked for only now
    await tree.getByRole('treeitem', { name: '2026' }).waitFor(POLL);
    expect(levels.filter((l) => l === '1:notes/')).toHaveLength(1);
    expect(levels).not.toContain('1:notes/2026/');
    await page.keyboard.press('ArrowRight'); // into notes: 2026
    await expect.poll(() => focusedName(page), POLL).toBe('treeitem 2026');
    await page.keyboard.press('ArrowRight'); // opens 2026
    await tree.getByRole('treeitem', { name: 'February notes' }).waitFor(POLL);
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => focusedName(page), POLL).toBe('treeitem February notes');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => focusedName(page), POLL).toBe('treeitem January notes');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'January notes' }).waitFor(POLL);
    expect(new URL(page.url()).pathname).toBe('/app/p/kb/notes/2026/jan');
    await expect.poll(() => tree.getByRole('treeitem', { name: 'January notes' }).getAttribute('aria-current'), POLL).toBe('page');
    await expect.poll(() => focusedName(page), POLL).toBe('treeitem January notes'); // browsing the tree goes on from there
    await page.keyboard.press('ArrowLeft'); // to the parent
    await expect.poll(() => focusedName(page), POLL).toBe('treeitem 2026');
    await page.keyboard.press('ArrowLeft'); // closes it
    await expect.poll(() => tree.getByRole('treeitem', { name: 'January notes' }).count(), POLL).toBe(0);
    await page.keyboard.press('End');
    await expect.poll(() => focusedName(page), POLL).toBe('treeitem Zebra crossing');
    await page.keyboard.press('g'); // a letter jumps to the next row starting with it
    await expect.poll(() => focusedName(page), POLL).toBe('treeitem Guides');
    await checkA11y(page);
  });

  it('is beside the editor too, and folds behind a Pages button on a phone', async () => {
    const { page } = await open({ width: 390, height: 844 });
    await page.goto('/app/p/kb/guides/deploy/docker?edit');
    await page.getByLabel('Title').waitFor(POLL);
    const nav = page.getByRole('navigation', { name: 'Pages' });
    const button = nav.getByRole('button', { name: 'Pages' });
    expect(await button.getAttribute('aria-expanded')).toBe('false');
    expect(await nav.getByRole('tree').isVisible()).toBe(false);
    await button.press('Enter');
    const current = nav.getByRole('treeitem', { name: 'Docker' });
    await current.waitFor({ state: 'visible', ...POLL });
    expect(await current.getAttribute('aria-current')).toBe('page');
    await checkA11y(page);
    await nav.getByRole('treeitem', { name: 'Start here' }).click();
    await page.getByRole('heading', { level: 1, name: 'Start here' }).waitFor(POLL);
    expect(await nav.getByRole('tree').isVisible()).toBe(false); // folded again once a page is chosen
  });
});

describe('the quick switcher', { timeout: 120_000 }, () => {
  it('finds a page by word prefixes typed key by key, opens it with Enter, and lists recent pages first', async () => {
    const { page } = await open();
    await page.goto('/app/p/kb/index');
    await page.getByRole('heading', { level: 1, name: 'Start here' }).waitFor(POLL);
    await page.keyboard.press('ControlOrMeta+k');
    const dialog = page.getByRole('dialog', { name: 'Go to page' });
    const box = dialog.getByRole('combobox');
    await box.waitFor(POLL);
    expect(await box.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type('setu gui'); // no delay between keys
    expect(await box.inputValue()).toBe('setu gui');
    const option = dialog.getByRole('option', { name: /^Setup guide/ });
    await option.waitFor(POLL);
    await expect.poll(() => option.getAttribute('aria-selected'), POLL).toBe('true');
    expect(await box.getAttribute('aria-activedescendant')).toBe(await option.getAttribute('id'));
    await checkA11y(page);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Setup guide' }).waitFor(POLL);
    expect(await dialog.count()).toBe(0);

    // Empty box: the pages viewed last, newest first, the one on screen left out; Down then Enter opens the second.
    await page.keyboard.press('ControlOrMeta+k');
    await page.keyboard.type('zebra');
    await dialog.getByRole('option', { name: /^Zebra crossing/ }).waitFor(POLL);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Zebra crossing' }).waitFor(POLL);
    await page.keyboard.press('ControlOrMeta+k');
    const recent = dialog.getByRole('group', { name: 'Recently viewed' }).getByRole('option');
    await expect.poll(() => recent.allTextContents(), POLL).toEqual(['Setup guideguides/setup', 'Start hereindex']);
    expect(await box.getAttribute('aria-activedescendant')).toBe(await recent.nth(0).getAttribute('id'));
    await page.keyboard.press('ArrowDown');
    expect(await box.getAttribute('aria-activedescendant')).toBe(await recent.nth(1).getAttribute('id'));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Start here' }).waitFor(POLL);
  });

  it('keeps every key typed at full speed and opens what the last key asked for', async () => {
    const { page } = await open();
    await page.goto('/app/p/kb/index');
    await page.getByRole('heading', { level: 1, name: 'Start here' }).waitFor(POLL);
    // The keys right after Ctrl-K land in the box (none on the page, where `n` and `e` are shortcuts);
    // Enter right after the last key opens the answer for "february no", not an earlier one.
    await page.keyboard.press('ControlOrMeta+k');
    await page.keyboard.type('february no');
    const box = page.getByRole('dialog', { name: 'Go to page' }).getByRole('combobox');
    expect(await box.inputValue()).toBe('february no');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'February notes' }).waitFor(POLL);
    expect(new URL(page.url()).pathname).toBe('/app/p/kb/notes/2026/feb');
  });

  it('closes on Escape with focus back where it was, runs its commands, and leaves Ctrl-K in the editor text to the editor', async () => {
    const { page } = await open();
    await page.goto('/app/p/kb/index');
    await page.getByRole('heading', { level: 1, name: 'Start here' }).waitFor(POLL);
    await page.keyboard.press('/'); // the search box
    await page.keyboard.press('ControlOrMeta+k');
    const dialog = page.getByRole('dialog', { name: 'Go to page' });
    await dialog.getByRole('combobox').waitFor(POLL);
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count(), POLL).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Search');

    // Toggle theme: system → light, remembered across a reload.
    await page.keyboard.press('ControlOrMeta+k');
    await page.keyboard.type('theme');
    await dialog.getByRole('option', { name: /^Toggle theme/ }).waitFor(POLL);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme), POLL).toBe('light');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Start here' }).waitFor(POLL);
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');

    // Search everywhere for what was typed.
    await page.keyboard.press('ControlOrMeta+k');
    await page.keyboard.type('crossing');
    await dialog.getByRole('option', { name: /^Zebra crossing/ }).waitFor(POLL);
    const everywhere = dialog.getByRole('option', { name: 'Search everywhere for “crossing”' });
    await page.keyboard.press('ArrowDown'); // past the page found, Zebra crossing
    expect(await everywhere.getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.pathname === '/app/search' && u.searchParams.get('q') === 'crossing', POLL);

    // In the editor's text Ctrl-K is the editor's; in the Title field it opens the switcher.
    await page.goto('/app/p/kb/index?edit');
    const content = page.locator('.cm-content');
    await content.click(POLL);
    await page.keyboard.press('ControlOrMeta+k');
    await page.keyboard.type('x');
    expect(await dialog.count()).toBe(0);
    await page.getByLabel('Title').focus();
    await page.keyboard.press('ControlOrMeta+k');
    await dialog.getByRole('combobox').waitFor(POLL);
  });
});
