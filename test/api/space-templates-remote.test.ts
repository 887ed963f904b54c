import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { refreshRemoteCatalog } from '../../src/domain/space-templates/remote.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { makeTestCert, type TestCert } from '../support/test-ca.ts';

// `catalog.test` stands for a host whose DNS answer is public: the guard's lookup answers
// 127.0.0.1 for it (where the test server listens) and is passed as allowed. Every other name
// and address goes through the real guard, so a redirect from it to a private address is judged
// exactly as in production.
vi.mock('../../src/domain/net/address-guard.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/domain/net/address-guard.ts')>();
  return {
    ...real,
    resolveAndCheck: async (hostname: string, opts: { allowPrivate: boolean }) =>
      hostname === 'catalog.test' ? { address: '127.0.0.1', family: 4 as const } : real.resolveAndCheck(hostname, opts),
  };
});

const MAX = 64 * 1024;
const bundle = (name: string, pages: unknown[]) => ({
  format: 'service-space-export',
  formatVersion: 1,
  exportedAt: '2026-01-01T00:00:00.000Z',
  space: { slug: 'r', name, description: `${name} from afar` },
  pages,
});
const GOOD_ROOT = JSON.stringify({
  templates: [
    { id: 'handbook', name: 'Remote handbook', description: 'Served over https', bundle: 'bundles/handbook.json' },
    { id: 'tasks', name: 'Remote tasks', description: 'With a record type', bundle: 'bundles/tasks.json' },
  ],
});
const GOOD_FILES: Record<string, string> = {
  '/catalog/root.json': GOOD_ROOT,
  '/catalog/bundles/handbook.json': JSON.stringify(
    bundle('Handbook', [
      { path: 'home', title: 'Home', content: 'Welcome [x](./policies)' },
      { path: 'policies', title: 'Policies', content: 'Be kind.' },
    ]),
  ),
  '/catalog/bundles/tasks.json': JSON.stringify(
    bundle('Tasks', [
      {
        path: 'templates/task',
        title: 'Task',
        frontmatter: { metadataSchema: { fields: [{ key: 'stage', type: 'select', options: ['todo', 'done'], required: true }] } },
      },
      { path: 'tasks/first', title: 'First', metadata: { template: 'task', stage: 'todo' } },
    ]),
  ),
};

// Bundle files and ids that an object would answer from Object.prototype (issue 18 finding 7).
const PROTO_ROOT = JSON.stringify({
  templates: [
    { id: 'constructor', name: 'C', bundle: 'constructor' },
    { id: 'proto', name: 'P', bundle: '__proto__' },
    { id: 'tostring', name: 'T', bundle: 'toString' },
  ],
});

// 16 KB on the wire (well under the cap), 16 MB once inflated: only a cap counted after
// decompression stops it.
const GZIP_BOMB = gzipSync(Buffer.alloc(16 * 1024 * 1024, 0x20), { level: 9 });

let cert: TestCert;
let server: https.Server;
let port: number;
let mode = 'good';
const hits: string[] = [];

// The remote catalog host. `mode` decides what it serves for the next refresh.
function handle(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): void {
  const url = req.url ?? '/';
  hits.push(`${mode} ${url}`);
  const send = (status: number, body: string | Buffer, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  };
  const isRoot = url === '/catalog/root.json';
  if (mode === 'oversize' && isRoot) return send(200, JSON.stringify({ templates: [], padding: 'x'.repeat(MAX * 2) }));
  if (mode === 'gzip-bomb' && isRoot) return send(200, GZIP_BOMB, { 'content-encoding': 'gzip' });
  if (mode === 'invalid-bundle' && url === '/catalog/bundles/tasks.json') {
    const tasks = JSON.parse(GOOD_FILES['/catalog/bundles/tasks.json']);
    tasks.pages[1].metadata.stage = 'someday'; // not an option of the record type
    return send(200, JSON.stringify(tasks));
  }
  if (mode === 'wrong-format' && url === '/catalog/bundles/handbook.json')
    return send(200, JSON.stringify({ ...bundle('H', []), formatVersion: 3 }));
  if (mode === 'redirect-http' && isRoot) return send(302, '', { location: `http://127.0.0.1:${port}/catalog/root.json` });
  if (mode === 'redirect-private' && isRoot) return send(302, '', { location: `https://127.0.0.1:${port}/catalog/root.json` });
  if (mode === 'redirect-private-net' && isRoot) return send(307, '', { location: 'https://10.20.30.40/catalog/root.json' });
  if (mode === 'redirect-ok' && isRoot) return send(301, '', { location: '/moved/root.json' });
  // Bundles resolve beside the index where the redirects ended: /final/bundles/….
  if (url === '/moved/root.json') return send(302, '', { location: '/final/root.json' });
  if (url.startsWith('/final/') && GOOD_FILES[url.replace('/final/', '/catalog/')])
    return send(200, GOOD_FILES[url.replace('/final/', '/catalog/')]);
  if (mode === 'redirect-loop' && isRoot) return send(302, '', { location: '/catalog/root.json' });
  if (mode === 'error' && isRoot) return send(500, 'boom');
  if (mode === 'proto-names') {
    if (isRoot) return send(200, PROTO_ROOT);
    if (['/catalog/constructor', '/catalog/__proto__', '/catalog/toString'].includes(url))
      return send(200, GOOD_FILES['/catalog/bundles/handbook.json']);
  }
  if (mode === 'gzip-good' && GOOD_FILES[url]) return send(200, gzipSync(GOOD_FILES[url]), { 'content-encoding': 'gzip' });
  if (GOOD_FILES[url]) return send(200, GOOD_FILES[url]);
  send(404, '{}');
}

