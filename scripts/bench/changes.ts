// Change feed figures (issue 38): commit to event at an SSE client, p50 and p99, with N open
// streams of GET /changes/stream and 50 page writes a second; and the server's RSS growth for
// the N streams while idle. The latency is the client's clock at the event minus the change's
// `at` (the write's clock inside its transaction, just before COMMIT; same machine, same clock).
// `node scripts/bench.ts --only changes` (--quick: 200 streams instead of 1,000).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { BENCH_ADMIN_KEY, freePort, rssBytes, startChild, stopProcess } from '../lib/child-server.ts';
import { percentile } from '../lib/load.ts';
import type { BenchOptions, BenchResult } from '../bench.ts';

const WRITES_PER_S = 50;

/** Opens `n` streams to `port` (each on its own connection) and resolves when each has begun; they stay open. */
async function openStreams(
  port: number,
  pathAndQuery: string,
  headers: Record<string, string>,
  n: number,
  open: http.ClientRequest[],
  onData?: (chunk: string) => void,
): Promise<void> {
  await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<void>((resolve, reject) => {
          const req = http.get({ host: '127.0.0.1', port, path: pathAndQuery, headers, agent: false }, (res) => {
            if (res.statusCode !== 200) return reject(new Error(`stream: ${res.statusCode}`));
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => onData?.(chunk));
            resolve();
          });
          req.on('error', reject);
          open.push(req);
        }),
    ),
  );
}

/** The RSS growth (MB) of a bare node:http server (sse-floor-server.ts) for `n` idle streams. */
async function floorGrowthMb(n: number): Promise<number> {
  const port = await freePort();
  const proc = spawn(process.execPath, [path.join(import.meta.dirname, 'sse-floor-server.ts'), String(port)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const open: http.ClientRequest[] = [];
  try {
    await new Promise((resolve, reject) => {
      proc.stdout!.once('data', resolve);
      proc.once('exit', (code) => reject(new Error(`the floor server exited (${code}) before it was ready`)));
    });
    await new Promise((r) => setTimeout(r, 500));
    const before = rssBytes(proc.pid!);
    await openStreams(port, '/', {}, n, open);
    await new Promise((r) => setTimeout(r, 2000));
    return (rssBytes(proc.pid!) - before) / 1024 / 1024;
  } finally {
    for (const r of open) r.destroy();
    await stopProcess(proc);
  }
}

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const streams = opts.quick ? 200 : 1000;
  const seconds = opts.quick ? 5 : 10;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bench-changes-'));
  const server = await startChild(dir, {
    SERVICE_CHANGES_MAX_STREAMS: String(streams + 10),
    SERVICE_MAX_CONNECTIONS_PER_ADDRESS: '0',
    SERVICE_RATE_LIMIT_PER_IP: '0',
  });
  const url = new URL(server.url);
  const open: http.ClientRequest[] = [];
  const latencies: number[] = [];
  let measuring = false;
  try {
    const auth = { authorization: `Bearer ${BENCH_ADMIN_KEY}` };
    const put = (p: string, body: object) =>
      fetch(`${server.url}/pages/bench/${p}`, {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    await fetch(`${server.url}/spaces`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'bench', name: 'Bench' }),
    });
    for (let i = 0; i < 50; i++) await put(`p${i}`, { title: `P${i}`, content: 'x' });
    await new Promise((r) => setTimeout(r, 1000));
    const rssBefore = rssBytes(server.proc.pid!);
    const since = Number((await put('p0', { content: 'start' })).headers.get('x-service-txid'));
    // N streams, each on its own connection; each event's `at` read where it arrives.
    await openStreams(Number(url.port), `/changes/stream?since=${since}`, auth, streams, open, (chunk) => {
      if (!measuring) return;
      const now = Date.now();
      for (const m of chunk.matchAll(/"at":"([^"]+)"/g)) latencies.push(now - Date.parse(m[1]));
    });
    await new Promise((r) => setTimeout(r, 2000));
    const rssIdle = rssBytes(server.proc.pid!);
    measuring = true;
    const total = WRITES_PER_S * seconds;
    const t0 = performance.now();
    const writes: Array<Promise<Response>> = [];
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / WRITES_PER_S;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      writes.push(put(`p${i % 50}`, { content: `write ${i}` }));
    }
    await Promise.all(writes);
    await new Promise((r) => setTimeout(r, 2000));
    measuring = false;
    const sorted = latencies.sort((a, b) => a - b);
    const expected = total * streams;
    const p50 = percentile(sorted, 0.5);
    const p99 = percentile(sorted, 0.99);
    const growthMb = (rssIdle - rssBefore) / 1024 / 1024;
    return [
      {
        name: `commit to event at an SSE client, p50 (${streams} streams, ${WRITES_PER_S} writes/s, ${sorted.length}/${expected} events)`,
        value: p50,
        unit: 'ms',
      },
      {
        name: `commit to event at an SSE client, p99 (${streams} streams, ${WRITES_PER_S} writes/s)`,
        value: p99,
        unit: 'ms',
        target: '≤ 100',
        pass: p99 <= 100,
      },
      {
        name: `server RSS growth for ${streams} idle streams`,
        value: Math.round(growthMb * 10) / 10,
        unit: 'MB',
        target: streams >= 1000 ? '≤ 20' : undefined,
        pass: streams >= 1000 ? growthMb <= 20 : undefined,
      },
      {
        name: `floor: a bare node:http server's RSS growth for ${streams} idle event streams`,
        value: Math.round((await floorGrowthMb(streams)) * 10) / 10,
        unit: 'MB',
      },
    ];
  } finally {
    for (const r of open) r.destroy();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
