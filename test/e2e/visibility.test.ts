// A page a person may not read never shows up: not in the page tree, search, backlinks, the New
// Page template list, nor at its own address (not found, like a page that does not exist).
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { checkA11y, signIn, useBrowserFixture } from './support/index.ts';

const t = useBrowserFixture({
  user: { name: 'vic', signIn: false },
  spaces: [['shared', 'Shared']],
  pages: [
    ['shared', 'index', { title: 'Index', content: 'Zebrafish facts. See [the plans](secret).' }],
    ['shared', 'secret', { title: 'Secret plans', content: 'Zebrafish takeover. Back to [index](index).' }],
    ['shared', 'templates/open', { title: 'Open template', content: 'open' }],
    ['shared', 'templates/hidden', { title: 'Hidden template', content: 'hidden' }],
  ],
  async setup(app) {
    const me = await app.admin.get('/me');
    const only = { read: [me.body.id], write: [me.body.id] };
    for (const p of ['secret', 'templates/hidden']) {
      const r = await app.admin.put(`/pages/shared/${p}/acl`, only);
      if (r.status !== 200) throw new Error(`acl ${p}: ${r.status} ${r.text}`);
    }
  },
});

async function open(): Promise<Page> {
  // Signed out, GET /session answers 401 (that is how the app knows); the hidden page answers 404.
  const page = await t.open({ signedIn: false, allowConsole: [/status of 401/, /status of 404/] });
  await page.goto('/app/');
  await signIn(page, t.user.name, t.user.password);
  return page;
}

describe('pages a person may not read', { timeout: 120_000 }, () => {
  it('never appear in the tree, search, backlinks or the template list', async () => {
    const page = await open();
    await page.goto('/app/s/shared');
    const tree = page.getByRole('list', { name: 'Pages' });
    await tree.getByRole('link', { name: 'Index' }).waitFor();
    expect(await tree.getByRole('link').allTextContents()).toEqual(expect.arrayContaining(['Index', 'Open template']));
    expect(await page.content()).not.toContain('Secret plans');
    expect(await page.content()).not.toContain('Hidden template');

    await page.goto('/app/search?q=zebrafish');
    await page.locator('.hit').first().waitFor();
    expect(await page.locator('.hit-title').allTextContents()).toEqual(['Index']);

    await page.goto('/app/p/shared/index');
    const backlinks = page.getByRole('region', { name: 'Backlinks' });
    await backlinks.getByText('No page links here yet.').waitFor();
    // The link to the hidden page looks exactly like a link to a missing page.
    expect(await page.locator('.markdown').getByRole('link', { name: 'the plans' }).getAttribute('class')).toContain('broken');
    await checkA11y(page);

    await page.goto('/app/new');
    const chooser = page.getByLabel('Template');
    await chooser.waitFor();
    const options = await chooser.locator('option').allTextContents();
    expect(options).toContain('Open template');
    expect(options).not.toContain('Hidden template');

    await page.goto('/app/p/shared/secret');
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    expect(await page.content()).not.toContain('Zebrafish takeover');
  });
});
