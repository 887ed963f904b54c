// Closed-loop HTTP load drivers: `connections` loops, each sending its next request when the
// previous answered. Reports throughput and latency percentiles. runLoad drives undici's Pool;
// runRawLoad writes the requests on plain sockets and reads each answer by its Content-Length.
import net from 'node:net';
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

export type LoadResult = {
  requests: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
  statuses: Record<number, number>;
  /** Every request's latency in milliseconds, sorted. */
  latencies: number[];
};
export type RequestSpec = { method: string; path: string; headers?: Record<string, string>; body?: string };

export async function runLoad(
  url: string,
  opts: { connections: number; total: number; next: (i: number) => RequestSpec },
): Promise<LoadResult> {
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
  const result = loadResult(latencies, start, errors, statuses);
  await pool.close();
  return result;
}

function loadResult(latencies: number[], start: number, errors: number, statuses: Record<number, number>): LoadResult {
  return resultOf(
    latencies.sort((a, b) => a - b),
    (performance.now() - start) / 1000,
    errors,
    statuses,
  );
}

function resultOf(sorted: number[], seconds: number, errors: number, statuses: Record<number, number>): LoadResult {
  return {
    requests: sorted.length,
    seconds,
    perSecond: sorted.length / seconds,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    errors,
    statuses,
    latencies: sorted,
  };
}

/** Loads taken one after another as one: requests and seconds added, percentiles over every latency. */
export function mergeLoads(parts: LoadResult[]): LoadResult {
  const statuses: Record<number, number> = {};
  for (const p of parts) for (const [k, v] of Object.entries(p.statuses)) statuses[Number(k)] = (statuses[Number(k)] ?? 0) + v;
  const sum = (f: (p: LoadResult) => number) => parts.reduce((total, p) => total + f(p), 0);
  return resultOf(
    parts.flatMap((p) => p.latencies).sort((a, b) => a - b),
    sum((p) => p.seconds),
    sum((p) => p.errors),
    statuses,
  );
}

/**
 * Two loads compared on a machine whose speed drifts (by 20–40 % within a minute on the 2-core
 * VMs of docs/performance.md): each is taken in `rounds` parts, in the order A B B A B A A B …, so that
 * both see the same stretches of time; each comes back merged (mergeLoads).
 */
export async function alternate(
  rounds: number,
  a: () => Promise<LoadResult>,
  b: () => Promise<LoadResult>,
): Promise<[LoadResult, LoadResult]> {
  const as: LoadResult[] = [];
  const bs: LoadResult[] = [];
  for (let i = 0; i < rounds; i++) {
    // A first in rounds 0, 3, 4, 7, …: each side goes first as often as the other.
    if (i % 4 === 0 || i % 4 === 3) {
      as.push(await a());
      bs.push(await b());
    } else {
      bs.push(await b());
      as.push(await a());
    }
  }
  return [mergeLoads(as), mergeLoads(bs)];
}

/**
 * The same closed loop as runLoad over plain keep-alive sockets, one per connection: each request
 * is written in one piece and its answer read by Content-Length (none for a 204 or 304), with no
 * parsing beyond the status line. What the client costs per request, measured against the core
 * load (2026-11-27): undici 150 µs a PUT and ~90 a GET, this driver ~45 and ~40; undici's own
 * work (its JIT, its collections) landed in the p99s: the bare node:http floor answered with a p99
 * of 3.3–5.6 ms over undici and 0.55–1.2 ms over this driver. An answer without a Content-Length,
 * or a connection that closes or fails mid-load, rejects the whole load.
 */
export async function runRawLoad(
  url: string,
  opts: { connections: number; total: number; next: (i: number) => RequestSpec },
): Promise<LoadResult> {
  collectGarbage();
  const { hostname, port } = new URL(url);
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let issued = 0;
  let errors = 0;
  const start = performance.now();
  const loop = () =>
    new Promise<void>((resolve, reject) => {
      const socket = net.connect({ host: hostname, port: Number(port), noDelay: true });
      let buf: Buffer = Buffer.alloc(0);
      let sent = 0;
      let waiting = false;
      const fail = (e: Error) => {
        socket.destroy();
        reject(e);
      };
      const send = () => {
        if (issued >= opts.total) {
          socket.end();
          return resolve();
        }
        const spec = opts.next(issued++);
        let head = `${spec.method} ${spec.path} HTTP/1.1\r\nhost: ${hostname}:${port}\r\n`;
        for (const [k, v] of Object.entries(spec.headers ?? {})) head += `${k}: ${v}\r\n`;
        if (spec.body !== undefined) head += `content-length: ${Buffer.byteLength(spec.body)}\r\n`;
        waiting = true;
        sent = performance.now();
        socket.write(`${head}\r\n${spec.body ?? ''}`);
      };
      socket.once('connect', send);
      socket.on('error', fail);
      socket.on('close', () => {
        if (waiting) fail(new Error(`${url}: the connection closed before an answer came`));
      });
      socket.on('data', (chunk: Buffer) => {
        buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
        for (;;) {
          const headEnd = buf.indexOf('\r\n\r\n');
          if (headEnd < 0) return;
          const head = buf.toString('latin1', 0, headEnd);
          const status = Number(head.slice(9, 12));
          const length = /\r\ncontent-length: *(\d+)/i.exec(head);
          if (!length && status !== 204 && status !== 304)
            return fail(new Error(`${url}: an answer without a Content-Length: ${head.split('\r\n')[0]}`));
          const end = headEnd + 4 + (length ? Number(length[1]) : 0);
          if (buf.length < end) return;
          buf = buf.subarray(end);
          latencies.push(performance.now() - sent);
          waiting = false;
          statuses[status] = (statuses[status] ?? 0) + 1;
          if (status >= 400) errors++;
          send();
        }
      });
    });
  await Promise.all(Array.from({ length: opts.connections }, loop));
  return loadResult(latencies, start, errors, statuses);
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
