// Typing never loses a keystroke: about 1,000 keys of mixed text, Enter, Backspace and cursor moves
// from a seeded generator, typed key by key at 0 and 5 ms a key and inserted as IME and dictation do
// (typing-busy.test.ts types at 30 ms a key while a second context keeps loading the editor). The
// editor, the preview and the saved version must each equal the modelled text exactly. Also: undo
// after a restored draft returns to the text before it.
import { describe, expect, it } from 'vitest';
import { editorText, POLL, useTypingFixture } from './support/typing-fixture.ts';

const KEYS = 1000;
const t = useTypingFixture();

describe('typing in the editor', { timeout: 240_000 }, () => {
  it('keeps every key typed with no delay', async () => {
    await t.typeAndCheck('t0', 1, KEYS, { delay: 0 });
  });

  it('keeps every key typed at 5 ms a key', async () => {
    await t.typeAndCheck('t5', 2, KEYS, { delay: 5 });
  });

  it('keeps every piece of text inserted as IME composition and dictation do', async () => {
    await t.typeAndCheck('ime', 4, KEYS, { insertText: true });
  });

  it('undoes a restored draft back to the text before it, and redoes it', async () => {
    await t.app.putPage('docs', 'draft', { title: 'Draft', content: 'saved text' });
    const page = await t.open();
    await t.openEditor(page, 'draft');
    await page.getByRole('textbox', { name: 'Content' }).click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' and a draft', { delay: 5 });
    await expect.poll(() => page.evaluate(() => localStorage.getItem('kspace:draft:docs/draft') ?? ''), POLL).toContain('and a draft');
    await page.reload();
    await page.locator('.cm-content').waitFor();
    expect(await editorText(page)).toBe('saved text');
    // Typed before the restore: one undo step of its own, under the restored text.
    await page.getByRole('textbox', { name: 'Content' }).click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.type('My ');
    await page.getByRole('button', { name: 'Restore draft' }).click();
    await expect.poll(() => editorText(page), POLL).toBe('saved text and a draft');
    await page.getByRole('textbox', { name: 'Content' }).focus();
    await page.keyboard.press('Control+z');
    await expect.poll(() => editorText(page), POLL).toBe('My saved text');
    await page.keyboard.press('Control+z');
    await expect.poll(() => editorText(page), POLL).toBe('saved text');
    await page.keyboard.press('Control+y');
    await page.keyboard.press('Control+y');
    await expect.poll(() => editorText(page), POLL).toBe('saved text and a draft');
    await page.keyboard.press('Control+z');
    // The view's state follows undo: what is saved is what the editor shows.
    await page.keyboard.press('Control+End');
    await page.keyboard.type('!');
    await expect.poll(() => editorText(page), POLL).toBe('My saved text!');
    await page.keyboard.press('Control+s');
    await page.getByRole('heading', { level: 1, name: 'Draft', exact: true }).waitFor({ timeout: 20_000 });
    expect((await t.app.admin.get('/pages/docs/draft')).body.content).toBe('My saved text!');
  });
});
