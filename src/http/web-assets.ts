import crypto from 'node:crypto';
import { readAsset } from '../assets.ts';
import { NONCE_PLACEHOLDER, type WebManifest } from './web-manifest.ts';

// The built web app (dist/web, written by scripts/build-web.ts): read from the checkout, or from the
// single executable's embedded assets (src/assets.ts decides). Files are read on first use and kept:
// the whole app is a few hundred KB, and a cold start reads none of it until someone opens /app/.

const DIR = 'dist/web';

type Encoding = 'br' | 'gzip' | 'identity';
type WebAsset = { type: string; etag: string; bodies: Partial<Record<Encoding, Buffer>> };
type WebIndex = { template: string; etag: string };

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  woff2: 'font/woff2',
  json: 'application/json',
  txt: 'text/plain; charset=utf-8',
};

type WebApp = { manifest: WebManifest; index: WebIndex; asset(name: string): WebAsset | null };

let loaded: WebApp | null = null;

/** The built app, or null when dist/web is absent (a checkout before `npm run build:web`). */
export function loadWebApp(): WebApp | null {
  if (loaded) return loaded;
  const manifestBytes = readAsset(`${DIR}/manifest.json`);
  const indexBytes = readAsset(`${DIR}/index.html`);
  if (!manifestBytes || !indexBytes) return null; // not cached: a build made while running is picked up
  const manifest = JSON.parse(manifestBytes.toString('utf8')) as WebManifest;
  const files = new Set(manifest.files);
  const template = indexBytes.toString('utf8');
  // The ETag hashes the template, not the response: the nonce changes per response, the page does not.
  const index = { template, etag: `W/"${hash(indexBytes)}"` };
  const assets = new Map<string, WebAsset | null>();
  loaded = {
    manifest,
    index,
    asset(name) {
      if (!files.has(name) || name.endsWith('.gz') || name.endsWith('.br')) return null;
      if (assets.has(name)) return assets.get(name) ?? null;
      const raw = readAsset(`${DIR}/${name}`);
      const asset = raw
        ? {
            type: TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream',
            etag: hash(raw),
            bodies: {
              identity: raw,
              ...(files.has(`${name}.br`) ? { br: readAsset(`${DIR}/${name}.br`) ?? undefined } : {}),
              ...(files.has(`${name}.gz`) ? { gzip: readAsset(`${DIR}/${name}.gz`) ?? undefined } : {}),
            },
          }
        : null;
      assets.set(name, asset);
      return asset;
    },
  };
  return loaded;
}

/** Forgets the loaded app (tests that build or remove dist/web while a server runs). */
export function resetWebApp(): void {
  loaded = null;
}

/** index.html with this response's nonce in its csp-nonce meta tag. */
export function renderIndex(index: WebIndex, nonce: string): string {
  return index.template.replaceAll(NONCE_PLACEHOLDER, nonce);
}

/** The best encoding the client accepts among those present (brotli, then gzip). */
export function pickEncoding(acceptEncoding: string | null, asset: WebAsset): Encoding {
  const accepted = new Set<string>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [coding, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    if (coding && !(q && Number(q.slice(2)) === 0)) accepted.add(coding);
  }
  if (asset.bodies.br && accepted.has('br')) return 'br';
  if (asset.bodies.gzip && accepted.has('gzip')) return 'gzip';
  return 'identity';
}

export { etagMatches } from './etag.ts';

function hash(buf: Buffer): string {
  return crypto.createHash('sha256').update(buf).digest('base64url').slice(0, 22);
}
