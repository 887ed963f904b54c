// `kspace sync` figures (issue 38): the first sync of a 10,000-note folder into an empty space, and
// of that space into an empty folder; then, with a sync following, how long an edit of a file takes
// to reach the server and an edit on the server to reach the disk (p50, p99 of 40 each).
// `node scripts/bench.ts --only sync [--quick]`.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BENCH_ADMIN_KEY, authHeaders, startChild } from '../lib/child-server.ts';
import { sourceArgs } from '../lib/node-flags.ts';
import type { BenchOptions, BenchResult } from '../bench.ts';
import { writeVault } from './folder-import.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

function cli(url: string, args: string[], stdout: 'ignore' | 'pipe' = 'ignore'): ChildProcess {
  return spawn(process.execPath, [...sourceArgs(), ...args], {
    env: { ...process.env, SERVICE_URL: url, SERVICE_API_KEY: BENCH_ADMIN_KEY },
    stdio: ['ignore', process.env.BENCH_SYNC_DEBUG ? 'inherit' : stdout, 'pipe'],
  });
}
async function once(url: string, dir: string, space: string): Promise<number> {
  const t0 = performance.now();
  const child = cli(url, ['sync', dir, '--space', space, '--once']);
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const code = await new Promise<number>((r) => child.on('close', (c) => r(c ?? -1)));
  if (code !== 0) throw new Error(`sync: exit ${code} ${err}`);
  return (performance.now() - t0) / 1000;
}

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const notes = opts.quick ? 2000 : 10_000;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bench-sync-'));
  const server = await startChild(path.join(dir, 'data'), { SERVICE_MAX_IMPORT_BYTES: String(256 * 1024 * 1024) });
  const api = (p: string, init: RequestInit = {}) =>
    fetch(`${server.url}${p}`, { ...init, headers: { ...authHeaders(), 'content-type': 'application/json' } });
  let follower: ChildProcess | null = null;
  try {
    await api('/spaces', { method: 'POST', body: JSON.stringify({ slug: 'vault', name: 'Vault' }) });
    const vault = path.join(dir, 'vault');
    writeVault(vault, notes);
    const up = await once(server.url, vault, 'vault');
    const copy = path.join(dir, 'copy');
    const down = await once(server.url, copy, 'vault');

    // Timed while following: from the end of the follower's first round (its first line), which
    // reads the state and scans the whole folder once.
    const f = cli(server.url, ['sync', vault, '--space', 'vault', '--interval', '500'], 'pipe');
    follower = f;
    const t0 = performance.now();
    await new Promise<void>((resolve, reject) => {
      f.stdout?.once('data', () => resolve());
      f.once('close', (c) => reject(new Error(`the follower exited (${c})`)));
      if (!f.stdout) setTimeout(resolve, 3000); // BENCH_SYNC_DEBUG: its output is on the terminal
    });
    const started = performance.now() - t0;
    f.stdout?.resume(); // the lines of later rounds, not read
    await sleep(500);
    const toServer: number[] = [];
    const toDisk: number[] = [];
    const file = path.join(vault, 'Inbox', 'Note 6.md');
    for (let i = 0; i < 40; i++) {
      const mark = `disk edit ${i}`;
      fs.appendFileSync(file, `\n${mark}\n`);
      const t0 = performance.now();
      for (;;) {
        const p = (await (await api('/pages/vault/Inbox/Note%206')).json()) as { content: string };
        if (p.content.includes(mark)) break;
        if (performance.now() - t0 > 20_000) throw new Error('a file edit did not reach the server in 20 s');
        await sleep(10);
      }
      toServer.push(performance.now() - t0);
    }
    for (let i = 0; i < 40; i++) {
      const p = (await (await api('/pages/vault/Daily/Note%202')).json()) as {
        title: string;
        content: string;
        version: number;
        metadata: unknown;
      };
      const mark = `server edit ${i}`;
      const t0 = performance.now();
      await api('/pages/vault/Daily/Note%202', {
        method: 'PUT',
        body: JSON.stringify({ title: p.title, content: `${p.content}\n${mark}\n`, metadata: p.metadata, baseVersion: p.version }),
      });
      while (!fs.readFileSync(path.join(vault, 'Daily', 'Note 2.md'), 'utf8').includes(mark)) {
        if (performance.now() - t0 > 20_000) throw new Error('a server edit did not reach the disk in 20 s');
        await sleep(10);
      }
      toDisk.push(performance.now() - t0);
    }
    return [
      { name: 'kspace sync --interval 500: start to the end of its first round (following)', value: started, unit: 'ms' },
      {
        name: `kspace sync: first sync of a ${notes.toLocaleString('en')}-note folder into an empty space`,
        value: up,
        unit: 's',
        target: '≤ 15',
        pass: up <= 15,
      },
      { name: `kspace sync: first sync of that space into an empty folder`, value: down, unit: 's', target: '≤ 15', pass: down <= 15 },
      { name: 'kspace sync (following, --interval 500): a file edit reaching the server, p50', value: pct(toServer, 50), unit: 'ms' },
      {
        name: 'kspace sync: a file edit reaching the server, p99',
        value: pct(toServer, 99),
        unit: 'ms',
        target: '≤ 2,000',
        pass: pct(toServer, 99) <= 2000,
      },
      { name: 'kspace sync: a server edit reaching the disk, p50', value: pct(toDisk, 50), unit: 'ms' },
      {
        name: 'kspace sync: a server edit reaching the disk, p99',
        value: pct(toDisk, 99),
        unit: 'ms',
        target: '≤ 2,000',
        pass: pct(toDisk, 99) <= 2000,
      },
    ];
  } finally {
    follower?.kill('SIGTERM');
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
