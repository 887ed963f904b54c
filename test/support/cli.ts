import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
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

/** `runCli` against `srv` (a fixture's server: read at each call) with `key` (default: the admin's). */
export function cliFor(srv: { url: string }, key = ADMIN_KEY) {
  return (args: string[], input?: string): Promise<CliResult> => runCli(args, { url: srv.url, key, input });
}
