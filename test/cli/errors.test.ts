// What a shell sees of the CLI: exit status and stderr. bin/kspace runs as a child process (runCli)
// for one case of each exit status (1, 2 and 0); the others run the same entry in this process
// (runCliHere), whose answer is the status bin/kspace.ts exits with.
import { describe, expect, it } from 'vitest';
import { runCli, runCliHere } from '../support/cli.ts';
import { ADMIN_KEY, newAgent } from '../support/server.ts';
import { useServer } from '../support/fixture.ts';
import { freePort } from '../../scripts/lib/child-server.ts';

const { srv } = useServer({
  spaces: [{ slug: 'wiki', name: 'Wiki', defaultAccess: 'read' }],
  pages: [['wiki/ro', { title: 'Read only' }]],
});

const lines = (s: string) => s.split('\n').filter(Boolean);

describe('exit codes and one clear line on stderr', () => {
  it('no key: exit 1 saying how to give one', async () => {
    const r = await runCli(['spaces', 'list'], { url: srv.url });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toEqual(['kspace: 401 unauthorized: no API key given (set SERVICE_API_KEY or pass --key)']);
  });

  it('an unknown key: exit 1', async () => {
    const r = await runCliHere(['page', 'get', 'wiki', 'ro'], { url: srv.url, key: 'ks_not_a_real_key' });
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual(['kspace: 401 unauthorized: the API key is missing, unknown or revoked']);
  });

  it('--key and --url flags win over the environment', async () => {
    const r = await runCliHere(['spaces', 'list', '--key', ADMIN_KEY, '--url', srv.url], { url: 'http://127.0.0.1:1', key: 'wrong' });
    expect(r.code).toBe(0);
    const before = await runCliHere(['--key', ADMIN_KEY, '--url', srv.url, 'spaces', 'list'], { key: 'wrong' });
    expect(before.code).toBe(0);
  });

  it('an unreachable server: exit 1, connection refused', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const r = await runCliHere(['spaces', 'list'], { url, key: ADMIN_KEY });
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([`kspace: cannot reach ${url} (connection refused)`]);
  });

  it('a URL that is not one: exit 1', async () => {
    const r = await runCliHere(['spaces', 'list'], { url: 'not a url', key: ADMIN_KEY });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^kspace: the server URL 'not a url' is not a valid URL/);
  });

  it('a 400: exit 2 and each issue as key: message (code)', async () => {
    const r = await runCli(['page', 'put', 'wiki', 'bad', '--title', 'B', '--metadata', '{"nested":{"a":1},"ok":1}'], {
      url: srv.url,
      key: ADMIN_KEY,
    });
    expect(r.code).toBe(2);
    const l = lines(r.stderr);
    expect(l[0]).toBe('kspace: 400 validation_failed: the server rejected the input');
    expect(l.slice(1)).toEqual([expect.stringMatching(/^ {2}metadata\.nested: .+ \(type\)$/)]);
    expect((await srv.admin.get('/pages/wiki/bad')).status).toBe(404);
  });

  it('404 and 403: exit 1 with the status, code and detail', async () => {
    const missing = await runCliHere(['page', 'get', 'wiki', 'nope'], { url: srv.url, key: ADMIN_KEY });
    expect(missing.code).toBe(1);
    expect(lines(missing.stderr)).toEqual(["kspace: 404 not_found: page 'wiki/nope' not found"]);
    const bob = await newAgent(srv, 'bob');
    const denied = await runCliHere(['meta', 'set', 'wiki', 'ro', 'x=1'], { url: srv.url, key: bob.key });
    expect(denied.code).toBe(1);
    expect(lines(denied.stderr)).toEqual([expect.stringMatching(/^kspace: 403 forbidden: /)]);
  });

  it.each([
    [['query', '--where', 'points ~ 3']],
    [['meta', 'set', 'wiki', 'ro', 'novalue']],
    [['page', 'put', 'wiki', 'x', '--title', 'X', '--metadata', '[1]']],
    [['page', 'put', 'wiki', 'x', '--title', 'X', '--metadata', '{oops']],
    [['page', 'get', 'wiki']],
    [['spaces', 'lst']],
    [['spaces', 'create', 'x', '--default-access', 'everyone']],
  ])('bad usage %j: exit 2 before any request', async (args) => {
    const r = await runCliHere(args, { url: srv.url, key: ADMIN_KEY });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toBe('');
    expect(r.stdout).toBe('');
  });
});

describe('help', () => {
  it('kspace --help lists the nouns by group, with the environment and exit codes', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const noun of [
      'page',
      'pages',
      'meta',
      'acl',
      'revisions',
      'search',
      'query',
      'types',
      'records',
      'templates',
      'links',
      'spaces',
      'space-templates',
      'export',
      'import',
      'webhooks',
      'serve',
      'admin',
      'mcp',
    ]) {
      expect(r.stdout).toMatch(new RegExp(`\\n  ${noun}\\b`));
    }
    expect(r.stdout).toContain('SERVICE_API_KEY');
    expect(r.stdout).toContain('Exit codes');
  });

  it.each(['page put', 'query', 'meta set', 'webhooks create', 'export', 'records', 'mcp'])('%s --help has examples', async (command) => {
    const r = await runCliHere([...command.split(' '), '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: kspace /);
    expect(r.stdout).toContain('Example');
  });
});
