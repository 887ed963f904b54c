import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { ADMIN_KEY, client, withServer, type TestServer } from '../support/server.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A raw connection that sends `head` and then holds the request open. */
function openRaw(url: string, head: string): Promise<{ socket: net.Socket; received: () => string; closed: Promise<number> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(head);
      const started = Date.now();
      resolve({ socket, received: () => data, closed: new Promise((r) => socket.once('close', () => r(Date.now() - started))) });
    });
    let data = '';
    socket.on('data', (d) => (data += d));
    socket.on('error', () => {});
  });
}

describe('rate limits', () => {
  it('per key: 429 problem+json with Retry-After past the burst, then recovery', async () => {
    await withServer({ SERVICE_RATE_LIMIT_PER_KEY: '2/4' }, async (srv) => {
      const statuses: number[] = [];
      let limited;
      for (let i = 0; i < 6; i++) {
        const r = await srv.admin.get('/me');
        statuses.push(r.status);
        if (r.status === 429) limited = r;
      }
      expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 200]);
      expect(statuses.slice(4)).toContain(429);
      expect(limited!.headers.get('content-type')).toBe('application/problem+json');
      expect(limited!.body).toMatchObject({ status: 429, code: 'too_many_requests', detail: 'too many requests with this API key' });
      const wait = Number(limited!.headers.get('retry-after'));
      expect(wait).toBeGreaterThanOrEqual(1);
      await sleep(wait * 1000);
      expect((await srv.admin.get('/me')).status).toBe(200);
    });
  });

  it('per key: counts one key however Authorization spells it (scheme case, extra spaces)', async () => {
    await withServer({ SERVICE_RATE_LIMIT_PER_KEY: '2/4' }, async (srv) => {
      const anon = client(srv.url);
      const spellings = [
        `Bearer ${ADMIN_KEY}`,
        `bearer ${ADMIN_KEY}`,
        `BEARER ${ADMIN_KEY}`,
        `Bearer  ${ADMIN_KEY}`,
        `Bearer\t${ADMIN_KEY} `,
        `bEaReR ${ADMIN_KEY}`,
      ];
      const statuses: number[] = [];
      for (const authorization of spellings) statuses.push((await anon.get('/me', { authorization })).status);
      expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 200]);
      expect(statuses.slice(4)).toContain(429);
    });
  });

  it('per address: behind a trusted proxy the X-Forwarded-For client is limited, others are not; loopback is exempt otherwise', async () => {
    await withServer({ SERVICE_RATE_LIMIT_PER_IP: '1/3', SERVICE_TRUST_PROXY: '1' }, async (srv) => {
      const from = (ip: string) => srv.admin.get('/me', { 'x-forwarded-for': `198.51.100.1, ${ip}` });
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await from('203.0.113.9')).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      expect((await from('203.0.113.10')).status).toBe(200);
    });
    await withServer({ SERVICE_RATE_LIMIT_PER_IP: '1/1' }, async (local) => {
      for (let i = 0; i < 5; i++) expect((await local.admin.get('/me')).status).toBe(200);
    });
  });

  it('caps the requests one key has in progress at once', async () => {
    await withServer({ SERVICE_MAX_CONCURRENT_PER_KEY: '1' }, async (srv) => {
      const held = await openSlowPut(srv, 'c');
      await sleep(100);
      const second = await srv.admin.get('/me');
      expect(second.status).toBe(429);
      expect(second.body.detail).toBe('more than 1 requests in progress with this API key');
      expect((await client(srv.url).get('/healthz')).status).toBe(200); // no key: not counted
      expect((await client(srv.url).get('/me', { authorization: `bearer  ${ADMIN_KEY}` })).status).toBe(429); // the same key
      held.socket.destroy();
      await held.closed;
      await sleep(50);
      expect((await srv.admin.get('/me')).status).toBe(200);
    });
  });
});

/** A page write into a new space `slug` whose body never finishes arriving, so it stays in progress. */
async function openSlowPut(srv: TestServer, slug: string) {
  await srv.admin.post('/spaces', { slug, name: slug.toUpperCase() });
  return openRaw(
    srv.url,
    `PUT /pages/${slug}/slow HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"title":`,
  );
}

describe('timeouts', () => {
  it('closes a slowloris connection within the header timeout', async () => {
    await withServer({ SERVICE_HEADERS_TIMEOUT_MS: '500' }, async (srv) => {
      const c = await openRaw(srv.url, 'GET /me HTTP/1.1\r\nHost: x\r\n');
      let n = 0;
      const drip = setInterval(() => c.socket.writable && c.socket.write(`X-Drip-${n++}: a\r\n`), 100);
      const ms = await c.closed;
      clearInterval(drip);
      expect(ms).toBeLessThan(2000);
      expect(c.received()).toMatch(/^HTTP\/1\.1 408/);
      expect(c.received()).toContain('application/problem+json');
      expect(c.received()).toContain('"code":"request_too_slow"');
      expect((await srv.admin.get('/me')).status).toBe(200); // others are served meanwhile
    });
  });

  it('answers 503 to a request still unanswered after SERVICE_MAX_REQUEST_MS', async () => {
    await withServer({ SERVICE_MAX_REQUEST_MS: '300' }, async (srv) => {
      const c = await openSlowPut(srv, 't');
      const ms = await c.closed;
      expect(ms).toBeLessThan(2500);
      expect(c.received()).toMatch(/^HTTP\/1\.1 503/);
      expect(c.received()).toContain('"code":"request_timeout"');
      expect((await srv.admin.get('/me')).status).toBe(200);
    });
  });
});
