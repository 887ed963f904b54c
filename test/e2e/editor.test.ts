// The editor: live preview and save; a conflicting save from a second browser context resolved
// without losing text; a draft that survives a reload.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { checkA11y, useBrowserFixture } from './support/index.ts';

// The machine may be busy: wait up to 15 s for what a page shows.
const POLL = { timeout: 15_000, interval: 100 };
const t = useBrowserFixture({ user: { name: 'edith' }, spaces: [['docs', 'Docs']] });

const content = (page: Page) => page.getByRole('textbox', { name: 'Content' });

describe('the editor', { timeout: 90_000 }, () => {
  it('previews while typing and saves a new version', async () => {
    await t.app.putPage('docs', 'guide', { title: 'Guide', content: 'Old text.' });
    const page = await t.open();
    await t.openEditor(page, 'guide');
    await page.getByLabel('Title', { exact: true }).fill('The guide');
    await content(page).fill('# Welcome\n\nSee [the FAQ](faq) and **bold** words.');
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.getByRole('heading', { name: 'Welcome' }).waitFor();
    await expect.poll(() => preview.locator('strong').textContent(), POLL).toBe('bold');
    expect(await preview.getByRole('link', { name: 'the FAQ' }).getAttribute('class')).toContain('broken');
    await checkA11y(page);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { level: 1, name: 'The guide', exact: true }).waitFor();
    const saved = await t.app.admin.get('/pages/docs/guide');
    expect(saved.body).toMatchObject({ title: 'The guide', content: '# Welcome\n\nSee [the FAQ](faq) and **bold** words.', version: 2 });
    const rev = await t.app.admin.get('/pages/docs/guide/revisions/2');
    expect(rev.body.author.name).toBe('edith');
  });

  it('resolves a conflicting save from a second browser context without losing text', async () => {
    await t.app.putPage('docs', 'plan', { title: 'Plan', content: 'line one\nline two\nline three' });
    const mine = await t.open({ allowConsole: [/status of 409/] });
    const theirs = await t.open();
    await t.openEditor(mine, 'plan');
    await t.openEditor(theirs, 'plan');
    // The other person changes the first line and saves first.
    await content(theirs).fill('line one, edited by them\nline two\nline three');
    await theirs.getByRole('button', { name: 'Save' }).click();
    await theirs.getByRole('heading', { level: 1, name: 'Plan', exact: true }).waitFor();
    // I change the last line and save: refused, both versions shown, a merge offered.
    await content(mine).fill('line one\nline two\nline three, edited by me');
    await mine.keyboard.press('Control+s');
    const conflict = mine.getByRole('region', { name: 'This page was changed while you were editing' });
    await conflict.waitFor();
    await expect
      .poll(() => conflict.getByRole('region', { name: 'Your version' }).textContent(), POLL)
      .toContain('line three, edited by me');
    expect(await conflict.getByRole('region', { name: /saved meanwhile/ }).textContent()).toContain('line one, edited by them');
    const merged = conflict.getByLabel('Merged content');
    await expect.poll(() => merged.inputValue(), POLL).toBe('line one, edited by them\nline two\nline three, edited by me');
    await checkA11y(mine);
    await conflict.getByRole('button', { name: 'Save merged version' }).click();
    await mine.getByRole('heading', { level: 1, name: 'Plan', exact: true }).waitFor();
    const page = await t.app.admin.get('/pages/docs/plan');
    expect(page.body.content).toBe('line one, edited by them\nline two\nline three, edited by me');
    expect(page.body.version).toBe(3);
  });

  it('keeps an unsaved draft across a reload and offers it back', async () => {
    await t.app.putPage('docs', 'notes', { title: 'Notes', content: 'saved text' });
    const page = await t.open();
    await t.openEditor(page, 'notes');
    await content(page).fill('saved text\nand a sentence typed but never saved');
    // At once: the draft written 300 ms after typing stops is written when the page is left, too.
    await page.reload();
    await page.locator('.cm-content').waitFor();
    await page.getByRole('button', { name: 'Restore draft' }).click();
    await expect.poll(() => content(page).textContent(), POLL).toContain('and a sentence typed but never saved');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { level: 1, name: 'Notes', exact: true }).waitFor();
    expect((await t.app.admin.get('/pages/docs/notes')).body.content).toBe('saved text\nand a sentence typed but never saved');
  });

  it('shows history: one old revision, a diff of two, and restores a version as a new one', async () => {
    await t.app.putPage('docs', 'story', { title: 'Story', content: 'once\nupon\na time' });
    await t.app.putPage('docs', 'story', { title: 'Story', content: 'once\nupon\nanother time\nthe end' });
    const page = await t.open();
    await page.goto('/app/p/docs/story');
    await page.getByRole('link', { name: 'History' }).click();
    await page.getByRole('link', { name: 'Version 1' }).waitFor();
    await page.getByLabel('Compare from version 1').check();
    await page.getByLabel('Compare to version 2').check();
    await page.getByRole('button', { name: 'Compare versions' }).click();
    const diff = page.getByRole('table', { name: 'Changes from version 1 to 2' });
    await diff.waitFor();
    expect(page.url()).toContain('?diff=1..2');
    expect(await diff.locator('.diff-line.del').allTextContents()).toEqual(['−removeda time']);
    expect(await diff.locator('.diff-line.add').allTextContents()).toEqual(['+addedanother time', '+addedthe end']);
    await checkA11y(page);
    await page.getByRole('link', { name: 'Version 1' }).click();
    await page.getByRole('heading', { level: 1, name: 'Story' }).waitFor();
    expect(page.url()).toContain('?rev=1');
    await expect.poll(() => page.locator('.markdown').textContent(), POLL).toContain('a time');
    await page.getByRole('button', { name: 'Restore this version' }).click();
    await page.getByRole('link', { name: 'Edit' }).waitFor();
    const now = await t.app.admin.get('/pages/docs/story');
    expect(now.body).toMatchObject({ version: 3, content: 'once\nupon\na time' });
  });
});
