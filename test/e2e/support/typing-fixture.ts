// What the typing tests share (typing.test.ts, typing-busy.test.ts): a server with a signed-in
// writer, a tall editor, and a run that types a seeded script and checks the editor, the preview and
// the saved version against the modelled text.
import { expect } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { type AppServer, guard, openBrowser, type Session, signedInSession, startAppServer } from './index.ts';
import { play, script, type Mode } from './typist.ts';

// The machine may be busy: wait up to 20 s for what a page shows.
export const POLL = { timeout: 20_000, interval: 100 };

export type TypingFixture = {
  app: AppServer;
  /** A new signed-in tab, tall enough that CodeMirror draws every line of the typed text. */
  open(): Promise<Page>;
  openEditor(page: Page, path: string): Promise<void>;
  /** Types the seeded script of `keys` keys into page `path` and checks editor, preview and saved version. */
  typeAndCheck(path: string, seed: number, keys: number, mode: Mode, alongside?: (stop: () => boolean) => Promise<void>): Promise<void>;
  close(): Promise<void>;
};

/** The editor's text as drawn: its lines, in order. */
export const editorText = (page: Page): Promise<string> =>
  page.locator('.cm-content .cm-line').evaluateAll((lines) => lines.map((l) => l.textContent ?? '').join('\n'));

export async function typingFixture(): Promise<TypingFixture> {
  const app = await startAppServer();
  const browser: Browser = await openBrowser();
  const user = await app.createUser('tara');
  await app.createSpace('docs', 'Docs');
  const session: Session = await signedInSession(browser, app.url, user);

  const open = async (): Promise<Page> => {
    const ctx = await browser.newContext({ baseURL: app.url, storageState: session, viewport: { width: 1400, height: 2400 } });
    const page = await ctx.newPage();
    guard(page, app.url);
    return page;
  };
  const openEditor = async (page: Page, path: string): Promise<void> => {
    await page.goto(`/app/p/docs/${path}?edit`);
    await page.locator('.cm-content').waitFor(); // CodeMirror's chunk has loaded
  };
  /** The preview's HTML next to the server's rendering of `content`, both normalised by the browser's parser. */
  const previewMatches = async (page: Page, content: string, path: string): Promise<boolean> => {
    const r = await app.admin.post('/render', { space: 'docs', path, content });
    expect(r.status).toBe(200);
    return page.evaluate((html) => {
      const t = document.createElement('template');
      t.innerHTML = html;
      return (document.querySelector('.preview .markdown')?.innerHTML ?? '') === t.innerHTML;
    }, (r.body as { html: string }).html);
  };

  return {
    app,
    open,
    openEditor,
    async typeAndCheck(path, seed, keys, mode, alongside) {
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
      await expect.poll(() => previewMatches(page, expected, path), POLL).toBe(true);
      await page.keyboard.press('Control+s');
      await page.getByRole('heading', { level: 1, name: 'Typing' }).waitFor({ timeout: 20_000 });
      const saved = await app.admin.get(`/pages/docs/${path}`);
      expect(saved.body).toMatchObject({ content: expected, version: 2 });
      await page.context().close();
    },
    async close() {
      await browser.close();
      await app.close();
    },
  };
}
