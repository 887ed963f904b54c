// What the typing tests share (typing.test.ts, typing-busy.test.ts): the browser fixture with a
// signed-in writer, a tall editor, and a run that types a seeded script and checks the editor, the preview and
// the saved version against the modelled text.
import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import { type BrowserFixture, editorText, useBrowserFixture } from './fixture.ts';
import { play, script, type Mode } from './typist.ts';

// The machine may be busy: wait up to 20 s for what a page shows.
export const POLL = { timeout: 20_000, interval: 100 };
export { editorText };

export type TypingFixture = BrowserFixture & {
  /** Types the seeded script of `keys` keys into page `path` and checks editor, preview and saved version. */
  typeAndCheck(path: string, seed: number, keys: number, mode: Mode, alongside?: (stop: () => boolean) => Promise<void>): Promise<void>;
};

/** The file's browser fixture (useBrowserFixture) with writer tara in space docs; `open` gives a tab tall enough that CodeMirror draws every line of the typed text. */
export function useTypingFixture(): TypingFixture {
  const t = useBrowserFixture({ user: { name: 'tara' }, spaces: [['docs', 'Docs']] });
  const openAny = t.open;
  const open = (): Promise<Page> => openAny({ viewport: { width: 1400, height: 2400 } });
  /** The preview's HTML next to the server's rendering of `content`, both normalised by the browser's parser. */
  const previewMatches = async (page: Page, content: string, path: string): Promise<boolean> => {
    const r = await t.app.admin.post('/render', { space: 'docs', path, content });
    expect(r.status).toBe(200);
    return page.evaluate(
      (html) => {
        const t = document.createElement('template');
        t.innerHTML = html;
        return (document.querySelector('.preview .markdown')?.innerHTML ?? '') === t.innerHTML;
      },
      (r.body as { html: string }).html,
    );
  };

  const typing: Pick<TypingFixture, 'open' | 'typeAndCheck'> = {
    open,
    async typeAndCheck(path, seed, keys, mode, alongside) {
      const start = 'Start.';
      await t.app.putPage('docs', path, { title: 'Typing', content: start });
      const page = await open();
      await t.openEditor(page, path);
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
      // The page view's heading, not the editor's "Edit Typing": only the page view means the save is done.
      await page.getByRole('heading', { level: 1, name: 'Typing', exact: true }).waitFor({ timeout: 20_000 });
      const saved = await t.app.admin.get(`/pages/docs/${path}`);
      expect(saved.body).toMatchObject({ content: expected, version: 2 });
      await page.context().close();
    },
  };
  return Object.assign(t, typing);
}
