// A page's files in the web app: an image referenced as files/<name> shows (the app's CSP allows
// img-src 'self'), the Files panel lists the page's files, and a writer attaches one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkA11y, signIn, useBrowserFixture } from './support/index.ts';
import { gradientPng } from './support/png.ts';

const POLL = { timeout: 15_000, interval: 100 };
const t = useBrowserFixture({
  user: { name: 'fiona', signIn: false },
  spaces: [['wiki', 'Team wiki']],
  pages: [
    [
      'wiki',
      'design/overview',
      {
        title: 'Design overview',
        content: '# Architecture\n\n![The diagram](files/diagram.png)\n\nThe [spec](files/spec.txt) has the details.',
      },
    ],
  ],
  async setup(app) {
    const r = await fetch(`${app.url}/files/wiki/design/overview/diagram.png`, {
      method: 'PUT',
      body: gradientPng(480, 200) as BodyInit,
      headers: { authorization: `Bearer ${app.admin.key}` },
    });
    expect(r.status).toBe(201);
  },
});

describe('files in the web app', { timeout: 90_000 }, () => {
  it('shows an attached image, lists the files and attaches one through the Files panel', async () => {
    const page = await t.open({ signedIn: false });
    await page.goto('/app/p/wiki/design/overview');
    await signIn(page, t.user.name, t.user.password);
    await expect.poll(() => page.getByRole('heading', { name: 'Design overview', level: 1 }).count(), POLL).toBe(1);
    const img = page.getByRole('img', { name: 'The diagram' });
    await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth), POLL).toBe(480);
    const files = page.getByRole('region', { name: 'Files' });
    await expect.poll(() => files.getByRole('link', { name: 'diagram.png' }).count(), POLL).toBe(1);

    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-e2e-files-'));
    const spec = path.join(tmp, 'spec.txt');
    fs.writeFileSync(spec, 'The specification.');
    await files.getByLabel('File to attach').setInputFiles(spec);
    await files.getByRole('button', { name: 'Attach file' }).click();
    await expect.poll(() => files.getByRole('link', { name: 'spec.txt' }).count(), POLL).toBe(1);
    const got = await fetch(`${t.app.url}/files/wiki/design/overview/spec.txt`, {
      headers: { authorization: `Bearer ${t.app.admin.key}` },
    });
    expect(await got.text()).toBe('The specification.');
    fs.rmSync(tmp, { recursive: true, force: true });
    await checkA11y(page);
    if (process.env.SCREENSHOTS) await page.screenshot({ path: 'docs/screenshots/page-files.png', fullPage: false });
    await page.context().close();
  });
});
