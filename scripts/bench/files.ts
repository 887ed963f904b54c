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
import { authHeaders, startChild } from '../lib/child-server.ts';
import type { BenchOptions, BenchResult } from '../bench.ts';

const MB = 1024 * 1024;

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bench-files-'));
  const server = await startChild(dir, { SERVICE_MAX_ATTACHMENT_BYTES: String(64 * MB), SERVICE_SPACE_QUOTA_BYTES: '0' });
  const h = authHeaders();
  const agent = new http.Agent({ keepAlive: true });
  const base = new URL(server.url);
  // node:http, not fetch: undici's body handling costs more than the server's work at these
  // sizes (a bare node:http server sends 5 MB bodies to fetch at ~190 MB/s here, to http.get at ~490).
  const req = (method: string, p: string, body?: Buffer | string, headers: Record<string, string> = {}) => new Promise<Buffer>((resolve, reject) => {
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
  try {
    await req('POST', '/spaces', JSON.stringify({ slug: 'bench', name: 'Bench' }), { 'content-type': 'application/json' });
    await req('PUT', '/pages/bench/media', JSON.stringify({ title: 'Media' }), { 'content-type': 'application/json' });
    const pageLatency = async () => {
      const times: number[] = [];
      for (let i = 0; i < 200; i++) {
        const t0 = performance.now();
        await req('PUT', `/pages/bench/notes/n${i % 50}`, JSON.stringify({ title: `n${i}`, content: `text ${i} `.repeat(100) }), { 'content-type': 'application/json' });
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      return times[Math.floor(times.length / 2)];
    };
    const before = await pageLatency();
    const out: BenchResult[] = [];
    for (const [size, count] of [[5 * MB, opts.quick ? 8 : 40], [50 * MB, opts.quick ? 2 : 6]] as const) {
      const files = Array.from({ length: count }, () => randomBytes(size));
      const label = `${size / MB} MB`;
      await req('PUT', `/files/bench/media/warm-${size}.bin`, files[0]); // first use of the tables and the write path
      let t0 = performance.now();
      for (let i = 0; i < count; i++) await req('PUT', `/files/bench/media/f-${size}-${i}.bin`, files[i], { 'content-type': 'application/octet-stream' });
      const up = (size * count) / MB / ((performance.now() - t0) / 1000);
      t0 = performance.now();
      for (let i = 0; i < count; i++) {
        const got = await req('GET', `/files/bench/media/f-${size}-${i}.bin`);
        if (got.length !== size) throw new Error(`download of ${label} file ${i}: ${got.length} bytes`);
      }
      const down = (size * count) / MB / ((performance.now() - t0) / 1000);
      out.push({ name: `attachment upload, ${label} files ×${count}, one at a time`, value: up, unit: 'MB/s', target: '≥ 200', pass: up >= 200 });
      out.push({ name: `attachment download, ${label} files ×${count}, one at a time`, value: down, unit: 'MB/s', target: '≥ 200', pass: down >= 200 });
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
