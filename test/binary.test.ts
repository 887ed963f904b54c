// The single executable, alone in an empty directory, with no Node.js on PATH and no
// node_modules anywhere near it: it serves, answers its own client commands and MCP, and opens a
// data directory written by the server run from source.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildNative } from '../scripts/build-native.ts';
import { ensureBinary } from '../scripts/lib/binary.ts';
import { helperThreads } from '../scripts/lib/child-server.ts';
import { postSession } from './support/sessions.ts';
import { waitFor } from './support/wait.ts';
import { runCli } from './support/cli.ts';
import { callTool, connectStdio, postToolCall } from './support/mcp.ts';
import { ADMIN_KEY, startServer, type ChildServer } from './support/server.ts';

const KEY = 'ks_binary_test_key_0123456789abcdef';
let dir: string;
let bin: string;
let emptyPath: string;
const running: ChildProcess[] = [];

/** An environment as bare as `env -i`: an empty PATH dir, a HOME, nothing from this process. */
function bareEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: emptyPath, HOME: dir, ...extra };
}

/** dist/kspace serving `data` (its default, kspace-data in the test's directory, without it), with a bare environment. */
async function serveBinary(data: string | undefined, env: Record<string, string>): Promise<ChildServer> {
  const srv = await startServer(bareEnv(env), { mode: 'binary', bin, cwd: dir, dataDir: data, bareEnv: true });
  running.push(srv.proc);
  return srv;
}

beforeAll(() => {
  const built = ensureBinary();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bin-'));
  bin = path.join(dir, 'kspace');
  fs.copyFileSync(built.path, bin);
  fs.chmodSync(bin, 0o755);
  emptyPath = path.join(dir, 'empty-path');
  fs.mkdirSync(emptyPath);
}, 120_000);

