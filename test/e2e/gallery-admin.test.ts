// The gallery's deep link creating a space, and the admin view: a new API key shown once, then
// revoked (401 after).
import { describe, expect, it } from 'vitest';
import { checkA11y, useBrowserFixture } from './support/index.ts';

// The machine may be busy: wait up to 15 s for what a page shows.
const POLL = { timeout: 15_000, interval: 100 };
const t = useBrowserFixture({
  user: { name: 'olga', orgAdmin: true },
  async setup(app) {
    await app.admin.post('/admin/principals', { name: 'deploy-bot', kind: 'agent' });
  },
});

describe('gallery and admin', { timeout: 90_000 }, () => {
  it('opens the create-space dialog from a deep link and creates the space', async () => {
    const page = await t.open({ at: '/app/gallery?template=built-in/team-wiki' });
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.getByRole('heading').textContent()).toContain('Team wiki');
    // Every entry has its name, its source and its own Create space button.
    const entries = page.locator('.gallery-entry');
    expect(await entries.count()).toBeGreaterThan(1);
    expect(await page.getByRole('button', { name: 'Create space', includeHidden: true }).count()).toBe(await entries.count());
    await checkA11y(page);
    await dialog.getByLabel('Slug').fill('our-wiki');
    await dialog.getByLabel('Name').fill('Our wiki');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { level: 1, name: 'Our wiki' }).waitFor();
    expect(page.url()).toBe(`${t.app.url}/app/s/our-wiki`);
    await expect.poll(() => page.getByRole('list', { name: 'Pages' }).getByRole('link').count(), POLL).toBeGreaterThan(3);
    const space = await t.app.admin.get('/spaces/our-wiki');
    expect(space.body).toMatchObject({ slug: 'our-wiki', name: 'Our wiki' });
  });

  it('says so for an unknown gallery entry', async () => {
    const page = await t.open();
    await page.goto('/app/gallery?template=built-in/nope');
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
  });

  it('creates an API key shown once, and revokes it (401 after)', async () => {
    const page = await t.open();
    await page.goto('/app/admin');
    await page.getByRole('button', { name: 'Keys of deploy-bot' }).click();
    const keys = page.getByRole('region', { name: 'API keys of deploy-bot' });
    await keys.getByText('No keys.').waitFor();
    await keys.getByRole('button', { name: 'Create API key' }).click();
    const shown = keys.getByLabel('New API key');
    await shown.waitFor();
    const key = (await shown.textContent()) ?? '';
    expect(key).toMatch(/^ks_/);
    expect((await fetch(`${t.app.url}/me`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    await checkA11y(page);
    // Shown once: after "Done" or a reload, only the prefix remains.
    await keys.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(key);
    await page.reload();
    await page.getByRole('button', { name: 'Keys of deploy-bot' }).click();
    const prefixCell = page.getByRole('region', { name: 'API keys of deploy-bot' }).locator('td.mono');
    await prefixCell.waitFor();
    expect(await page.content()).not.toContain(key);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: /^Revoke / }).click();
    await page.getByText(/^revoked /).waitFor();
    expect((await fetch(`${t.app.url}/me`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
  });

  it("shows a page's access list to an org admin and lets them restrict and release it", async () => {
    await t.app.createSpace('hr', 'People team');
    await t.app.putPage('hr', 'salaries', { title: 'Salaries', content: 'Numbers.' });
    const page = await t.open();
    await page.goto('/app/p/hr/salaries');
    const access = page.getByRole('region', { name: 'Access' });
    await access.getByText("Follows the space's default access.").waitFor();
    await access.getByRole('button', { name: 'Restrict access' }).click();
    await access.getByLabel('Readers').fill('olga');
    await access.getByLabel('Writers').fill('olga');
    await checkA11y(page);
    await access.getByRole('button', { name: 'Save access' }).click();
    await access.getByRole('button', { name: 'Remove restriction' }).waitFor();
    const me = (await t.app.admin.get('/admin/principals')).body.find((p: { name: string }) => p.name === 'olga');
    const acl = (await t.app.admin.get('/pages/hr/salaries/acl')).body;
    expect(acl.restricted).toBe(true);
    expect(acl.write).toEqual([me.id]); // writers may read too; the server may list them only once
    expect(await access.textContent()).toContain('olga');
    await access.getByRole('button', { name: 'Remove restriction' }).click();
    await access.getByRole('button', { name: 'Restrict access' }).waitFor();
    expect((await t.app.admin.get('/pages/hr/salaries/acl')).body.restricted).toBe(false);
  });
});
