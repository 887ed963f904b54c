// A small closed-loop HTTP load driver over undici: `connections` loops, each sending its next
// request when the previous answered. Reports throughput and latency percentiles.
import v8 from 'node:v8';
import vm from 'node:vm';
import { Pool } from 'undici';

// A full collection of the load generator's own heap before each timed load, so that the garbage
// of an earlier phase (the in-process raw SQLite floor, the 40,000 requests of the HTTP floor) is
// not collected during the next one, where the collector's pauses and marking threads, on the
// same two cores as the server, would land on the latencies measured. Node exposes gc() only
// behind a flag, so it is taken from a fresh context after setting the flag.
v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

export type LoadResult = { requests: number; seconds: number; perSecond: number; p50: number; p99: number; errors: number; statuses: Record<number, number> };
export type RequestSpec = { method: string; path: string; headers?: Record<string, string>; body?: string };

export async function runLoad(url: string, opts: { connections: number; total: number; next: (i: number) => RequestSpec }): Promise<LoadResult> {
  collectGarbage();
  const pool = new Pool(url, { connections: opts.connections, pipelining: 1 });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let issued = 0;
  let errors = 0;
  const start = performance.now();
  const loop = async () => {
    while (issued < opts.total) {
      const spec = opts.next(issued++);
      const t0 = performance.now();
      try {
        const r = await pool.request({ method: spec.method as 'GET', path: spec.path, headers: spec.headers, body: spec.body });
        await r.body.dump();
        statuses[r.statusCode] = (statuses[r.statusCode] ?? 0) + 1;
        if (r.statusCode >= 400) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: opts.connections }, loop));
  const seconds = (performance.now() - start) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length, seconds, perSecond: latencies.length / seconds,
    p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), errors, statuses,
  };
}

export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** p50/p99 of `n` sequential timed calls, in milliseconds. */
export async function timeCalls(n: number, fn: (i: number) => Promise<unknown> | unknown): Promise<{ p50: number; p99: number }> {
  const t: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    t.push(performance.now() - t0);
  }
  t.sort((a, b) => a - b);
  return { p50: percentile(t, 0.5), p99: percentile(t, 0.99) };
}
