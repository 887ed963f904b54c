// Typing never loses a keystroke: about 1,000 keys of mixed text, Enter, Backspace and cursor moves
// from a seeded generator, typed key by key at 0, 5 and 30 ms a key (the last while a second
// browser context keeps loading the same editor) and inserted as IME and dictation do. The editor,
// the preview and the saved version must each equal the modelled text exactly. Also: undo after
// a restored draft returns to the text before it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type AppServer, guard, openBrowser, type Session, signedInSession, startAppServer } from './support/index.ts';
import { play, script, type Mode } from './support/typist.ts';

// The machine may be busy: wait up to 20 s for what a page shows.
const POLL = { timeout: 20_000, interval: 100 };
const KEYS = 1000;
// At 30 ms a key (and a loaded machine's round trip on top), 600 keys already take a minute.
const KEYS_SLOW = 600;
let app: AppServer;
let browser: Browser;
let session: Session;

beforeAll(async () => {
  app = await startAppServer();
  browser = await openBrowser();
  const user = await app.createUser('tara');
  await app.createSpace('docs', 'Docs');
  session = await signedInSession(browser, app.url, user);
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

async function open(): Promise<Page> {
  // Tall enough that CodeMirror renders every line of the typed text (it draws only what is near the screen).
  const ctx = await browser.newContext({ baseURL: app.url, storageState: session, viewport: { width: 1400, height: 2400 } });
  const page = await ctx.newPage();
  guard(page, app.url);
  return page;
}

async function openEditor(page: Page, path: string): Promise<void> {
  await page.goto(`/app/p/docs/${path}?edit`);
  await page.locator('.cm-content').waitFor(); // CodeMirror's chunk has loaded
}

/** The editor's text as drawn: its lines, in order. */
const editorText = (page: Page): Promise<string> =>
  page.locator('.cm-content .cm-line').evaluateAll((lines) => lines.map((l) => l.textContent ?? '').join('\n'));

/** The preview's HTML next to the server's rendering of `content`, both normalised by the browser's parser. */
async function previewMatches(page: Page, content: string, path: string): Promise<{ shown: string; want: string }> {
  const r = await app.admin.post('/render', { space: 'docs', path, content });
  expect(r.status).toBe(200);
  return page.evaluate((html) => {
    const t = document.createElement('template');
    t.innerHTML = html;
    const shown = document.querySelector('.preview .markdown')?.innerHTML ?? '';
    return { shown, want: t.innerHTML };
  }, (r.body as { html: string }).html);
}

async function typeAndCheck(path: string, seed: number, keys: number, mode: Mode, alongside?: (stop: () => boolean) => Promise<void>): Promise<void> {
  const start = 'Start.';
  await app.putPage('docs', path, { title: 'Typing', content: start });
  const page = await open();
  await openEditor(page, path);
  await page.getByRole('textbox', { name: 'Content' }).click();
  await page.keyboard.press('Control+End');
  const { actions, expected, keys: typed } = script(seed, keys, start);
  expect(typed).toBeGreaterThanOrEqual(keys);
  let done = false;
  const other = alongside?.(() => done);
  try {
    await play(page, actions, mode);
  } finally {
    done = true;
    await other;
  }
  await expect.poll(() => editorText(page), POLL).toBe(expected);
  await expect.poll(async () => { const m = await previewMatches(page, expected, path); return m.shown === m.want; }, POLL).toBe(true);
  await page.keyboard.press('Control+s');
  await page.getByRole('heading', { level: 1, name: 'Typing' }).waitFor({ timeout: 20_000 });
  const saved = await app.admin.get(`/pages/docs/${path}`);
  expect(saved.body).toMatchObject({ content: expected, version: 2 });
}

describe('typing in the editor', { timeout: 240_000 }, () => {
  it('keeps every key typed with no delay', async () => {
    await typeAndCheck('t0', 1, KEYS, { delay: 0 });
  });

  it('keeps every key typed at 5 ms a key', async () => {
    await typeAndCheck('t5', 2, KEYS, { delay: 5 });
  });

  it('keeps every key typed at 30 ms a key while a second context keeps loading the editor', async () => {
    await typeAndCheck('t30', 3, KEYS_SLOW, { delay: 30 }, async (stop) => {
      const second = await open();
      let loads = 0;
      while (!stop()) {
        await openEditor(second, 't30');
        loads++;
      }
      expect(loads).toBeGreaterThan(0);
      await second.context().close();
    });
  });

  it('keeps every piece of text inserted as IME composition and dictation do', async () => {
    await typeAndCheck('ime', 4, KEYS, { insertText: true });
  });

  it('undoes a restored draft back to the text before it, and redoes it', async () => {
    await app.putPage('docs', 'draft', { title: 'Draft', content: 'saved text' });
    const page = await open();
    await openEditor(page, 'draft');
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
    await page.getByRole('heading', { level: 1, name: 'Draft' }).waitFor({ timeout: 20_000 });
    expect((await app.admin.get('/pages/docs/draft')).body.content).toBe('My saved text!');
  });
});
