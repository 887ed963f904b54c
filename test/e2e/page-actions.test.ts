// The page view's actions in a real browser (issue 35 item 2): rename with the links of another
// page following the new title, delete → trash → restore, move with the old address redirecting.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { checkA11y, useBrowserFixture } from './support/index.ts';

const POLL = { timeout: 15_000, interval: 100 };
const t = useBrowserFixture({
  // An org admin: deleting a page of a shared space is theirs (docs/security.md).
  user: { name: 'rita', orgAdmin: true },
  spaces: [
    ['kb', 'Knowledge base'],
    ['arch', 'Archive'],
  ],
});

/** Clears the focused text box and types `text` key by key. */
async function retype(page: Page, label: string, text: string): Promise<void> {
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel(label).click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(text);
}

describe('page actions', { timeout: 120_000 }, () => {
  it('renames a page, and the wikilinks of another page follow the new title', async () => {
    await t.app.putPage('kb', 'guides/setup', { title: 'Setup guide', content: 'Install it.' });
    await t.app.putPage('kb', 'index', { title: 'Start', content: 'Read [[Setup guide]] first.' });
    const { page, g } = await t.openGuarded();
    await page.goto('/app/p/kb/guides/setup');
    await page.getByRole('heading', { level: 1, name: 'Setup guide' }).waitFor();
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('dialog', { name: 'Rename page' }).waitFor();
    await checkA11y(page);
    await retype(page, 'Title', 'Installing kspace');
    await page.getByRole('dialog').getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('heading', { level: 1, name: 'Installing kspace' }).waitFor(POLL);
    await page.goto('/app/p/kb/index');
    const link = page.locator('.markdown').getByRole('link', { name: 'Installing kspace' });
    await link.waitFor(POLL);
    await link.click();
    await page.getByRole('heading', { level: 1, name: 'Installing kspace' }).waitFor(POLL);
    expect(new URL(page.url()).pathname).toBe('/app/p/kb/guides/setup');
    g.check();
  });

  it('deletes a page to the trash and restores it from there', async () => {
    await t.app.putPage('kb', 'old-notes', { title: 'Old notes', content: 'Keep me.' });
    const { page, g } = await t.openGuarded();
    await page.goto('/app/p/kb/old-notes');
    await page.getByRole('heading', { level: 1, name: 'Old notes' }).waitFor();
    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete page' });
    await dialog.getByText('goes to the trash').waitFor();
    await checkA11y(page);
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { level: 1, name: 'Trash' }).waitFor(POLL);
    expect(new URL(page.url()).pathname).toBe('/app/s/kb/trash');
    const restore = page.getByRole('button', { name: 'Restore Old notes' });
    await restore.waitFor(POLL);
    await checkA11y(page);
    expect((await t.app.admin.get('/pages/kb/old-notes')).status).toBe(404);
    await restore.click();
    await page.getByRole('heading', { level: 1, name: 'Old notes' }).waitFor(POLL);
    expect((await t.app.admin.get('/pages/kb/old-notes')).status).toBe(200);
    g.check();
  });

  it('moves a page to another space, and its old address leads to the new one', async () => {
    await t.app.putPage('kb', 'drafts/plan', { title: 'Plan', content: 'The plan.' });
    const { page, g } = await t.openGuarded();
    await page.goto('/app/p/kb/drafts/plan');
    await page.getByRole('heading', { level: 1, name: 'Plan' }).waitFor();
    await page.getByRole('button', { name: 'Move' }).click();
    await page.getByRole('dialog', { name: 'Move page' }).waitFor();
    await checkA11y(page);
    await retype(page, 'Space', 'arch');
    await retype(page, 'Path', 'plans/2027');
    await page.getByRole('dialog').getByRole('button', { name: 'Move' }).click();
    await expect.poll(() => new URL(page.url()).pathname, POLL).toBe('/app/p/arch/plans/2027');
    await page.getByRole('heading', { level: 1, name: 'Plan' }).waitFor(POLL);
    // The old address, loaded directly, shows the page and its address becomes the new one.
    await page.goto('/app/p/kb/drafts/plan');
    await expect.poll(() => new URL(page.url()).pathname, POLL).toBe('/app/p/arch/plans/2027');
    await page.getByRole('heading', { level: 1, name: 'Plan' }).waitFor(POLL);
    g.check();
  });
});

