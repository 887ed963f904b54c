import dns from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BlockedAddressError, ResponseTooLargeError, guardedFetch } from '../../src/domain/net/guarded-fetch.ts';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let server: http.Server;
let port: number;
let connections: number;
let seen: Seen[];

// Routes of the local test server; only 127.0.0.1 is ever contacted.
function handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
  seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
  const path = new URL(req.url!, 'http://x').pathname;
  if (path === '/ok') return void res.end('hello');
  if (path === '/echo') {
    res.setHeader('content-type', 'application/json');
    return void res.end(JSON.stringify({ method: req.method, body }));
  }
  if (path === '/bytes') {
    const n = Number(new URL(req.url!, 'http://x').searchParams.get('n'));
    return void res.end(Buffer.alloc(n, 0x61));
  }
  if (path === '/gzip') {
    const packed = gzipSync(Buffer.alloc(1024 * 1024, 0x61));
    res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': packed.length });
    return void res.end(packed);
  }
  if (path === '/redirect') {
    res.writeHead(302, { location: `http://127.0.0.1:${port}/ok` });
    return void res.end();
  }
  if (path === '/slow') return void setTimeout(() => res.end('late'), 3000).unref();
  if (path === '/status/500') {
    res.statusCode = 500;
    return void res.end('boom');
  }
  res.statusCode = 404;
  res.end();
}

beforeEach(async () => {
  connections = 0;
  seen = [];
  server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(parts).toString('utf8')));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterEach(async () => {
  vi.restoreAllMocks();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const base = () => `http://127.0.0.1:${port}`;

/** The next DNS lookup answers 127.0.0.1 (a second one goes to the real resolver). */
function lookupOnceAsLoopback() {
  return vi.spyOn(dns, 'lookup').mockImplementationOnce(((
    _host: string,
    _opts: unknown,
    cb: (err: null, addresses: dns.LookupAddress[]) => void,
  ) => {
    process.nextTick(cb, null, [{ address: '127.0.0.1', family: 4 }]);
  }) as unknown as typeof dns.lookup);
}

describe('guardedFetch: the guard', () => {
  it.each([
    ['127.0.0.1', () => `http://127.0.0.1:${port}/ok`, 'loopback'],
    ['localhost', () => `http://localhost:${port}/ok`, 'loopback'],
    ['[::ffff:127.0.0.1]', () => `http://[::ffff:127.0.0.1]:${port}/ok`, 'loopback'],
    ['2130706433', () => `http://2130706433:${port}/ok`, 'loopback'],
    ['[::1]', () => `http://[::1]:${port}/ok`, 'loopback'],
  ])('blocks %s without connecting', async (_label, url, reason) => {
    const err = await guardedFetch(url(), { timeoutMs: 2000, allowPrivate: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BlockedAddressError);
    expect((err as BlockedAddressError).reason).toBe(reason);
    expect(connections).toBe(0);
    expect(seen).toHaveLength(0);
  });

  it('connects when allowPrivate is set', async () => {
    const res = await guardedFetch(`${base()}/ok`, { timeoutMs: 2000, allowPrivate: true });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('hello');
    expect(connections).toBe(1);
  });

  it('connects to the checked address with one lookup and keeps the Host name', async () => {
    const spy = lookupOnceAsLoopback();
    // `.invalid` never resolves: a second lookup (through the real resolver) would fail the request.
    const res = await guardedFetch(`http://pinned.invalid:${port}/ok`, { timeoutMs: 2000, allowPrivate: true });
    expect(res.status).toBe(200);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(seen[0]!.headers.host).toBe(`pinned.invalid:${port}`);
  });

  it('sends the original hostname as TLS SNI to the pinned address', async () => {
    const tlsServer = net.createServer((socket) => {
      socket.once('data', (hello: Buffer) => {
        helloSeen.push(hello);
        socket.destroy();
      });
    });
    const helloSeen: Buffer[] = [];
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    const tlsPort = (tlsServer.address() as AddressInfo).port;
    lookupOnceAsLoopback();
    try {
      await expect(guardedFetch(`https://hooks.sni-check.invalid:${tlsPort}/`, { timeoutMs: 2000, allowPrivate: true })).rejects.toThrow();
      expect(helloSeen).toHaveLength(1);
      expect(helloSeen[0]![0]).toBe(0x16); // TLS handshake record
      expect(helloSeen[0]!.includes(Buffer.from('hooks.sni-check.invalid'))).toBe(true);
    } finally {
      await new Promise<void>((resolve) => tlsServer.close(() => resolve()));
    }
  });
});

describe('guardedFetch: requests and responses', () => {
  const open = { timeoutMs: 2000, allowPrivate: true };

  it('sends method, headers and body', async () => {
    const res = await guardedFetch(`${base()}/echo`, {
      ...open,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-event': 'page.created' },
      body: '{"a":1}',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(res.body.toString())).toEqual({ method: 'POST', body: '{"a":1}' });
    expect(seen[0]!.headers['x-service-event']).toBe('page.created');
    expect(seen[0]!.headers['content-type']).toBe('application/json');
  });

  it('returns a non-2xx status as is', async () => {
    const res = await guardedFetch(`${base()}/status/500`, open);
    expect(res.status).toBe(500);
    expect(res.body.toString()).toBe('boom');
  });

  it('does not follow redirects', async () => {
    const res = await guardedFetch(`${base()}/redirect`, open);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${base()}/ok`);
    expect(seen.map((s) => s.url)).toEqual(['/redirect']);
  });

  it('enforces the timeout', async () => {
    const started = Date.now();
    const err = await guardedFetch(`${base()}/slow`, { ...open, timeoutMs: 200 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).name).toBe('TimeoutError');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('honours a caller abort signal', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('shutting down')), 100);
    await expect(guardedFetch(`${base()}/slow`, { ...open, timeoutMs: 5000, signal: controller.signal })).rejects.toThrow('shutting down');
  });

  it('fails on a refused connection with a plain error', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const err = await guardedFetch(`http://127.0.0.1:${closedPort}/`, open).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(BlockedAddressError);
  });

  it.each([
    [1000, 1000, 'ok'],
    [1001, 1000, 'too large'],
    [10_000, 1000, 'too large'],
    [0, 0, 'ok'],
  ])('a %i-byte body with maxBytes %i is %s', async (n, maxBytes, expected) => {
    const result = await guardedFetch(`${base()}/bytes?n=${n}`, { ...open, maxBytes }).catch((e: unknown) => e);
    if (expected === 'ok') expect((result as { body: Buffer }).body.length).toBe(n);
    else expect(result).toBeInstanceOf(ResponseTooLargeError);
  });

  it('caps the body after decompression', async () => {
    const packedSize = gzipSync(Buffer.alloc(1024 * 1024, 0x61)).length;
    expect(packedSize).toBeLessThan(10_000);
    const err = await guardedFetch(`${base()}/gzip`, { ...open, maxBytes: 10_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect((err as ResponseTooLargeError).limit).toBe(10_000);
  });

  it('decompresses a gzip body within the cap', async () => {
    const res = await guardedFetch(`${base()}/gzip`, { ...open, maxBytes: 2 * 1024 * 1024 });
    expect(res.body.length).toBe(1024 * 1024);
    expect(res.body[0]).toBe(0x61);
  });

  it.each(['ftp://127.0.0.1/x', 'not a url'])('rejects %s', async (url) => {
    await expect(guardedFetch(url, open)).rejects.toThrow(TypeError);
    expect(connections).toBe(0);
  });
});
