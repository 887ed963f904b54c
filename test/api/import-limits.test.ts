import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, newAgent, startServer, type Client, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { importGate } from '../../src/domain/bundles/import-gate.ts';

// One import at a time per principal, and a budget of import bytes in flight across principals
// (SERVICE_IMPORT_BUDGET_BYTES, 4 KiB here).
let srv: TestServer;
let bob: Client & { id: string };

beforeAll(async () => {
  srv = await startServer({ SERVICE_IMPORT_BUDGET_BYTES: '4096' });
  bob = await newAgent(srv, 'bob');
});
afterAll(() => srv.close());

const bundleText = (slug: string, n: number, pad = 0) =>
  JSON.stringify({
    format: 'service-space-export',
    formatVersion: 1,
    space: { slug, name: slug, description: ''.padEnd(pad, '.') },
    pages: Array.from({ length: n }, (_, i) => ({ path: `p${i}`, title: `P${i}` })),
  });

/**
 * An import whose body is held back after its first half: in flight until `finish` sends the
 * rest. Resolves once the server has received the first half.
 */
async function heldImport(key: string, slug: string, text: string) {
  const body = Buffer.from(text);
  const url = new URL(`${srv.url}/spaces/${slug}/import`);
  let answer!: Promise<{ status: number; body: any }>;
  const req = http.request(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': body.length },
  });
  answer = new Promise((resolve, reject) => {
    req.on('response', (res) => {
      let data = '';
      res.on('data', (d) => (data += d)).on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(data) }));
    });
    req.on('error', reject);
  });
  const before = importGate(srv.svc).inFlight;
  req.write(body.subarray(0, body.length >> 1));
  expect(await waitFor(() => importGate(srv.svc).inFlight > before)).toBe(true);
  return {
    finish() {
      req.end(body.subarray(body.length >> 1));
      return answer;
    },
  };
}

describe('import limits', () => {
  it('refuses a second concurrent import of one principal with 429 and Retry-After, then admits it', async () => {
    const first = await heldImport(ADMIN_KEY, 'held-a', bundleText('held-a', 3));
    const second = await srv.admin.post('/spaces/other-a/import', bundleText('other-a', 1));
    expect(second.status).toBe(429);
    expect(second.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(second.headers.get('retry-after')).toBe('5');
    expect(second.body).toMatchObject({ status: 429, code: 'too_many_requests' });
    // Another principal is not held up by it.
    expect((await bob.post('/spaces/bobs-a/import', bundleText('bobs-a', 1))).status).toBe(200);
    expect((await first.finish()).body.created).toBe(3);
    expect((await srv.admin.post('/spaces/other-a/import', bundleText('other-a', 1))).body.created).toBe(1);
    expect((await srv.admin.get('/spaces/other-a/pages')).body.pages).toHaveLength(1);
  });

  it('refuses an import past the budget beside others with 503 and Retry-After; one alone may exceed it', async () => {
    const big = bundleText('big', 2, 3000);
    const first = await heldImport(ADMIN_KEY, 'held-b', big);
    const second = await bob.post('/spaces/bobs-b/import', bundleText('bobs-b', 1, 2000));
    expect(second.status).toBe(503);
    expect(second.headers.get('retry-after')).toBe('5');
    expect(second.body).toMatchObject({ status: 503, code: 'busy' });
    expect(second.body.detail).toContain('SERVICE_IMPORT_BUDGET_BYTES');
    // A small one still fits beside it.
    expect((await bob.post('/spaces/bobs-small/import', bundleText('bobs-small', 1))).status).toBe(200);
    expect((await first.finish()).status).toBe(200);
    // Alone, an import larger than the whole budget is admitted (the import cap bounds it).
    const alone = await bob.post('/spaces/bobs-b/import', bundleText('bobs-b', 1, 5000));
    expect(alone.status).toBe(200);
    expect(alone.body.created).toBe(1);
  });

  it('releases the charge of an import that fails', async () => {
    expect((await srv.admin.post('/spaces/bad/import', '{"format":')).status).toBe(400);
    expect((await srv.admin.post('/spaces/bad/import', { format: 'nope' })).status).toBe(400);
    expect((await srv.admin.post('/spaces/good/import', bundleText('good', 1))).status).toBe(200);
  });
});
