import crypto from 'node:crypto';
import type { H3, H3Event } from 'h3';
import { FastResponse } from 'srvx';
import type { Services } from '../../services.ts';
import { etagMatches, loadWebApp, pickEncoding, renderIndex } from '../web-assets.ts';

// The web app at /app/: hashed assets (immutable, precompressed), the service worker (/app/sw.js),
// and index.html for every other /app/ address so each one works on reload. Public: the app itself signs people in.

/** Headers on every app response. */
const BASE_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

/** The policy of docs/web.md; the nonce is for the editor's (CodeMirror's) style elements only. */
function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join('; ');
}

const NOT_BUILT_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>kspace: web app not built</title></head>
<body><main><h1>The web app is not built</h1><p>This checkout has no <code>dist/web</code>. Run <code>npm run build:web</code>
(or <code>npm ci</code>, which runs it) and reload this page. The HTTP API works without it.</p></main></body></html>`;

export function registerWebAppRoutes(app: H3, _svc: Services): void {
  for (const method of ['GET', 'HEAD'] as const) {
    app.on(method, '/', () => new FastResponse(null, { status: 302, headers: { location: '/app/', ...BASE_HEADERS } }));
    app.on(method, '/app/assets/**', (event) => serveAsset(event, IMMUTABLE));
    app.on(method, '/app/sw.js', (event) => serveAsset(event, WORKER));
    app.on(method, '/app/**', serveIndex);
  }
}

/** Hashed assets: a name is one content for ever. */
const IMMUTABLE = { 'cache-control': 'public, max-age=31536000, immutable' };
/**
 * The service worker (docs/web.md "Offline"): a fixed address, revalidated on every update check so
 * that a new build's worker is found; its own policy (it loads nothing and fetches only this origin).
 */
const WORKER = { 'cache-control': 'no-cache', 'content-security-policy': "default-src 'self'; object-src 'none'; base-uri 'none'" };

function serveAsset(event: H3Event, extra: Record<string, string>): Response {
  const web = loadWebApp();
  const name = event.url.pathname.slice('/app/'.length);
  const asset = web?.asset(name);
  if (!asset) {
    return new FastResponse('not found\n', {
      status: 404,
      headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...BASE_HEADERS },
    });
  }
  const encoding = pickEncoding(event.req.headers.get('accept-encoding'), asset);
  const etag = `"${asset.etag}${encoding === 'identity' ? '' : `-${encoding}`}"`;
  const headers: Record<string, string> = {
    ...BASE_HEADERS,
    ...extra,
    etag,
    vary: 'accept-encoding',
  };
  if (etagMatches(event.req.headers.get('if-none-match'), etag)) return new FastResponse(null, { status: 304, headers });
  const body = asset.bodies[encoding] ?? asset.bodies.identity!;
  headers['content-type'] = asset.type;
  headers['content-length'] = String(body.length);
  if (encoding !== 'identity') headers['content-encoding'] = encoding;
  return new FastResponse(event.req.method === 'HEAD' ? null : new Uint8Array(body), { status: 200, headers });
}

function serveIndex(event: H3Event): Response {
  // The router matches /app and /app/ alike; only the bare one redirects.
  if (event.url.pathname === '/app') return new FastResponse(null, { status: 302, headers: { location: '/app/', ...BASE_HEADERS } });
  const web = loadWebApp();
  const nonce = crypto.randomBytes(16).toString('base64');
  if (!web) {
    return new FastResponse(NOT_BUILT_PAGE, {
      status: 503,
      headers: {
        ...BASE_HEADERS,
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'content-security-policy': contentSecurityPolicy(nonce),
      },
    });
  }
  const headers: Record<string, string> = { ...BASE_HEADERS, 'cache-control': 'no-cache', etag: web.index.etag };
  // A 304 carries no new policy: the browser keeps the cached page with the policy whose nonce matches it.
  if (etagMatches(event.req.headers.get('if-none-match'), web.index.etag)) return new FastResponse(null, { status: 304, headers });
  headers['content-type'] = 'text/html; charset=utf-8';
  headers['content-security-policy'] = contentSecurityPolicy(nonce);
  return new FastResponse(event.req.method === 'HEAD' ? null : renderIndex(web.index, nonce), { status: 200, headers });
}
