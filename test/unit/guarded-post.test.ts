// guardedPost: the webhook sender. Same guard and pinning as guardedFetch, on pooled connections.
import dns from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BlockedAddressError, createAgentPool, guardedPost } from '../../src/domain/net/guarded-fetch.ts';

let server: http.Server;
let port: number;
let connections = 0;
const seen: Array<{ url: string; host: string | undefined; body: string }> = [];
const agents = createAgentPool();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      seen.push({ url: req.url!, host: req.headers.host, body: Buffer.concat(parts).toString() });
      if (req.url === '/slow') return void setTimeout(() => res.end(), 2000).unref();
      if (req.url === '/redirect') return void res.writeHead(307, { location: '/ok' }).end();
      if (req.url === '/big') return void res.end(Buffer.alloc(1024 * 1024, 0x61));
      res.end('ok');
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterEach(() => {
  vi.restoreAllMocks();
  seen.length = 0;
});
afterAll(async () => {
  await agents.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const post = (url: string, allowPrivate = true, timeoutMs = 2000) =>
  guardedPost(url, { headers: { 'content-type': 'application/json' }, body: Buffer.from('{"a":1}'), timeoutMs, allowPrivate, agents });

function mockLookup(address: string, family: 4 | 6 = 4) {
  return vi.spyOn(dns, 'lookup').mockImplementation(((_h: string, _o: unknown, cb: (e: null, a: dns.LookupAddress[]) => void) => {
    process.nextTick(cb, null, [{ address, family }]);
  }) as unknown as typeof dns.lookup);
}

describe('guardedPost', () => {
  it.each([
    [() => `http://127.0.0.1:${port}/ok`, 'loopback'],
    [() => `http://localhost:${port}/ok`, 'loopback'],
    [() => `http://[::ffff:127.0.0.1]:${port}/ok`, 'loopback'],
    [() => `http://0x7f.1:${port}/ok`, 'loopback'],
  ])('blocks %s without connecting', async (url, reason) => {
    const before = connections;
    const err = await post(url(), false).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BlockedAddressError);
    expect((err as BlockedAddressError).reason).toBe(reason);
    expect(connections).toBe(before);
  });

  it('blocks a name when any of its addresses is guarded', async () => {
    vi.spyOn(dns, 'lookup').mockImplementation(((_h: string, _o: unknown, cb: (e: null, a: dns.LookupAddress[]) => void) => {
      process.nextTick(cb, null, [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.5', family: 4 },
      ]);
    }) as unknown as typeof dns.lookup);
    await expect(post('http://mixed.invalid/ok', false)).rejects.toBeInstanceOf(BlockedAddressError);
  });

  it('posts the body, keeps the Host name, looks up once per call and reuses the connection', async () => {
    const spy = mockLookup('127.0.0.1');
    const before = connections;
    for (let i = 0; i < 6; i++) expect(await post(`http://pinned.invalid:${port}/ok`)).toEqual({ status: 200 });
    expect(spy).toHaveBeenCalledTimes(6);
    expect(seen.map((s) => [s.url, s.host, s.body])).toEqual(Array(6).fill(['/ok', `pinned.invalid:${port}`, '{"a":1}']));
    // Kept alive: undici may open a second socket while the first is being released, not six.
    expect(connections - before).toBeLessThanOrEqual(2);
  });

  it('returns a redirect as is, without following it', async () => {
    expect(await post(`http://127.0.0.1:${port}/redirect`)).toEqual({ status: 307 });
    expect(seen.map((s) => s.url)).toEqual(['/redirect']);
  });

  it('drops a large answer and still reports the status', async () => {
    expect(await post(`http://127.0.0.1:${port}/big`)).toEqual({ status: 200 });
  });

  it('times out with a TimeoutError', async () => {
    const err = await post(`http://127.0.0.1:${port}/slow`, true, 200).catch((e: unknown) => e);
    expect((err as Error).name).toBe('TimeoutError');
  });

  it('sends the hostname as TLS SNI to the pinned address', async () => {
    const hellos: Buffer[] = [];
    const tls = net.createServer((s) =>
      s.once('data', (d: Buffer) => {
        hellos.push(d);
        s.destroy();
      }),
    );
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    mockLookup('127.0.0.1');
    try {
      await expect(post(`https://hooks.sni-check.invalid:${(tls.address() as AddressInfo).port}/`)).rejects.toThrow();
      expect(hellos[0]!.includes(Buffer.from('hooks.sni-check.invalid'))).toBe(true);
    } finally {
      await new Promise<void>((resolve) => tls.close(() => resolve()));
    }
  });
});
