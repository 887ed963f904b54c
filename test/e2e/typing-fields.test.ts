// Every text field the app keeps in state keeps every key typed fast: the editor's Title, a record
// field and a free metadata value, New Page's Path and Title, the Search box and a metadata
// filter's value. Keys come from the seeded typist (text, Backspace, arrows, Ctrl-Home/End) with
// no delay between them.
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { recordType, useBrowserFixture } from './support/index.ts';
import { play, script } from './support/typist.ts';

const POLL = { timeout: 20_000, interval: 100 };
const KEYS = 250;
const t = useBrowserFixture({
  user: { name: 'fay' },
  spaces: [['docs', 'Docs']],
  pages: [
    recordType('docs', 'note', 'Note', [
      { key: 'owner', type: 'string', label: 'Owner' },
      { key: 'summary', type: 'text', label: 'Summary' },
    ]),
  ],
});

/** Types a seeded stream of about `keys` keys at the end of `field`; returns the text it must hold. */
async function typeInto(page: Page, field: Locator, seed: number, keys = KEYS): Promise<string> {
  const start = await field.inputValue();
  await field.click();
  await page.keyboard.press('End');
  const { actions, expected } = script(seed, keys, start, { oneLine: true });
  await play(page, actions, { delay: 0 });
  await expect.poll(() => field.inputValue(), POLL).toBe(expected);
  return expected;
}

describe('text fields typed fast', { timeout: 180_000 }, () => {
  it('keep every key in the editor: Title, a record field, a metadata value', async () => {
    await t.app.putPage('docs', 'notes/one', { title: 'One', content: 'Body.', template: 'note', metadata: { owner: 'x', extra: 'y' } });
    const page = await t.open();
    await t.openEditor(page, 'notes/one');
    const title = await typeInto(page, page.getByLabel('Title', { exact: true }), 11);
    const owner = await typeInto(page, page.getByLabel('Owner', { exact: true }), 12);
    const summary = await typeInto(page, page.getByLabel('Summary', { exact: true }), 13);
    const extra = await typeInto(page, page.getByLabel('Value of extra', { exact: true }), 14);
    await page.keyboard.press('Control+s');
    await page.getByRole('link', { name: 'Edit' }).waitFor({ timeout: 20_000 });
    const saved = (await t.app.admin.get('/pages/docs/notes/one')).body;
    expect(saved.title).toBe(title);
    expect(saved.metadata).toMatchObject({ owner, summary, extra });
  });

  it('Ctrl-S right after a key saves that key (Title, a record field, a metadata value)', async () => {
    const start = { title: 'Two', content: 'Body.', template: 'note', metadata: { owner: 'ab', extra: 'cd' } };
    const page = await t.open();
    for (const [label, want] of [
      ['Title', { title: 'TwXo' }],
      ['Owner', { owner: 'aXb' }],
      ['Value of extra', { extra: 'cXd' }],
    ] as const) {
      await t.app.putPage('docs', 'notes/two', start);
      await t.openEditor(page, 'notes/two');
      await page.getByLabel(label, { exact: true }).click();
      await page.keyboard.press('End');
      await page.keyboard.press('ArrowLeft');
      // The key and the save with nothing between them: no wait for a paint.
      await page.keyboard.press('X');
      await page.keyboard.press('Control+s');
      await page.getByRole('link', { name: 'Edit' }).waitFor({ timeout: 20_000 });
      const saved = (await t.app.admin.get('/pages/docs/notes/two')).body;
      expect({ title: saved.title, ...saved.metadata }).toMatchObject(want);
    }
  });

  it("keep every key in New Page's Path and Title, the Search box and a filter value", async () => {
    const page = await t.open();
    await page.goto('/app/new?space=docs');
    const path = page.getByLabel('Path', { exact: true });
    await path.click();
    // A path's own alphabet, typed and corrected fast.
    const want = 'fast/typed-page-0123456789-abcdefghij-klmnopqrst';
    await page.keyboard.type(`${want}xyz`);
    for (let i = 0; i < 3; i++) await page.keyboard.press('Backspace');
    await expect.poll(() => path.inputValue(), POLL).toBe(want);
    const title = await typeInto(page, page.getByLabel('Title', { exact: true }), 21);
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('link', { name: 'Edit' }).waitFor({ timeout: 20_000 });
    expect((await t.app.admin.get(`/pages/docs/${want}`)).body.title).toBe(title);

    const search = page.getByRole('searchbox', { name: 'Search' });
    const q = await typeInto(page, search, 22, 150);
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.pathname === '/app/search');
    expect(new URL(page.url()).searchParams.get('q')).toBe(q.trim());
    // The metadata query builder's rows.
    await page.getByRole('button', { name: 'Add filter' }).click();
    await typeInto(page, page.getByLabel('Filter 1 value', { exact: true }), 23, 150);
  });
});