beforeAll(async () => {
  cert = makeTestCert();
  server = https.createServer({ key: cert.key, cert: cert.cert }, handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(cert.dir, { recursive: true, force: true });
});

const remoteEnv = (url: string, extra: Record<string, string> = {}) => ({
  SERVICE_SPACE_TEMPLATES_URL: url,
  SERVICE_SPACE_TEMPLATES_CA: cert.caFile,
  SERVICE_SPACE_TEMPLATES_MAX_BYTES: String(MAX),
  SERVICE_SPACE_TEMPLATES_REFRESH_SECONDS: '3600',
  ...extra,
});
const remoteOf = (gallery: any[]) => gallery.filter((t) => t.source === 'remote');

describe('remote catalog, guard allowance for the local test host', () => {
  let srv: TestServer;
  let dataDir: string;
  let goodGallery: string;
  const cacheFile = () => path.join(dataDir, 'space-templates', 'remote-catalog.json');

  beforeAll(async () => {
    mode = 'good';
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-remote-'));
    srv = await startServer(remoteEnv(`https://127.0.0.1:${port}/catalog/root.json`, { SERVICE_WEBHOOKS_ALLOW_PRIVATE_URLS: '1' }), {
      dataDir,
      keepData: true,
    });
    expect(await refreshRemoteCatalog(srv.svc)).toEqual({ ok: true });
  });
  afterAll(async () => {
    await srv.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists the good catalog beside the built-in one and keeps a copy on disk', async () => {
    const r = await srv.admin.get('/space-templates');
    expect(remoteOf(r.body)).toEqual([
      { source: 'remote', id: 'handbook', name: 'Remote handbook', description: 'Served over https', pages: 2 },
      { source: 'remote', id: 'tasks', name: 'Remote tasks', description: 'With a record type', pages: 2 },
    ]);
    expect(r.body.filter((t: any) => t.source === 'built-in').length).toBeGreaterThanOrEqual(4);
    goodGallery = r.text;
    expect(JSON.parse(fs.readFileSync(cacheFile(), 'utf8')).files['root.json']).toBe(GOOD_ROOT);
  });

  it('creates a space from a remote template', async () => {
    const r = await srv.admin.post('/space-templates/remote/tasks/spaces', { slug: 'remote-tasks' });
    expect(r.status).toBe(201);
    expect(r.body.import).toEqual({ created: 2, updated: 0, skipped: 0, errors: [] });
    expect(r.body.space).toMatchObject({ name: 'Tasks', description: 'Tasks from afar' });
    expect((await srv.admin.get('/pages/remote-tasks/tasks/first')).body.metadata).toEqual({ stage: 'todo', template: 'task' });
  });

  it('follows redirects on the same terms and reads gzip bodies', async () => {
    mode = 'redirect-ok';
    hits.length = 0;
    expect(await refreshRemoteCatalog(srv.svc)).toEqual({ ok: true });
    expect(hits).toEqual([
      'redirect-ok /catalog/root.json',
      'redirect-ok /moved/root.json',
      'redirect-ok /final/root.json',
      'redirect-ok /final/bundles/handbook.json',
      'redirect-ok /final/bundles/tasks.json',
    ]);
    mode = 'gzip-good';
    expect(await refreshRemoteCatalog(srv.svc)).toEqual({ ok: true });
    expect((await srv.admin.get('/space-templates')).text).toBe(goodGallery);
  });

  it('has a gzip bomb that fits under the cap until inflated', () => {
    expect(GZIP_BOMB.length).toBeLessThan(MAX / 2);
  });

  it.each([
    ['oversize', /exceeds 65536 bytes/],
    ['gzip-bomb', /exceeds 65536 bytes/],
    ['invalid-bundle', /tasks.json: 1 page\(s\) refused \(tasks\/first: stage/],
    ['wrong-format', /handbook.json: not a bundle \(formatVersion/],
    ['redirect-http', /refused http:\/\/127.0.0.1:\d+\/catalog\/root.json: the remote catalog is fetched over https only/],
    ['redirect-loop', /more than 3 redirects/],
    ['error', /answered 500/],
  ])('refuses %s and keeps serving the last good copy byte for byte', async (which, reason) => {
    const cacheBefore = fs.readFileSync(cacheFile());
    mode = which;
    const r = await refreshRemoteCatalog(srv.svc);
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(reason);
    expect((await srv.admin.get('/space-templates')).text).toBe(goodGallery);
    expect(fs.readFileSync(cacheFile()).equals(cacheBefore)).toBe(true);
    const made = await srv.admin.post('/space-templates/remote/handbook/spaces', { slug: `after-${which}` });
    expect(made.body.import.created).toBe(2);
  });

  it('serves the copy on disk after a restart while the remote host is failing', async () => {
    mode = 'error';
    await srv.close();
    srv = await startServer(remoteEnv(`https://127.0.0.1:${port}/catalog/root.json`, { SERVICE_WEBHOOKS_ALLOW_PRIVATE_URLS: '1' }), {
      dataDir,
      keepData: true,
    });
    expect((await srv.admin.get('/space-templates')).text).toBe(goodGallery); // before any refresh finished
    expect((await refreshRemoteCatalog(srv.svc)).ok).toBe(false);
    expect((await srv.admin.get('/space-templates')).text).toBe(goodGallery);
  });

  it('takes entries and bundle files named constructor, __proto__ and toString, also from its copy on disk', async () => {
    mode = 'proto-names';
    expect(await refreshRemoteCatalog(srv.svc)).toEqual({ ok: true });
    const ids = async () => remoteOf((await srv.admin.get('/space-templates')).body).map((t) => `${t.id} ${t.pages}`);
    expect(await ids()).toEqual(['constructor 2', 'proto 2', 'tostring 2']);
    mode = 'error';
    await srv.close();
    srv = await startServer(remoteEnv(`https://127.0.0.1:${port}/catalog/root.json`, { SERVICE_WEBHOOKS_ALLOW_PRIVATE_URLS: '1' }), {
      dataDir,
      keepData: true,
    });
    expect(await ids()).toEqual(['constructor 2', 'proto 2', 'tostring 2']);
    const made = await srv.admin.post('/space-templates/remote/constructor/spaces', { slug: 'from-constructor' });
    expect(made.body.import.created).toBe(2);
  });

  it('refuses a plain http catalog URL', async () => {
    const plain = await startServer(remoteEnv(`http://127.0.0.1:${port}/catalog/root.json`, { SERVICE_WEBHOOKS_ALLOW_PRIVATE_URLS: '1' }));
    try {
      const r = await refreshRemoteCatalog(plain.svc);
      expect(r.error).toMatch(/https only/);
      expect(remoteOf((await plain.admin.get('/space-templates')).body)).toEqual([]);
    } finally {
      await plain.close();
    }
  });
});

describe('remote catalog with the address guard on', () => {
  it('refuses a catalog on 127.0.0.1 without connecting to it', async () => {
    mode = 'good';
    const before = hits.length;
    const srv = await startServer(remoteEnv(`https://127.0.0.1:${port}/catalog/root.json`));
    try {
      const r = await refreshRemoteCatalog(srv.svc);
      expect(r).toEqual({ ok: false, error: 'blocked by the address guard: 127.0.0.1 is loopback' });
      expect(remoteOf((await srv.admin.get('/space-templates')).body)).toEqual([]);
      expect(hits.length).toBe(before);
    } finally {
      await srv.close();
    }
  });

  it('accepts a public host and refuses its redirects to private addresses, keeping the good copy', async () => {
    mode = 'good';
    const srv = await startServer(remoteEnv(`https://catalog.test:${port}/catalog/root.json`));
    try {
      expect(await refreshRemoteCatalog(srv.svc)).toEqual({ ok: true });
      const good = (await srv.admin.get('/space-templates')).text;
      expect(remoteOf(JSON.parse(good)).map((t: any) => t.id)).toEqual(['handbook', 'tasks']);

      mode = 'redirect-private';
      expect(await refreshRemoteCatalog(srv.svc)).toEqual({ ok: false, error: 'blocked by the address guard: 127.0.0.1 is loopback' });
      mode = 'redirect-private-net';
      expect(await refreshRemoteCatalog(srv.svc)).toEqual({ ok: false, error: 'blocked by the address guard: 10.20.30.40 is private' });
      expect((await srv.admin.get('/space-templates')).text).toBe(good);
    } finally {
      await srv.close();
    }
  });

  it('refuses a certificate from an untrusted CA', async () => {
    mode = 'good';
    const srv = await startServer({ ...remoteEnv(`https://catalog.test:${port}/catalog/root.json`), SERVICE_SPACE_TEMPLATES_CA: '' });
    try {
      const r = await refreshRemoteCatalog(srv.svc);
      expect(r.ok).toBe(false);
      expect(r.error).toMatch(/certificate/i);
    } finally {
      await srv.close();
    }
  });
});
