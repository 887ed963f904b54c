// GET latency while a large export streams (issue 34, M3): a space of `--pages` pages (--quick:
// 20,000) imported in slices, then a page GET over two connections at rest, while one client
// downloads the space as a zip as fast as it can read, and while it downloads it as JSON. The
// export runs on a worker thread (src/domain/bundles/export-thread.ts), so the GETs keep their p99.
// `node scripts/bench.ts --only export-latency [--quick] [--pages N]`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { authHeaders, startChild } from '../lib/child-server.ts';
import { mergeLoads, runRawLoad, type LoadResult } from '../lib/load.ts';
import type { BenchOptions, BenchResult } from '../bench.ts';
import { importSlice } from './bundles.ts';

const SLICE = 10_000;

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const total = opts.quick ? 20_000 : opts.pages;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bench-export-latency-'));
  const server = await startChild(dir, { SERVICE_MAX_IMPORT_BYTES: String(512 * 1024 * 1024), SERVICE_MAX_REQUEST_MS: String(3_600_000) });
  try {
    for (let from = 0; from < total; from += SLICE) await importSlice(server, from, Math.min(SLICE, total - from), total);
    const first = (await (await fetch(`${server.url}/spaces/bench/pages?limit=1`, { headers: authHeaders() })).json()) as {
      pages: Array<{ path: string }>;
    };
    const get = { method: 'GET', path: `/pages/bench/${first.pages[0].path}`, headers: authHeaders() };
    const load = () => runRawLoad(server.url, { connections: 2, total: 1000, next: () => get });
    await load(); // warm-up

    const rest: LoadResult[] = [];
    for (let i = 0; i < 4; i++) rest.push(await load());
    const atRest = mergeLoads(rest);
    const out: BenchResult[] = [
      { name: 'GET p50 at rest (2 connections)', value: atRest.p50, unit: 'ms' },
      { name: 'GET p99 at rest (2 connections)', value: atRest.p99, unit: 'ms' },
    ];
    for (const format of ['zip', 'json'] as const) {
      const during: LoadResult[] = [];
      const t0 = performance.now();
      let done = false;
      const exported = download(server.url, format).finally(() => {
        done = true;
      });
      exported.catch(() => {}); // awaited below, after the loads
      while (!done) during.push(await load());
      const { bytes } = await exported.catch((e: Error) => {
        throw new Error(
          `${format} export: ${e.message}; the server said: ${server
            .stderr()
            .split('\n')
            .filter((l) => /error|warn/i.test(l))
            .slice(-5)
            .join('\n')}`,
        );
      });
      const seconds = (performance.now() - t0) / 1000;
      const meanwhile = mergeLoads(during);
      out.push(
        { name: `${format} export of ${total.toLocaleString('en')} pages, with GETs alongside`, value: total / seconds, unit: 'pages/s' },
        { name: `${format} export: size`, value: bytes / 1024 / 1024, unit: 'MB' },
        { name: `GET p50 during the ${format} export`, value: meanwhile.p50, unit: 'ms' },
        {
          name: `GET p99 during the ${format} export`,
          value: meanwhile.p99,
          unit: 'ms',
          target: '≤ 2× p99 at rest + 5 ms',
          pass: meanwhile.p99 <= 2 * atRest.p99 + 5,
        },
        { name: `GET max during the ${format} export`, value: meanwhile.latencies.at(-1) ?? 0, unit: 'ms' },
        { name: `GETs answered during the ${format} export`, value: meanwhile.requests, unit: 'requests' },
      );
    }
    return out;
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Downloads an export as fast as it arrives, keeping only its size. */
async function download(url: string, format: 'zip' | 'json'): Promise<{ bytes: number }> {
  const r = await fetch(`${url}/spaces/bench/export?format=${format}`, { headers: authHeaders() });
  if (r.status !== 200 || !r.body) throw new Error(`${format} export: ${r.status}`);
  let bytes = 0;
  for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  return { bytes };
}
