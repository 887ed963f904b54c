import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import net from 'node:net';
import { rawRequest, type RawExchange } from '../support/raw-http.ts';
import { ADMIN_KEY, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

// What Node refuses before kspace's handler runs is problem+json too, a client hanging up is no
// server error, a body that stops arriving is answered 408 (SERVICE_BODY_TIMEOUT_MS), and one
// address holds at most SERVICE_MAX_CONNECTIONS_PER_ADDRESS connections (docs/security.md).

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ SERVICE_BODY_TIMEOUT_MS: '1000', SERVICE_MAX_CONNECTIONS_PER_ADDRESS: '6' });
  expect((await srv.admin.post('/spaces', { slug: 'eng', name: 'Eng' })).status).toBe(201);
});
afterAll(() => srv?.close());
afterEach(() => expect(srv.errors).toEqual([]));

const AUTH = `Authorization: Bearer ${ADMIN_KEY}\r\n`;
const until = (bytes: string, more?: string[]) => rawRequest(srv.url, bytes, { responses: 99, timeoutMs: 8000, more });

function expectProblem(x: RawExchange, status: number, code: string): void {
  expect(x.responses.length, x.text).toBe(1);
  const r = x.responses[0];
  expect(r.status, x.text).toBe(status);
  expect(r.headers['content-type']).toBe('application/problem+json');
  expect(JSON.parse(r.body)).toMatchObject({ status, code });
  expect(x.closed).toBe(true);
}

describe('requests Node refuses before the app runs', () => {
  it('headers too large: 431 problem+json', async () => {
    expectProblem(await until(`GET /spaces HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`), 431, 'headers_too_large');
  });

  it('a malformed request line: 400 problem+json', async () => {
    expectProblem(await until('GARBAGE\r\n\r\n'), 400, 'bad_request');
    expectProblem(await until('GET /spaces HTTP/9.9\r\nHost: x\r\n\r\n'), 400, 'bad_request');
  });

  it('conflicting lengths: 400 problem+json', async () => {
    expectProblem(
      await until(`POST /spaces HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`),
      400,
      'bad_request',
    );
    expectProblem(
      await until(`POST /spaces HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd`),
      400,
      'bad_request',
    );
  });

  it('an Expect other than 100-continue: 417 problem+json', async () => {
    expectProblem(
      await until(`PUT /pages/eng/e HTTP/1.1\r\nHost: x\r\n${AUTH}Expect: 200-ok\r\nContent-Length: 2\r\n\r\n{}`),
      417,
      'expectation_failed',
    );
  });
});

describe('bodies that stop', () => {
  it('a client hanging up mid-body is logged at info (a request line with 499), not as an error', async () => {
    const before = srv.requests.length;
    const x = await rawRequest(
      srv.url,
      `PUT /pages/eng/cut HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"title":"x"`,
      { timeoutMs: 300 },
    );
    expect(x.responses).toEqual([]);
    expect(await waitFor(() => srv.requests.slice(before).some((r) => r.method === 'PUT' && r.status === 499))).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    expect(srv.errors).toEqual([]);
  });

  it('a body with no byte for SERVICE_BODY_TIMEOUT_MS: 408 problem+json and the connection closed', async () => {
    const t0 = Date.now();
    const x = await until(
      `PUT /pages/eng/slow HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"title":"x"`,
    );
    expectProblem(x, 408, 'request_too_slow');
    // 1 s of silence, seen by a check once a second: between 1 and 3 s on a loaded machine.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('a slow body that keeps arriving is read whole', async () => {
    const body = JSON.stringify({ title: 'Slow', content: 'x'.repeat(20) });
    const parts = body.match(/.{1,8}/g)!;
    const x = await rawRequest(
      srv.url,
      `PUT /pages/eng/slow-ok HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${parts[0]}`,
      { more: parts.slice(1), gapMs: 400, timeoutMs: 10_000 },
    );
    expect(x.responses[0]?.status, x.text).toBe(201);
  });
});

describe('connections per address', () => {
  it('answers a connection over SERVICE_MAX_CONNECTIONS_PER_ADDRESS with 429 problem+json; a closed one frees its place', async () => {
    const { hostname, port } = new URL(srv.url);
    const open = (): Promise<{ socket: net.Socket; text: () => string; closed: Promise<void> }> =>
      new Promise((resolve) => {
        let text = '';
        const socket = net.connect(Number(port), hostname, () => resolve({ socket, text: () => text, closed }));
        const closed = new Promise<void>((r) => socket.once('close', () => r()));
        socket.on('data', (d) => (text += d));
        socket.on('error', () => {});
      });
    const held = [];
    for (let i = 0; i < 6; i++) held.push(await open());
    const over = await open();
    await over.closed;
    expect(over.text()).toMatch(/^HTTP\/1\.1 429 /);
    expect(over.text()).toContain('application/problem+json');
    expect(over.text()).toContain('"code":"too_many_requests"');
    held[0].socket.destroy();
    await held[0].closed;
    await new Promise((r) => setTimeout(r, 100));
    const x = await rawRequest(srv.url, `GET /spaces/eng HTTP/1.1\r\nHost: x\r\n${AUTH}\r\n`);
    expect(x.responses[0]?.status, x.text).toBe(200);
    for (const h of held) h.socket.destroy();
  });
});
