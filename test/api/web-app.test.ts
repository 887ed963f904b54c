import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAssetRoot } from '../../src/assets.ts';
import { resetWebApp } from '../../src/http/web-assets.ts';
import { NONCE_PLACEHOLDER, type WebManifest } from '../../src/http/web-manifest.ts';
import { startServer, type TestServer } from '../support/server.ts';

// A fixture build in a temp asset root (schema.sql and templates linked from the checkout), so
// this test does not depend on the client's source building at the moment.
const repo = path.resolve(import.meta.dirname, '../..');
const JS = 'console.log("kspace app");\n'.repeat(50);
const WORKER = 'self.addEventListener("fetch", () => {});\n';

function fixtureRoot(withBuild: boolean): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-web-'));
  fs.symlinkSync(path.join(repo, 'schema.sql'), path.join(root, 'schema.sql'));
  fs.symlinkSync(path.join(repo, 'templates'), path.join(root, 'templates'));
  if (!withBuild) return root;
  const dir = path.join(root, 'dist/web/assets');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'main-ABC123.js'), JS);
  fs.writeFileSync(path.join(dir, 'main-ABC123.js.gz'), zlib.gzipSync(JS));
  fs.writeFileSync(path.join(dir, 'main-ABC123.js.br'), zlib.brotliCompressSync(JS));
  fs.writeFileSync(path.join(root, 'dist/web/sw.js'), WORKER);
  fs.writeFileSync(
    path.join(root, 'dist/web/index.html'),
    `<!doctype html><html><head><meta name="csp-nonce" content="${NONCE_PLACEHOLDER}"><script type="module" src="/app/assets/main-ABC123.js"></script></head><body></body></html>`,
  );
  const manifest: WebManifest = {
    files: ['index.html', 'sw.js', 'assets/main-ABC123.js', 'assets/main-ABC123.js.gz', 'assets/main-ABC123.js.br'],
    pageJs: { files: ['assets/main-ABC123.js'], bytes: JS.length, gzipBytes: 0 },
    lazyChunks: [],
    css: { files: [], bytes: 0, gzipBytes: 0 },
  };
  fs.writeFileSync(path.join(root, 'dist/web/manifest.json'), JSON.stringify(manifest));
  return root;
}

const get = (srv: TestServer, p: string, headers: Record<string, string> = {}) => fetch(srv.url + p, { headers, redirect: 'manual' });

describe('serving the web app', () => {
  let srv: TestServer;
  let root: string;
  beforeAll(async () => {
    root = fixtureRoot(true);
    setAssetRoot(root);
    resetWebApp();
    srv = await startServer();
  });
  afterAll(async () => {
    await srv.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('redirects / and /app to /app/', async () => {
    for (const p of ['/', '/app']) {
      const r = await get(srv, p);
      expect(r.status).toBe(302);
      expect(r.headers.get('location')).toBe('/app/');
    }
  });

  it('answers every /app/ address with index.html, a fresh nonce in the meta tag and the CSP header', async () => {
    const nonces = new Set<string>();
    for (const p of ['/app/', '/app/p/team/notes/a', '/app/search?q=x', '/app/admin']) {
      const r = await get(srv, p);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(r.headers.get('cache-control')).toBe('no-cache');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('referrer-policy')).toBe('same-origin');
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      const html = await r.text();
      const nonce = /<meta name="csp-nonce" content="([^"]+)">/.exec(html)?.[1];
      expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
      expect(html).not.toContain(NONCE_PLACEHOLDER);
      expect(r.headers.get('content-security-policy')).toBe(
        `default-src 'self'; script-src 'self'; style-src 'self' 'nonce-${nonce}'; img-src 'self' data:; connect-src 'self'; ` +
          "font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
      );
      nonces.add(nonce!);
    }
    expect(nonces.size).toBe(4);
  });

  it('keeps the ETag of index.html across nonces and answers 304 to it', async () => {
    const a = await get(srv, '/app/');
    const b = await get(srv, '/app/s/x');
    expect(a.headers.get('etag')).toBeTruthy();
    expect(b.headers.get('etag')).toBe(a.headers.get('etag'));
    const again = await get(srv, '/app/', { 'if-none-match': a.headers.get('etag')! });
    expect(again.status).toBe(304);
    expect(again.headers.get('content-security-policy')).toBeNull();
  });

  it('serves hashed assets immutable, brotli or gzip by Accept-Encoding, with ETag and 304', async () => {
    const cases: [string, string | null][] = [
      ['br, gzip', 'br'],
      ['gzip', 'gzip'],
      ['identity', null],
      ['br;q=0, gzip', 'gzip'],
    ];
    for (const [accept, encoding] of cases) {
      const r = await get(srv, '/app/assets/main-ABC123.js', { 'accept-encoding': accept });
      expect(r.status).toBe(200);
      expect(r.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(r.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('vary')).toBe('accept-encoding');
      expect(r.headers.get('content-encoding')).toBe(encoding);
      expect(await r.text()).toBe(JS); // fetch decodes
      const etag = r.headers.get('etag')!;
      const cached = await get(srv, '/app/assets/main-ABC123.js', { 'accept-encoding': accept, 'if-none-match': etag });
      expect(cached.status).toBe(304);
    }
  });

  it('serves the service worker at /app/sw.js: JavaScript, revalidated on each update check, with its own policy', async () => {
    const r = await get(srv, '/app/sw.js', { 'accept-encoding': 'br, gzip' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(r.headers.get('cache-control')).toBe('no-cache');
    expect(r.headers.get('content-security-policy')).toBe("default-src 'self'; object-src 'none'; base-uri 'none'");
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await r.text()).toBe(WORKER);
    const again = await get(srv, '/app/sw.js', { 'if-none-match': r.headers.get('etag')! });
    expect(again.status).toBe(304);
  });

  it('answers 404 for an unknown asset and never serves the precompressed files by name', async () => {
    for (const p of [
      '/app/assets/nope.js',
      '/app/assets/main-ABC123.js.gz',
      '/app/assets/../manifest.json',
      '/app/assets/%2e%2e/index.html',
    ]) {
      const r = await get(srv, p);
      const body = await r.text();
      expect(body).not.toContain('console.log');
      expect(body).not.toContain('pageJs');
      if (p.includes('assets/main') || p.includes('nope')) expect(r.status, p).toBe(404);
    }
  });

  it('leaves the API alone', async () => {
    const r = await srv.admin.get('/me');
    expect(r.status).toBe(200);
  });
});

describe('a checkout without dist/web', () => {
  it('answers /app/ with a 503 page that says to run npm run build:web', async () => {
    const root = fixtureRoot(false);
    setAssetRoot(root);
    resetWebApp();
    const srv = await startServer();
    try {
      const r = await get(srv, '/app/p/x/y');
      expect(r.status).toBe(503);
      expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await r.text()).toContain('npm run build:web');
    } finally {
      await srv.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
