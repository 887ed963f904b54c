// `kspace changes`: the feed as lines or JSON lines, --since, --space, and --follow printing
// changes as they commit.
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KSPACE_BIN, runCliHere } from '../support/cli.ts';
import { ADMIN_KEY, startServer, type TestServer } from '../support/server.ts';

let srv: TestServer;
let start: number;
const cli = (args: string[]) => runCliHere(args, { url: srv.url, key: ADMIN_KEY });

beforeAll(async () => {
  srv = await startServer();
  await srv.admin.post('/spaces', { slug: 'wiki', name: 'Wiki' });
  await srv.admin.post('/spaces', { slug: 'ops', name: 'Ops' });
  start = Number((await srv.admin.put('/pages/wiki/zero', { title: 'Zero', content: '' })).headers.get('x-service-txid'));
  await srv.admin.put('/pages/wiki/one', { title: 'One', content: '' });
  await srv.admin.put('/pages/ops/two', { title: 'Two', content: '' });
  await srv.admin.post('/spaces/wiki/moves', { from: 'one', to: 'uno' });
});
afterAll(() => srv.close());

describe('kspace changes', () => {
  it('prints the changes after --since, one a line: txid, time, event, space/path (from …) version, actor', async () => {
    const r = await cli(['changes', '--since', String(start)]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(lines.map((l) => `${l[2]} ${l[3]}`)).toEqual([
      'page.created wiki/one v1',
      'page.created ops/two v1',
      'page.moved wiki/uno (from wiki/one) v1',
    ]);
    expect(Number(lines[0][0])).toBeGreaterThan(start);
    expect(Date.parse(lines[0][1])).toBeGreaterThan(0);
    const wiki = await cli(['changes', '--since', String(start), '--space', 'wiki', '--json']);
    const json = wiki.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(json.map((c) => [c.event, c.path])).toEqual([
      ['page.created', 'one'],
      ['page.moved', 'uno'],
    ]);
    expect(json[1].from).toEqual({ space: 'wiki', path: 'one' });
  });

  it('refuses a --since that is not a txid, and reports a 404 space', async () => {
    const bad = await cli(['changes', '--since', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--since');
    const missing = await cli(['changes', '--space', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('404');
  });

  it('--follow prints each change as it commits, from now without --since', async () => {
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      XDG_STATE_HOME: path.join(os.tmpdir(), `kspace-cli-state-${process.pid}`),
      SERVICE_URL: srv.url,
      SERVICE_API_KEY: ADMIN_KEY,
    };
    const child = spawn(KSPACE_BIN, ['changes', '--follow', '--json', '--space', 'wiki'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    try {
      const seen = () =>
        out
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { path: string });
      // Written until the follower has connected and printed it (it starts from now, so earlier ones may be missed).
      let n = 0;
      const end = Date.now() + 20_000;
      while (!seen().some((c) => c.path.startsWith('live')) && Date.now() < end) {
        await srv.admin.put(`/pages/wiki/live-${n++}`, { title: 'Live', content: '' });
        await new Promise((r) => setTimeout(r, 300));
      }
      expect(seen().length, err).toBeGreaterThan(0);
      expect(seen().every((c) => c.path.startsWith('live'))).toBe(true); // nothing from before it started
      await srv.admin.put('/pages/ops/elsewhere', { title: 'E', content: '' });
      await srv.admin.put('/pages/wiki/last', { title: 'Last', content: '' });
      while (!seen().some((c) => c.path === 'last') && Date.now() < end + 10_000) await new Promise((r) => setTimeout(r, 50));
      expect(seen().map((c) => c.path)).not.toContain('elsewhere');
      expect(seen().at(-1)!.path).toBe('last');
    } finally {
      child.kill('SIGTERM');
    }
  });
});
