// The benchmarks' raw load driver (scripts/lib/load.ts runRawLoad) against a real node:http server:
// what it counts is what the server saw and answered, and it fails loudly where it cannot read.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { alternate, mergeLoads, runRawLoad, type LoadResult } from '../../scripts/lib/load.ts';

let server: http.Server | null = null;

async function serve(handler: http.RequestListener): Promise<string> {
  server = http.createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((resolve) => server!.close(resolve));
  server = null;
});

describe('runRawLoad', () => {
  it('sends every request once, with its method, headers and body, and tallies the answers', async () => {
    const seen: string[] = [];
    const url = await serve((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push(`${req.method} ${req.url} ${req.headers['x-n']} ${body}`);
        const n = Number(req.headers['x-n']);
        if (n % 5 === 0) return res.writeHead(304).end();
        // Headers set, not passed to writeHead, so that Node adds the Content-Length at end().
        res.statusCode = n % 7 === 0 ? 404 : 200;
        res.setHeader('content-type', 'text/plain; charset=utf-8');
        res.end(n % 7 === 0 ? 'not here' : `${n} ${body}`);
      });
    });
    const total = 350;
    const r = await runRawLoad(url, {
      connections: 4,
      total,
      next: (i) =>
        i % 2
          ? { method: 'PUT', path: `/p/${i}`, headers: { 'x-n': String(i) }, body: `body ${i} ✓` }
          : { method: 'GET', path: `/p/${i}`, headers: { 'x-n': String(i) } },
    });
    const expected = Array.from({ length: total }, (_, i) => `${i % 2 ? 'PUT' : 'GET'} /p/${i} ${i} ${i % 2 ? `body ${i} ✓` : ''}`);
    expect(seen.sort()).toEqual(expected.sort());
    const notModified = expected.filter((_, i) => i % 5 === 0).length;
    const missing = expected.filter((_, i) => i % 5 !== 0 && i % 7 === 0).length;
    expect(r.requests).toBe(total);
    expect(r.statuses).toEqual({ 200: total - notModified - missing, 304: notModified, 404: missing });
    expect(r.errors).toBe(missing);
    expect(r.p50).toBeGreaterThan(0);
    expect(r.p99).toBeGreaterThanOrEqual(r.p50);
    expect(r.perSecond).toBeCloseTo(total / r.seconds, 5);
  });

  it('waits for an answer that arrives in pieces, and times it to its last byte', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': '10' });
      res.flushHeaders();
      res.write('01234');
      setTimeout(() => res.end('56789'), 30);
    });
    const r = await runRawLoad(url, { connections: 2, total: 4, next: () => ({ method: 'GET', path: '/' }) });
    expect(r.statuses).toEqual({ 200: 4 });
    expect(r.p50).toBeGreaterThanOrEqual(25);
  });

  it('rejects an answer it cannot delimit (no Content-Length)', async () => {
    const url = await serve((_req, res) => {
      res.write('chunked');
      res.end();
    });
    await expect(runRawLoad(url, { connections: 1, total: 3, next: () => ({ method: 'GET', path: '/' }) })).rejects.toThrow(
      /without a Content-Length/,
    );
  });

  it('rejects when the server drops a connection before answering', async () => {
    const url = await serve((req) => req.socket.destroy());
    await expect(runRawLoad(url, { connections: 2, total: 4, next: () => ({ method: 'GET', path: '/' }) })).rejects.toThrow(
      /closed before an answer/,
    );
  });
});

describe('alternate and mergeLoads', () => {
  const part = (latencies: number[], seconds: number, statuses: Record<number, number>, errors = 0): LoadResult => ({
    requests: latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    p50: NaN,
    p99: NaN,
    errors,
    statuses,
    latencies: [...latencies].sort((a, b) => a - b),
  });

  it('merges parts: requests and seconds added, statuses and errors summed, percentiles over every latency', () => {
    const slow = Array.from({ length: 10 }, () => 50);
    const fast = Array.from({ length: 990 }, (_, i) => 1 + i / 1000);
    const m = mergeLoads([part(fast.slice(0, 500), 1, { 200: 500 }), part([...fast.slice(500), ...slow], 3, { 200: 480, 404: 20 }, 20)]);
    expect(m.requests).toBe(1000);
    expect(m.seconds).toBe(4);
    expect(m.perSecond).toBe(250);
    expect(m.statuses).toEqual({ 200: 980, 404: 20 });
    expect(m.errors).toBe(20);
    // 10 of 1,000 at 50 ms, all in the second part: the 99th percentile of every latency is 50 ms
    // (the mean of the two parts' own p99s would say ~26).
    expect(m.p99).toBe(50);
    expect(m.p50).toBeCloseTo(1.5, 2);
    expect(m.latencies).toHaveLength(1000);
  });

  it('takes each load in parts, A B B A B A A B, and merges each side', async () => {
    const order: string[] = [];
    const load = (name: string, ms: number) => async () => {
      order.push(name);
      return part([ms], 1, { 200: 1 });
    };
    const [a, b] = await alternate(8, load('a', 1), load('b', 2));
    expect(order.join('')).toBe('abbabaababbabaab');
    expect([a.requests, a.seconds, a.p99, b.requests, b.p99]).toEqual([8, 8, 1, 8, 2]);
  });
});
