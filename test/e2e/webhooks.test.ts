// Webhooks in the admin view: add one (the secret shown once), send a test, read the delivery
// log, rotate the secret, disable it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkA11y, signIn, useBrowserFixture } from './support/index.ts';

const t = useBrowserFixture({
  env: {
    SERVICE_SETTINGS_ENCRYPTION_KEY: 'an encryption key of at least 32 characters',
    SERVICE_WEBHOOKS_ALLOW_HTTP: '1',
    SERVICE_WEBHOOKS_ALLOW_PRIVATE_URLS: '1',
  },
});
let receiver: http.Server;
let hookUrl: string;
const received: string[] = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push(body);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  receiver?.close();
});

describe('webhooks in the admin view', { timeout: 120_000 }, () => {
  it('adds a webhook, tests it, shows its log, rotates its secret and disables it', async () => {
    const admin = await t.app.createUser('wanda', undefined, { orgAdmin: true });
    const page = await t.open({ allowConsole: [/status of 401/] });
    await page.goto('/app/admin');
    await signIn(page, admin.name, admin.password);
    const hooks = page.getByRole('region', { name: 'Webhooks' });
    await hooks.getByText('No webhooks yet.').waitFor();
    await hooks.getByLabel('URL', { exact: true }).fill(hookUrl);
    await hooks.getByRole('button', { name: 'Add webhook' }).click();
    const secret = hooks.locator('code.secret');
    await secret.waitFor();
    const first = (await secret.textContent()) ?? '';
    expect(first).toMatch(/^whsec_/);
    await hooks.getByText(hookUrl).waitFor();
    await checkA11y(page);

    await hooks.getByRole('button', { name: 'Send test' }).click();
    await hooks.getByText(/^Test: delivered \(HTTP 200\)/).waitFor();
    expect(received.some((b) => b.includes('webhook.test'))).toBe(true);
    await hooks.getByRole('button', { name: 'Delivery log' }).click();
    await hooks.getByRole('cell', { name: 'webhook.test' }).waitFor();

    await hooks.getByRole('button', { name: 'Done' }).click();
    await hooks.getByRole('button', { name: 'Rotate secret' }).click();
    await secret.waitFor();
    expect(await secret.textContent()).toMatch(/^whsec_/);
    expect(await secret.textContent()).not.toBe(first);

    await hooks.getByRole('button', { name: 'Disable' }).click();
    await hooks.getByText('disabled', { exact: true }).waitFor();
    const list = await t.app.admin.get('/admin/webhooks');
    expect(list.body).toMatchObject([{ url: hookUrl, enabled: false }]);
  });
});
