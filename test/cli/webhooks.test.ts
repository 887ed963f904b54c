import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { argv, runCliHere } from '../support/cli.ts';
import { ADMIN_KEY, newAgent, startServer, type TestServer } from '../support/server.ts';

let srv: TestServer;
let receiver: http.Server;
let hookUrl: string;
const got: string[] = [];
const cli = (args: string[], key = ADMIN_KEY) => runCliHere(args, { url: srv.url, key });

beforeAll(async () => {
  srv = await startServer({
    SERVICE_SETTINGS_ENCRYPTION_KEY: 'cli-test-settings-key-0123456789abcdef',
    SERVICE_WEBHOOKS_ALLOW_HTTP: '1',
    SERVICE_WEBHOOKS_ALLOW_PRIVATE_URLS: '1',
  });
  receiver = http.createServer((req, res) => {
    got.push(String(req.headers['x-service-event']));
    res.writeHead(req.url === '/fail' ? 500 : 204).end();
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await srv.close();
  await new Promise((r) => receiver.close(r));
});

describe('webhooks from the command line', () => {
  it('create (secret shown once), list, disable/enable, rotate, test, deliveries, delete', async () => {
    const created = await cli(
      argv`webhooks create --url ${hookUrl} --event page.created --event page.updated,page.deleted --description ${'from the CLI'} --json`,
    );
    expect(created.code).toBe(0);
    const hook = JSON.parse(created.stdout);
    expect(hook).toMatchObject({
      url: hookUrl,
      events: ['page.created', 'page.updated', 'page.deleted'],
      enabled: true,
      secret: expect.stringMatching(/^whsec_/),
    });

    const list = await cli(['webhooks', 'list']);
    expect(list.stdout).toMatch(
      new RegExp(
        `^ID\\s+URL\\s+EVENTS\\s+SPACE\\s+ENABLED\\s+DESCRIPTION\\n${hook.id}\\s+${hookUrl.replace(/[.]/g, '\\.')}\\s+page\\.created, page\\.updated, page\\.deleted\\s+\\*\\s+yes\\s+from the CLI\\n$`,
      ),
    );
    expect(list.stdout).not.toContain('whsec_');

    expect((await cli(['webhooks', 'disable', hook.id])).stdout).toBe(`webhook ${hook.id} disabled\n`);
    expect((await srv.admin.get(`/admin/webhooks/${hook.id}`)).body.enabled).toBe(false);
    expect((await cli(['webhooks', 'enable', hook.id])).stdout).toBe(`webhook ${hook.id} enabled\n`);

    const rotated = JSON.parse((await cli(['webhooks', 'rotate', hook.id, '--json'])).stdout);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(hook.secret);

    const test = await cli(['webhooks', 'test', hook.id]);
    expect(test.code).toBe(0);
    expect(test.stdout).toMatch(/^outcome:\s+delivered\nstatus:\s+204\n/);
    expect(got).toContain('webhook.test');

    const deliveries = await cli(['webhooks', 'deliveries', hook.id]);
    expect(deliveries.stdout.split('\n')[0]).toMatch(/^AT\s+EVENT\s+ATTEMPT\s+OUTCOME\s+STATUS\s+MS\s+ERROR$/);
    expect(deliveries.stdout).toMatch(/\swebhook\.test\s+1\s+delivered\s+204\s/);

    expect((await cli(['webhooks', 'delete', hook.id])).code).toBe(0);
    expect((await srv.admin.get(`/admin/webhooks/${hook.id}`)).status).toBe(404);
  });

  it('a failing test delivery exits 1; bad input exits 2 naming the fields; a non-admin gets 403', async () => {
    const hook = JSON.parse(
      (await cli(['webhooks', 'create', '--url', hookUrl.replace('/hook', '/fail'), '--event', 'page.created', '--json'])).stdout,
    );
    const test = await cli(['webhooks', 'test', hook.id]);
    expect(test.code).toBe(1);
    expect(test.stderr).toMatch(/^kspace: the test delivery was not delivered \(failed 500/);

    const bad = await cli(['webhooks', 'create', '--url', 'ftp://example.com/x', '--event', 'page.exploded']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/\n {2}url: .+\n {2}events\.0: .+ \(option\)\n$/);

    const member = await newAgent(srv, 'member');
    const denied = await cli(['webhooks', 'list'], member.key!);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/^kspace: 403 forbidden: /);
  });
});