afterAll(() => {
  for (const p of running) if (p.exitCode === null) p.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('dist/kspace alone in an empty directory', () => {
  it('serves from an empty data dir and answers its own client commands, with no warnings', async () => {
    expect(fs.readdirSync(dir).sort()).toEqual(['empty-path', 'kspace']);
    const srv = await serveBinary(undefined, {
      SERVICE_BOOTSTRAP_ADMIN_KEY: KEY,
      SERVICE_SETTINGS_ENCRYPTION_KEY: 'binary-test-settings-key-0123456789abcdef',
      SERVICE_WEBHOOKS_ALLOW_HTTP: '1',
      SERVICE_WEBHOOKS_ALLOW_PRIVATE_URLS: '1',
    });
    const receiver = http.createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const cli = (args: string[], input?: string) =>
        runCli(args, { bin, cwd: dir, env: bareEnv({ SERVICE_URL: srv.url, SERVICE_API_KEY: KEY }), input });
      expect(await cli(['spaces', 'create', 'wiki', '--name', 'Wiki'])).toEqual({ code: 0, stdout: 'created space wiki\n', stderr: '' });
      expect(
        (
          await cli(
            ['page', 'put', 'wiki', 'start/here', '--title', 'Start here', '--meta', 'points=3'],
            '# Welcome\n\nThe binary wrote this.\n',
          )
        ).code,
      ).toBe(0);
      expect((await cli(['page', 'get', 'wiki', 'start/here'])).stdout).toBe(
        '---\ntitle: Start here\nmetadata:\n  points: 3\n---\n\n# Welcome\n\nThe binary wrote this.\n',
      );
      expect(JSON.parse((await cli(['page', 'get', 'wiki', 'start/here', '--json'])).stdout).metadata).toEqual({ points: 3 });
      // The checkpoint and full-text helper runs as a thread, from the bundle the executable carries.
      expect(await waitFor(() => helperThreads(srv.pid).some((t) => t.nice === 10))).toBe(true);
      // kspace's malloc trim (src/malloc-trim.ts), carried when the build had a C compiler, is
      // written to the cache directory and loaded a second after the start.
      if (buildNative() !== null)
        expect(
          await waitFor(() => fs.readFileSync(`/proc/${srv.pid}/maps`, 'utf8').includes(path.join(dir, '.cache/kspace/malloc-trim-'))),
        ).toBe(true);
      // A zip export, made by a worker thread from the bundle the executable carries.
      const threads = helperThreads(srv.pid).length;
      const zip = await fetch(`${srv.url}/spaces/wiki/export?format=zip`, { headers: { authorization: `Bearer ${KEY}` } });
      expect(zip.status).toBe(200);
      expect(Object.keys(unzipSync(new Uint8Array(await zip.arrayBuffer())))).toContain('start/here.md');
      expect(helperThreads(srv.pid).filter((t) => t.nice === 10)).toHaveLength(threads + 1);
      const hits = await cli(['search', 'welcome']);
      expect(hits.stdout).toMatch(/^wiki\/start\/here {2}Start here {2}/);
      expect(srv.stderr()).not.toContain('checkpointer');
      const bad = await cli(['page', 'put', 'wiki', 'x', '--title', 'X', '--metadata', '{"a":{"b":1}}']);
      expect(bad.code).toBe(2);
      // MCP over HTTP, served by the binary (the SDK is bundled inside it).
      const rpc = await postToolCall(srv.url, KEY, 'get_page', { space: 'wiki', path: 'start/here' });
      expect(JSON.parse((await rpc.json()).result.content[0].text)).toMatchObject({ title: 'Start here' });
      // MCP over stdio, the binary launched by the SDK's client.
      const mcp = await connectStdio(srv.url, KEY, bin);
      try {
        expect((await callTool(mcp, 'list_pages', { space: 'wiki' })).json.pages.map((p: { path: string }) => p.path)).toEqual([
          'start/here',
        ]);
      } finally {
        await mcp.close();
      }
      // A webhook test delivery: undici, loaded on first use inside the executable.
      const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const hook = JSON.parse((await cli(['webhooks', 'create', '--url', hookUrl, '--event', 'page.created', '--json'])).stdout);
      const test = await cli(['webhooks', 'test', hook.id]);
      expect(test).toMatchObject({ code: 0, stdout: expect.stringMatching(/^outcome:\s+delivered\nstatus:\s+204\n/) });
      expect(fs.existsSync(path.join(dir, 'kspace-data', 'kspace.db'))).toBe(true);
      expect(srv.stderr()).not.toMatch(/Warning/);
      // A new organisation has no user yet: the first start says how to make one for the web app.
      expect(srv.stderr()).toMatch(/create-principal --data \S+ --name you --kind user --org-admin --password-stdin/);
    } finally {
      await srv.stop();
      await new Promise((r) => receiver.close(r));
    }
    expect(srv.stderr()).not.toMatch(/ExperimentalWarning|Warning:/);
  });

  it('runs --help and the offline admin commands', async () => {
    const help = await runCli(['--help'], { bin, cwd: dir, env: bareEnv() });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: kspace <command>');
    expect(help.stderr).toBe('');
    const data = path.join(dir, 'offline');
    const p = await runCli(['admin', 'create-principal', '--init', '--data', data, '--name', 'robot'], { bin, cwd: dir, env: bareEnv() });
    expect(p.code).toBe(0);
    expect(p.stderr).toMatch(/^admin API key: ks_/);
    const k = await runCli(['admin', 'create-key', '--data', data, '--principal', 'robot'], { bin, cwd: dir, env: bareEnv() });
    expect(k).toMatchObject({ code: 0, stderr: '', stdout: expect.stringMatching(/^ks_\S+\n$/) });
  });

  it('opens and serves a data directory written by the server run from source', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bin-src-'));
    const source = await startServer({}, { dataDir: data, keepData: true });
    try {
      await source.admin.post('/spaces', { slug: 'old', name: 'Old' });
      expect(
        (await source.admin.put('/pages/old/kept', { title: 'Kept', content: 'written by npm start', metadata: { n: 1 } })).status,
      ).toBe(201);
    } finally {
      await source.close();
    }
    const srv = await serveBinary(data, { SERVICE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY });
    try {
      const r = await fetch(`${srv.url}/pages/old/kept`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      expect(r.status).toBe(200);
      expect(await r.json()).toMatchObject({ title: 'Kept', content: 'written by npm start', metadata: { n: 1 }, version: 1 });
      const put = await runCli(['page', 'put', 'old', 'kept', '--content', 'and updated by the binary'], {
        bin,
        cwd: dir,
        env: bareEnv({ SERVICE_URL: srv.url, SERVICE_API_KEY: ADMIN_KEY }),
      });
      expect(put.stdout).toBe('saved old/kept (version 2)\n');
    } finally {
      await srv.stop();
      fs.rmSync(data, { recursive: true, force: true });
    }
    expect(srv.stderr()).not.toMatch(/Warning/);
  });

  // The browser tests (test/e2e/auth.test.ts) sign in through the app served from source; what the
  // executable adds is serving the app from the bundle it carries, and the session cookie of it.
  it('serves the web app it carries, at every /app/ address, and signs a person in and out with an HttpOnly SameSite=Lax cookie', async () => {
    const srv = await serveBinary(path.join(dir, 'web-data'), { SERVICE_BOOTSTRAP_ADMIN_KEY: KEY });
    try {
      const made = await fetch(`${srv.url}/admin/principals`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'ann', kind: 'user', password: 'ann password 1' }),
      });
      expect(made.status).toBe(201);
      let html = '';
      for (const at of ['/app/', '/app/sign-in', '/app/p/team/plan']) {
        const r = await fetch(`${srv.url}${at}`);
        expect(r.status, at).toBe(200);
        expect(r.headers.get('content-type'), at).toMatch(/^text\/html/);
        html = await r.text();
      }
      const assets = [...html.matchAll(/(?:src|href)="(\/app\/[^"]+\.(js|css))"/g)];
      expect(assets.map((m) => m[2])).toContain('js');
      for (const [, at, kind] of assets) {
        const r = await fetch(`${srv.url}${at}`);
        expect(r.status, at).toBe(200);
        expect(r.headers.get('content-type'), at).toMatch(kind === 'js' ? /javascript/ : /^text\/css/);
        expect((await r.arrayBuffer()).byteLength, at).toBeGreaterThan(0);
      }
      const signIn = (password: string) => postSession(srv.url, 'ann', password);
      const wrong = await signIn('not the password');
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('set-cookie')).toBeNull();
      const ok = await signIn('ann password 1');
      expect(ok.status).toBe(200);
      const setCookie = ok.headers.getSetCookie().find((c) => c.startsWith('kspace_session=')) ?? '';
      expect(setCookie).toMatch(/^kspace_session=[^;]+/);
      const attrs = setCookie.split(';').map((a) => a.trim().toLowerCase());
      expect(attrs).toEqual(expect.arrayContaining(['httponly', 'samesite=lax', 'path=/']));
      expect(attrs).not.toContain('secure');
      const cookie = setCookie.split(';')[0];
      const { csrfToken } = (await ok.json()) as { csrfToken: string };
      const me = await fetch(`${srv.url}/session`, { headers: { cookie } });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { principal: { name: string } }).principal.name).toBe('ann');
      // Signing out ends the session on the server too: the old cookie no longer signs anyone in.
      const out = await fetch(`${srv.url}/session`, { method: 'DELETE', headers: { cookie, 'x-csrf-token': csrfToken, origin: srv.url } });
      expect(out.status).toBe(204);
      expect(out.headers.getSetCookie()).toContainEqual(expect.stringMatching(/^kspace_session=;.*Max-Age=0/));
      expect((await fetch(`${srv.url}/session`, { headers: { cookie } })).status).toBe(401);
    } finally {
      await srv.stop();
    }
  });
});
