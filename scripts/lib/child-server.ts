// Starts kspace as a child process (as a user runs it) for crash tests and benchmarks.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { sourceArgs } from './node-flags.ts';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const BENCH_ADMIN_KEY = 'ks_bench_admin_key_0123456789abcdef';

export type ChildServer = {
  url: string;
  port: number;
  proc: ChildProcess;
  stderr: () => string;
  stop(signal?: NodeJS.Signals): Promise<void>;
};

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startChild(dataDir: string, env: Record<string, string> = {}, command?: string[]): Promise<ChildServer> {
  fs.mkdirSync(dataDir, { recursive: true });
  const port = await freePort();
  const argv = command ?? [process.execPath, ...sourceArgs()];
  const proc = spawn(argv[0], [...argv.slice(1), 'serve', '--data', dataDir, '--port', String(port)], {
    // From source, as bin/kspace (and so `npm start`) runs it: two malloc arenas (bin/kspace says why).
    env: {
      ...process.env,
      ...(command ? {} : { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2' }),
      SERVICE_BOOTSTRAP_ADMIN_KEY: BENCH_ADMIN_KEY,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  proc.stderr!.on('data', (d) => (err += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000; // a loaded machine (the benches run beside other work) can take a minute
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited ${proc.exitCode}: ${err}`);
    try {
      const r = await fetch(`${url}/me`, { headers: { authorization: `Bearer ${BENCH_ADMIN_KEY}` } });
      if (r.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not start: ${err}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    url,
    port,
    proc,
    stderr: () => err,
    stop: (signal: NodeJS.Signals = 'SIGTERM') => stopProcess(proc, signal),
  };
}

/**
 * Signals `proc` and resolves once it and its checkpointer helper are gone. The helper outlives a
 * SIGKILLed server by the moment it takes to see its standard input close and shut its
 * connections; removing the data dir meanwhile can fail (ENOTEMPTY: it still writes there).
 */
export async function stopProcess(proc: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const helpers = helperPids(proc.pid!);
  await new Promise<void>((resolve) => {
    proc.once('exit', () => resolve());
    proc.kill(signal);
  });
  const deadline = Date.now() + 10_000;
  while (helpers.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

/** The pids of the checkpointer helpers (`internal-checkpointer`) whose parent is `pid` (Linux /proc). */
export function helperPids(pid: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
        return (
          Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid &&
          fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('internal-checkpointer')
        );
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

/** The helper threads (checkpoints and the full-text index) of server `pid`: thread ids with their nice values (Linux /proc). */
export function helperThreads(pid: number): Array<{ tid: number; nice: number }> {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        if (!stat.includes('(WorkerThread)')) return [];
        return [{ tid: Number(tid), nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) }];
      } catch {
        return []; // gone meanwhile
      }
    });
  } catch {
    return [];
  }
}

/** Peak resident set of a server and its helper processes, if any (the helper was a process until 2026-11-26; now a thread, counted in the server's own). */
export function peakRssAllBytes(pid: number, helpers = helperPids(pid)): number {
  return [pid, ...helpers].reduce((sum, p) => {
    try {
      return sum + peakRssBytes(p);
    } catch {
      return sum; // gone meanwhile
    }
  }, 0);
}

/** Whether `pid` runs (a zombie, exited but not yet reaped, counts as gone). */
export function alive(pid: number): boolean {
  try {
    return !fs.readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

/** Resident set size of a process in bytes (Linux /proc). */
export function rssBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) * 1024 : 0;
}

export function peakRssBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmHWM:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) * 1024 : 0;
}

export const authHeaders = (key = BENCH_ADMIN_KEY) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
