// The real Litestream (v0.3.13, from the npm package @flydotio/litestream-linux-x64, a
// devDependency) for the tests and the replica bench: `litestream replicate` of a kspace.db to a
// file replica in a local directory, never a network one.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, stopProcess } from './child-server.ts';

export const LITESTREAM_BIN = path.join(ROOT, 'node_modules/@flydotio/litestream-linux-x64/litestream');

export type Litestream = { proc: ChildProcess; config: string; log: () => string; stop(signal?: NodeJS.Signals): Promise<void> };

/**
 * Starts `litestream replicate` of `dbFile` to the directory `replicaDir` (a file replica) with
 * `sync-interval` `syncS` seconds; resolves once it replicates. Its configuration file is written
 * beside the replica directory.
 */
export async function startLitestream(dbFile: string, replicaDir: string, syncS = 1): Promise<Litestream> {
  fs.mkdirSync(replicaDir, { recursive: true });
  const config = `${replicaDir}.yml`;
  fs.writeFileSync(
    config,
    [
      'dbs:',
      `  - path: ${JSON.stringify(dbFile)}`,
      '    replicas:',
      '      - type: file',
      `        path: ${JSON.stringify(replicaDir)}`,
      `        sync-interval: ${syncS}s`,
      '',
    ].join('\n'),
  );
  const proc = spawn(LITESTREAM_BIN, ['replicate', '-config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + 60_000;
  while (!out.includes('replicating to')) {
    if (proc.exitCode !== null) throw new Error(`litestream exited ${proc.exitCode}: ${out}`);
    if (Date.now() > deadline) throw new Error(`litestream did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return { proc, config, log: () => out, stop: (signal: NodeJS.Signals = 'SIGTERM') => stopProcess(proc, signal) };
}

/** The generations a file replica holds. */
export function generationsOf(replicaDir: string): string[] {
  try {
    return fs.readdirSync(path.join(replicaDir, 'generations'));
  } catch {
    return [];
  }
}

/**
 * Every file of a file replica with its modification time and size, one a line: what Litestream
 * 0.3 takes a snapshot's or a WAL segment's time from when it picks a generation for a timestamp.
 */
export function replicaFiles(replicaDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const st = fs.statSync(p);
        out.push(`${path.relative(replicaDir, p)} ${st.mtime.toISOString()} ${st.size}`);
      }
    }
  };
  try {
    walk(replicaDir);
  } catch {
    // no replica yet
  }
  return out;
}

/**
 * The modification time (ms) of the newest WAL segment or snapshot in a file replica (0 when none).
 * A `.tmp` file is one Litestream is still writing: it is not shipped until renamed, and a restore
 * does not see it.
 */
export function lastShippedMs(replicaDir: string): number {
  let newest = 0;
  for (const g of generationsOf(replicaDir)) {
    for (const sub of ['wal', 'snapshots']) {
      const dir = path.join(replicaDir, 'generations', g, sub);
      let names: string[];
      try {
        names = fs.readdirSync(dir);
      } catch {
        continue;
      }
      for (const n of names) {
        if (n.endsWith('.tmp')) continue;
        try {
          newest = Math.max(newest, fs.statSync(path.join(dir, n)).mtimeMs);
        } catch {
          // renamed or removed (retention) between the listing and the stat
        }
      }
    }
  }
  return newest;
}

/** Waits until the replica holds a segment written after `afterMs` (what was committed before it is shipped). */
export async function waitShipped(replicaDir: string, afterMs: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (lastShippedMs(replicaDir) <= afterMs) {
    if (Date.now() > deadline) throw new Error(`litestream shipped nothing after ${new Date(afterMs).toISOString()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
