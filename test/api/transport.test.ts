// The test harness's two transports (docs/testing.md): 'port' reaches the server through a socket
// and the Node front, 'fetch' through the h3 app's fetch with neither.
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.ts';

const servers: TestServer[] = [];
afterAll(() => Promise.all(servers.map((s) => s.close())));

describe('startServer transports', () => {
  it("'port' answers through the Node front, 'fetch' through app.fetch alone, with the same answer", async () => {
    const port = await startServer();
    const viaFetch = await startServer({}, { transport: 'fetch' });
    servers.push(port, viaFetch);
    for (const srv of [port, viaFetch]) expect((await srv.admin.post('/spaces', { slug: 'wiki', name: 'Wiki' })).status).toBe(201);
    const a = await port.admin.get('/spaces/wiki');
    const b = await viaFetch.admin.get('/spaces/wiki');
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    // The front gives each request an id and a log line; app.fetch has neither.
    expect(a.headers.get('x-request-id')).toBeTruthy();
    expect(b.headers.get('x-request-id')).toBeNull();
    expect(port.requests.length).toBeGreaterThan(0);
    expect(viaFetch.requests).toEqual([]);
    const same = (body: Record<string, unknown>) => ({ ...body, id: null, createdAt: null, updatedAt: null });
    expect(same(b.body)).toEqual(same(a.body));
    // Closed, the fetch server's URL is no longer answered in-process: fetch goes to the closed port.
    await viaFetch.close();
    await expect(fetch(`${viaFetch.url}/healthz`)).rejects.toThrow();
  });
});
