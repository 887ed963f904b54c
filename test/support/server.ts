// The one way a test starts kspace: `startServer(env, { mode })`.
// - 'in-process' (the default): serve() in the test's own process, on a random port over a fresh
//   SQLite file in a temp dir; cheapest, and what an API suite uses. Its `transport` says how the
//   test's `fetch` reaches it: 'port' (the default) over a real socket through the Node front, or
//   'fetch' through the h3 app's `fetch` without a socket (in-process-fetch.ts, docs/testing.md).
// - 'source': `kspace serve` from source as a child process (bin/kspace.ts), for what needs a
//   process of its own (signals, a crash, the process's memory, the helper thread's nice value).
// - 'binary': the single executable (dist/kspace) as a child process, given by `bin`.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stopProcess } from '../../scripts/lib/child-server.ts';
import { sourceArgs } from '../../scripts/lib/node-flags.ts';
import { loadConfig } from '../../src/config/config.ts';
import { serve, type Running } from '../../src/server.ts';
import type { Logger } from '../../src/services.ts';
import type { RequestFields } from '../../src/config/log.ts';
import { routeFetchInProcess, type Transport } from './in-process-fetch.ts';
import { client, type Client } from './client.ts';

export { client, type Client, type Res } from './client.ts';
export type { Transport } from './in-process-fetch.ts';

export const ADMIN_KEY = 'ks_test_admin_key_0123456789abcdef';

/** `requests`: the server's request log lines (src/front/front.ts); `infos`: its other info lines. */
export type TestServer = Running & {
  dataDir: string;
  admin: Client;
  errors: string[];
  requests: RequestFields[];
  infos: string[];
  transport: Transport;
};

export type InProcessOptions = {
  mode?: 'in-process';
  dataDir?: string;
  keepData?: boolean;
  /** How the test's `fetch` reaches the server (default 'port'). */
  transport?: Transport;
  /** The server's log instead of the capturing one (then `errors`, `requests` and `infos` stay empty). */
  log?: Logger;
  /** The checkpoint and full-text helper thread, as `kspace serve` starts it. */
  checkpointer?: boolean;
};

export type ChildOptions = {
  mode: 'source' | 'binary';
  /** --data; without it the binary's default (kspace-data in `cwd`). Required from source. */
  dataDir?: string;
  /** The executable (mode 'binary'). */
  bin?: string;
  cwd?: string;
  /** Further arguments to `serve`. */
  args?: string[];
  /** The child gets `env` only, nothing of this process's environment (default: both). */
  bareEnv?: boolean;
};

export type ChildServer = {
  proc: ChildProcess;
  pid: number;
  url: string;
  /** What the child wrote to its standard error and output. */
  stderr: () => string;
  /** Signals the child (SIGTERM unless told) and resolves once it and its helpers are gone. */
  stop(signal?: NodeJS.Signals): Promise<void>;
};

export function startServer(env: Record<string, string>, opts: ChildOptions): Promise<ChildServer>;
export function startServer(env?: Record<string, string>, opts?: InProcessOptions): Promise<TestServer>;
export function startServer(
  env: Record<string, string> = {},
  opts: InProcessOptions | ChildOptions = {},
): Promise<TestServer | ChildServer> {
  return isChild(opts) ? startChild(env, opts) : startInProcess(env, opts);
}

const isChild = (opts: InProcessOptions | ChildOptions): opts is ChildOptions => opts.mode === 'source' || opts.mode === 'binary';

async function startInProcess(env: Record<string, string>, opts: InProcessOptions): Promise<TestServer> {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-test-'));
  // SERVICE_VALIDATE_RESPONSES: every answer is checked against the endpoint table's schemas
  // (src/http/response-check.ts): a violation is a 500 and a logged error, so the test fails.
  const config = loadConfig(
    { data: dataDir, port: 0 },
    { SERVICE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY, SERVICE_VALIDATE_RESPONSES: '1', ...env },
  );
  const errors: string[] = [];
  const requests: RequestFields[] = [];
  const infos: string[] = [];
  const log: Logger = opts.log ?? {
    info: (m, f) => infos.push(`${m} ${JSON.stringify(f ?? {})}`),
    warn() {},
    error: (m, f) => errors.push(`${m} ${JSON.stringify(f)}`),
    request: (f) => requests.push(f),
  };
  const running = await serve(config, { log, checkpointer: opts.checkpointer ?? false });
  const transport = opts.transport ?? 'port';
  const unroute = transport === 'fetch' ? routeFetchInProcess(running.url, running.svc) : () => {};
  const close = running.close;
  return Object.assign(running, {
    dataDir,
    errors,
    requests,
    infos,
    transport,
    admin: client(running.url, ADMIN_KEY),
    async close() {
      unroute();
      await close();
      if (!opts.keepData) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  });
}

/** Resolves once the child logs that it listens (its first line naming its URL). */
function startChild(env: Record<string, string>, opts: ChildOptions): Promise<ChildServer> {
  if (opts.mode === 'binary' && !opts.bin) throw new Error('startServer: mode binary needs `bin`');
  if (opts.mode === 'source' && !opts.dataDir) throw new Error('startServer: mode source needs `dataDir`');
  // From source as bin/kspace runs it: its Node flags, the TypeScript cache, two malloc arenas.
  const [command, ...first] = opts.mode === 'binary' ? [opts.bin!] : [process.execPath, ...sourceArgs()];
  const sourceEnv = opts.mode === 'source' && !opts.bareEnv ? { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2' } : {};
  const args = [...first, 'serve', ...(opts.dataDir ? ['--data', opts.dataDir] : []), '--port', '0', ...(opts.args ?? [])];
  const proc = spawn(command, args, {
    cwd: opts.cwd,
    env: opts.bareEnv ? env : { ...process.env, ...sourceEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let listening = false;
  return new Promise((resolve, reject) => {
    // 30 s: a start on a machine loaded far past its cores (load 20 on 2) took over 15.
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 30_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /kspace listening on (http:\/\/\S+)/.exec(out);
      if (m && !listening) {
        listening = true;
        clearTimeout(timer);
        resolve({ proc, pid: proc.pid!, url: m[1], stderr: () => out, stop: (signal) => stopProcess(proc, signal) });
      }
    };
    proc.stderr!.on('data', read);
    proc.stdout!.on('data', read);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${out}`));
    });
    proc.once('error', (e) => {
      clearTimeout(timer);
      reject(e); // it did not start (no such executable)
    });
  });
}

/** A new principal with its own key (agents only hold keys). */
export async function newAgent(srv: TestServer, name: string, orgAdmin = false): Promise<Client & { id: string }> {
  const p = await srv.admin.post('/admin/principals', { name, kind: 'agent', orgAdmin });
  if (p.status !== 201) throw new Error(`create principal: ${p.status} ${p.text}`);
  const k = await srv.admin.post(`/admin/principals/${p.body.id}/keys`);
  if (k.status !== 201) throw new Error(`create key: ${k.status} ${k.text}`);
  return Object.assign(client(srv.url, k.body.key), { id: p.body.id as string });
}

type UseServer<T> = (srv: TestServer) => Promise<T>;

/**
 * `use` against a server of its own (`startServer(env, opts)`), for a test about a setting the
 * file's shared server does not have; the server is closed after `use`, whatever happens.
 */
export async function withServer<T>(env: Record<string, string>, ...args: [UseServer<T>] | [InProcessOptions, UseServer<T>]): Promise<T> {
  const [opts, use] = args.length === 1 ? [{}, args[0]] : args;
  const srv = await startServer(env, opts);
  try {
    return await use(srv);
  } finally {
    await srv.close();
  }
}
