// Attachment figures (issue 21): upload and download throughput over loopback for 5 MB and
// 50 MB files (distinct random bytes, so nothing is deduplicated), one request at a time, against
// a child server with its checkpointer; and a small page write's latency before and after the
// database holds those blobs (they live in their own tables: page work should not notice).
// `node scripts/bench.ts --only files`.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { authHeaders, freePort, ROOT, startChild, stopProcess } from '../lib/child-server.ts';
import type { BenchOptions, BenchResult } from '../bench.ts';
import { measureStorage } from './blob-storage.ts';

const MB = 1024 * 1024;

type Req = (method: string, p: string, body?: Buffer | string, headers?: Record<string, string>) => Promise<Buffer>;

function client(url: string, h: Record<string, string>, agent: http.Agent): Req {
  const base = new URL(url);
  // node:http, not fetch: undici's body handling costs more than the server's work at these
  // sizes (a bare node:http server sends 5 MB bodies to fetch at ~190 MB/s here, to http.get at ~490).
  return (method, p, body, headers = {}) =>
    new Promise<Buffer>((resolve, reject) => {
      const r = http.request({ host: base.hostname, port: base.port, path: p, method, agent, headers: { ...h, ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          if ((res.statusCode ?? 0) >= 300) reject(new Error(`${method} ${p}: ${res.statusCode} ${bytes.toString().slice(0, 300)}`));
          else resolve(bytes);
        });
        res.on('error', reject);
      });
      r.on('error', reject);
      r.end(body);
    });
}

/** Upload then download `count` files of `size` random bytes, one at a time: MB/s each way. */
async function rates(req: Req, size: number, count: number, at: (i: number) => string): Promise<{ up: number; down: number }> {
  const files = Array.from({ length: count }, () => randomBytes(size));
  // Steady state, as the core section's 1,000 untimed PUTs: 50 MB of untimed uploads under other
  // names take the cold code and the WAL file's first growth (a fresh server's first ~50 MB of
  // 5 MB files went in at 178 MB/s, the next 200 MB at 241–265 MB/s, in one probe). The floor
  // gets the same.
  const warm = Math.max(1, Math.round((50 * MB) / size));
  // Bytes of their own: the timed files must not be deduplicated against them.
  for (let i = 0; i < warm; i++) await req('PUT', at(-1 - i), randomBytes(size), { 'content-type': 'application/octet-stream' });
  let t0 = performance.now();
  for (let i = 0; i < count; i++) await req('PUT', at(i), files[i], { 'content-type': 'application/octet-stream' });
  const up = (size * count) / MB / ((performance.now() - t0) / 1000);
  t0 = performance.now();
  for (let i = 0; i < count; i++) {
    const got = await req('GET', at(i));
    if (got.length !== size) throw new Error(`download of ${at(i)}: ${got.length} bytes, not ${size}`);
  }
  return { up, down: (size * count) / MB / ((performance.now() - t0) / 1000) };
}

/** The same transfers against a bare node:http server that keeps the bodies in memory. */
async function floor(size: number, count: number): Promise<{ up: number; down: number }> {
  const port = await freePort();
  const proc = spawn(process.execPath, [path.join(ROOT, 'scripts/bench/blob-floor-server.ts'), String(port)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => proc.stdout!.once('data', () => resolve()));
  const agent = new http.Agent({ keepAlive: true });
  try {
    return await rates(client(`http://127.0.0.1:${port}`, {}, agent), size, count, (i) => `/f${i}`);
  } finally {
    agent.destroy();
    await stopProcess(proc);
  }
}

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bench-files-'));
  const server = await startChild(dir, { SERVICE_MAX_ATTACHMENT_BYTES: String(64 * MB), SERVICE_SPACE_QUOTA_BYTES: '0' });
  const agent = new http.Agent({ keepAlive: true });
  const req = client(server.url, authHeaders(), agent);
  try {
    await req('POST', '/spaces', JSON.stringify({ slug: 'bench', name: 'Bench' }), { 'content-type': 'application/json' });
    await req('PUT', '/pages/bench/media', JSON.stringify({ title: 'Media' }), { 'content-type': 'application/json' });
    const pageLatency = async () => {
      const times: number[] = [];
      for (let i = 0; i < 200; i++) {
        const t0 = performance.now();
        await req('PUT', `/pages/bench/notes/n${i % 50}`, JSON.stringify({ title: `n${i}`, content: `text ${i} `.repeat(100) }), {
          'content-type': 'application/json',
        });
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      return times[Math.floor(times.length / 2)];
    };
    const before = await pageLatency();
    const out: BenchResult[] = [];
    for (const [size, count] of [
      [5 * MB, opts.quick ? 8 : 40],
      [50 * MB, opts.quick ? 2 : 6],
    ] as const) {
      const label = `${size / MB} MB files ×${count}, one at a time`;
      const k = await rates(req, size, count, (i) => `/files/bench/media/f-${size}-${i}.bin`);
      const f = await floor(size, count);
      out.push({ name: `attachment upload, ${label}`, value: k.up, unit: 'MB/s', target: '≥ 200', pass: k.up >= 200 });
      out.push({ name: `attachment download, ${label}`, value: k.down, unit: 'MB/s', target: '≥ 200', pass: k.down >= 200 });
      out.push({ name: `  floor: a bare node:http server keeping the bodies in memory, upload`, value: f.up, unit: 'MB/s' });
      out.push({ name: `  floor: the same, download`, value: f.down, unit: 'MB/s' });
    }
    for (const [size, count] of [
      [5 * MB, opts.quick ? 8 : 20],
      [50 * MB, opts.quick ? 2 : 4],
    ] as const) {
      const st = measureStorage(size, count);
      const label = `${size / MB} MB ×${count}`;
      out.push({ name: `storage only, ${label}: SQLite blobs (1 MiB chunks) write`, value: st.sqliteWrite, unit: 'MB/s' });
      out.push({ name: `storage only, ${label}: SQLite blobs read (mmap, checkpointed)`, value: st.sqliteRead, unit: 'MB/s' });
      out.push({ name: `storage only, ${label}: files write + fsync + rename`, value: st.fileWrite, unit: 'MB/s' });
      out.push({ name: `storage only, ${label}: files read`, value: st.fileRead, unit: 'MB/s' });
    }
    const after = await pageLatency();
    const dbMb = fs.statSync(path.join(dir, 'kspace.db')).size / MB;
    out.push({ name: 'page PUT median latency, empty database', value: before, unit: 'ms' });
    out.push({ name: `page PUT median latency, with ${Math.round(dbMb)} MB of attachments in kspace.db`, value: after, unit: 'ms' });
    return out;
  } finally {
    agent.destroy();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