describe('task lists', { timeout: 120_000 }, () => {
  it('ticks a task into a new version, re-applies a tick across a concurrent edit, and says when the task is gone', async () => {
    await t.app.putPage('kb', 'todo', { title: 'Todo', content: 'Things:\n\n- [ ] Write the plan\n- [ ] Ship it\n- [ ] Drop me' });
    // page.route() does not see the requests the app's service worker makes for the page: a test
    // that routes them runs without the worker (Playwright's advice; test/e2e/offline.test.ts tests it).
    const { page, g } = await t.openGuarded({ serviceWorkers: 'block' });
    await page.goto('/app/p/kb/todo');
    await page.getByRole('heading', { level: 1, name: 'Todo' }).waitFor();
    const box = (name: string) => page.getByRole('checkbox', { name });
    await box('Write the plan').waitFor();
    await checkA11y(page);
    await box('Write the plan').check();
    await expect.poll(async () => (await t.app.admin.get('/pages/kb/todo')).body.version, POLL).toBe(2);
    expect((await t.app.admin.get('/pages/kb/todo')).body.content).toBe('Things:\n\n- [x] Write the plan\n- [ ] Ship it\n- [ ] Drop me');
    await expect.poll(() => box('Write the plan').isChecked(), POLL).toBe(true);
    await expect.poll(() => box('Ship it').isEnabled(), POLL).toBe(true);

    // Someone else edits the page meanwhile: a line above moves the task down; the tick follows it.
    // (Written just as the tick reads the page, so the view still shows version 2.)
    const v2 = (await t.app.admin.get('/pages/kb/todo')).body;
    let edited = false;
    await page.route(
      (u) => u.pathname === '/pages/kb/todo' && u.search === '',
      async (route) => {
        if (!edited && route.request().method() === 'GET') {
          edited = true;
          expect(
            (await t.app.admin.put('/pages/kb/todo', { title: 'Todo', content: `Intro.\n\n${v2.content}`, baseVersion: 2 })).status,
          ).toBe(200);
        }
        await route.continue();
      },
    );
    await box('Ship it').check();
    await expect.poll(async () => (await t.app.admin.get('/pages/kb/todo')).body.version, POLL).toBe(4);
    expect((await t.app.admin.get('/pages/kb/todo')).body.content).toBe(
      'Intro.\n\nThings:\n\n- [x] Write the plan\n- [x] Ship it\n- [ ] Drop me',
    );

    // The task removed meanwhile (just as the tick reads the page): nothing saved, and the page says so.
    await expect.poll(() => box('Drop me').isEnabled(), POLL).toBe(true);
    let removed = false;
    await page.unrouteAll();
    await page.route(
      (u) => u.pathname === '/pages/kb/todo' && u.search === '',
      async (route) => {
        if (!removed && route.request().method() === 'GET') {
          removed = true;
          const r = await t.app.admin.put('/pages/kb/todo', {
            title: 'Todo',
            content: 'Intro.\n\nThings:\n\n- [x] Write the plan\n- [x] Ship it',
            baseVersion: 4,
          });
          expect(r.status).toBe(200);
        }
        await route.continue();
      },
    );
    await box('Drop me').check();
    await page.getByRole('status').filter({ hasText: 'no longer in it' }).waitFor(POLL);
    expect((await t.app.admin.get('/pages/kb/todo')).body.version).toBe(5);
    g.check();
  });
});

describe('new page from a title', { timeout: 120_000 }, () => {
  it('proposes the path from the title, key by key, in the current folder, and keeps an edited path', async () => {
    const { page, g } = await t.openGuarded();
    await page.goto('/app/new?space=kb&path=guides/');
    await page.getByRole('heading', { level: 1, name: 'New page' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Title' }).getAttribute('aria-required')).toBe('true');
    await page.getByRole('textbox', { name: 'Title' }).click();
    await page.keyboard.type('Meeting Notes: Q3 Über');
    await expect.poll(() => page.getByRole('textbox', { name: 'Path' }).inputValue(), POLL).toBe('guides/meeting-notes-q3-uber');
    await checkA11y(page);
    await page.getByRole('button', { name: 'Create' }).click();
    await expect.poll(() => new URL(page.url()).pathname, POLL).toBe('/app/p/kb/guides/meeting-notes-q3-uber');
    await page.getByRole('heading', { level: 1, name: 'Meeting Notes: Q3 Über' }).waitFor(POLL);

    // Once the path is edited, the title no longer changes it.
    await page.goto('/app/new?space=kb');
    await page.getByRole('textbox', { name: 'Title' }).click();
    await page.keyboard.type('Draft');
    await expect.poll(() => page.getByRole('textbox', { name: 'Path' }).inputValue(), POLL).toBe('draft');
    await page.getByRole('textbox', { name: 'Path' }).click();
    await page.keyboard.type('-1');
    await page.getByRole('textbox', { name: 'Title' }).click();
    await page.keyboard.type(' two');
    expect(await page.getByRole('textbox', { name: 'Path' }).inputValue()).toBe('draft-1');
    g.check();
  });
});
