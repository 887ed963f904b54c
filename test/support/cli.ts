import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { ADMIN_KEY } from './server.ts';

export const KSPACE_BIN = path.resolve(import.meta.dirname, '../../bin/kspace');

const CLI_STATE = path.join(os.tmpdir(), `kspace-cli-state-${process.pid}`);

export type CliResult = { code: number; stdout: string; stderr: string };

/**
 * Runs `bin/kspace` as a subprocess (asynchronously: the server under test runs in this very
 * process). Only the env given here reaches it, so SERVICE_* from the outside never leak in.
 */
export function runCli(
  args: string[],
  opts: { url?: string; key?: string; input?: string; env?: Record<string, string>; bin?: string; cwd?: string } = {},
): Promise<CliResult> {
  // XDG_STATE_HOME: the CLI remembers the last X-Service-Txid per server there (src/cli/client.ts); not in the real home.
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    XDG_STATE_HOME: CLI_STATE,
    ...opts.env,
  };
  if (opts.url) env.SERVICE_URL = opts.url;
  if (opts.key) env.SERVICE_API_KEY = opts.key;
  return new Promise((resolve, reject) => {
    const child = spawn(opts.bin ?? KSPACE_BIN, args, {
      env,
      cwd: opts.cwd,
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    if (opts.input !== undefined) child.stdin!.end(opts.input);
  });
}

type StdName = 'stdin' | 'stdout' | 'stderr';
let queue: Promise<unknown> = Promise.resolve();

/**
 * `runCli`'s twin for tests about what a command does rather than about the process: the CLI's
 * own entry (src/cli/run.ts) in this process, with its stdin, stdout, stderr, environment (only
 * what `runCli` would give the child) and working directory swapped for the call, so a command
 * costs a request rather than a Node start. Calls run one at a time, as the swaps are global.
 * What needs the process (exit status, bin/kspace, signals, a --follow that never returns) is
 * tested through `runCli`.
 */
export function runCliHere(
  args: string[],
  opts: { url?: string; key?: string; input?: string; env?: Record<string, string>; cwd?: string } = {},
): Promise<CliResult> {
  const next = queue.then(() => runHere(args, opts));
  queue = next.catch(() => undefined);
  return next;
}

async function runHere(
  args: string[],
  opts: { url?: string; key?: string; input?: string; env?: Record<string, string>; cwd?: string },
): Promise<CliResult> {
  const { run } = await import('../../src/cli/run.ts');
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const sink = (to: Buffer[]) =>
    new Writable({
      write(chunk: Buffer | string, _enc, done) {
        to.push(Buffer.from(chunk));
        done();
      },
    });
  const streams: Record<StdName, Readable | Writable> = {
    stdin: Readable.from(opts.input === undefined ? [] : [Buffer.from(opts.input)]),
    stdout: sink(out),
    stderr: sink(err),
  };
  const saved = (['stdin', 'stdout', 'stderr'] as const).map((n) => [n, Object.getOwnPropertyDescriptor(process, n)!] as const);
  // The child's environment: runCli's, and nothing of this process's SERVICE_* settings.
  const env: Record<string, string> = { XDG_STATE_HOME: CLI_STATE, ...opts.env };
  if (opts.url) env.SERVICE_URL = opts.url;
  if (opts.key) env.SERVICE_API_KEY = opts.key;
  const savedEnv = { ...process.env };
  for (const k of Object.keys(process.env)) if (k.startsWith('SERVICE_') || k.startsWith('KSPACE_')) delete process.env[k];
  Object.assign(process.env, env);
  // Whether stdin is piped (src/cli/io.ts) is read from fd 0: a pipe when there is input, else /dev/null as runCli gives.
  const fstat = fs.fstatSync;
  const stdinStat =
    opts.input === undefined ? fs.statSync('/dev/null') : Object.assign(Object.create(fs.Stats.prototype), { mode: fs.constants.S_IFIFO });
  fs.fstatSync = ((fd: number, o?: never) => (fd === 0 ? stdinStat : fstat(fd, o))) as typeof fs.fstatSync;
  const cwd = process.cwd();
  for (const n of ['stdin', 'stdout', 'stderr'] as const)
    Object.defineProperty(process, n, { configurable: true, enumerable: true, get: () => streams[n] });
  let code: number;
  try {
    if (opts.cwd) process.chdir(opts.cwd);
    code = await run(args);
  } catch (e) {
    err.push(Buffer.from(`${e instanceof Error ? e.stack : String(e)}\n`));
    code = 1;
  } finally {
    for (const [n, d] of saved) Object.defineProperty(process, n, d);
    fs.fstatSync = fstat;
    process.chdir(cwd);
    for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
    Object.assign(process.env, savedEnv);
  }
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}

/** `runCliHere` against `srv` (a fixture's server: read at each call) with `key` (default: the admin's). */
export function cliHereFor(srv: { url: string }, key = ADMIN_KEY) {
  return (args: string[], input?: string): Promise<CliResult> => runCliHere(args, { url: srv.url, key, input });
}

/**
 * A command line as a test writes it: the literal text split into words at white space, each
 * `${…}` one argument whole (so `--where ${'stage in todo,doing'}` is two arguments).
 */
export function argv(strings: TemplateStringsArray, ...values: unknown[]): string[] {
  const out: string[] = [];
  strings.forEach((s, i) => {
    out.push(...s.split(/\s+/).filter(Boolean));
    if (i < values.length) out.push(String(values[i]));
  });
  return out;
}
