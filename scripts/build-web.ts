// `npm run build:web`: bundles the web app (src/web/main.tsx, Preact + TSX) into dist/web/.
// ESM with code splitting (the editor is a chunk loaded by dynamic import), minified, hashed names.
// Writes dist/web/index.html from the src/web/index.html template (hashed names filled in),
// precompressed .br and .gz beside every asset (the server sends them as they are),
// dist/web/sw.js (the service worker, keyed by the build), and
// dist/web/manifest.json: the file list (the single executable cannot list its assets) and the sizes.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { build } from 'esbuild';
import { NONCE_PLACEHOLDER, type WebManifest } from '../src/http/web-manifest.ts';

const root = path.resolve(import.meta.dirname, '..');
const src = path.join(root, 'src/web');
const out = path.join(root, 'dist/web');
const URL_BASE = '/app/';

fs.rmSync(out, { recursive: true, force: true });
const entryPoints = [path.join(src, 'main.tsx')];
const stylesheet = path.join(src, 'styles.css');
// The stylesheet is its own entry unless main.tsx imports it (then esbuild emits it as main's CSS bundle).
const mainImportsCss = fs.readFileSync(entryPoints[0], 'utf8').includes('styles.css');
if (fs.existsSync(stylesheet) && !mainImportsCss) entryPoints.push(stylesheet);

const result = await build({
  entryPoints,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022', 'chrome120', 'firefox120', 'safari16'],
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: out,
  entryNames: 'assets/[name]-[hash]',
  chunkNames: 'assets/[name]-[hash]',
  assetNames: 'assets/[name]-[hash]',
  metafile: true,
  logLevel: 'warning',
  define: { 'process.env.NODE_ENV': '"production"' },
});
const meta = result.metafile;

/** Output path (relative to dist/web) → metafile output. */
const outputs = new Map(Object.entries(meta.outputs).map(([p, o]) => [path.relative(out, path.resolve(root, p)), o]));
const rel = (p: string): string => path.relative(out, path.resolve(root, p));
const mainJs = [...outputs].find(([, o]) => o.entryPoint && o.entryPoint.endsWith('main.tsx'))?.[0];
if (!mainJs) throw new Error('build-web: no output for src/web/main.tsx');

function staticClosure(start: string, seen = new Set<string>()): Set<string> {
  if (seen.has(start)) return seen;
  seen.add(start);
  for (const imp of outputs.get(start)?.imports ?? []) {
    if (imp.kind === 'import-statement' && !imp.external) staticClosure(rel(imp.path), seen);
  }
  return seen;
}

const gz = (buf: Buffer): number => zlib.gzipSync(buf, { level: 9 }).length;
function sizes(files: string[]): { bytes: number; gzipBytes: number } {
  let bytes = 0;
  let gzipBytes = 0;
  for (const f of files) {
    const buf = fs.readFileSync(path.join(out, f));
    bytes += buf.length;
    gzipBytes += gz(buf);
  }
  return { bytes, gzipBytes };
}

const pageFiles = [...staticClosure(mainJs)];
const dynamicEntries = new Set<string>();
for (const f of pageFiles) {
  for (const imp of outputs.get(f)?.imports ?? []) if (imp.kind === 'dynamic-import' && !imp.external) dynamicEntries.add(rel(imp.path));
}
const lazyChunks = [...dynamicEntries].map((entry) => {
  const files = [...staticClosure(entry)].filter((f) => !pageFiles.includes(f));
  const editor = files.some((f) => Object.keys(outputs.get(f)?.inputs ?? {}).some((i) => i.includes('@codemirror/')));
  return { entry, files, editor, ...sizes(files) };
});
// CSS linked from index.html: main's CSS bundle and the stylesheet entry (CSS of lazy chunks stays with them).
const cssFiles = [...outputs].filter(([f, o]) => f.endsWith('.css') && (o.entryPoint?.endsWith('styles.css') ?? false)).map(([f]) => f);
const mainCss = outputs.get(mainJs)?.cssBundle;
if (mainCss) cssFiles.unshift(rel(mainCss));

// index.html: the template with the stylesheet, the entry script and modulepreload hints for its static imports.
const templatePath = path.join(src, 'index.html');
let html = fs.existsSync(templatePath)
  ? fs.readFileSync(templatePath, 'utf8')
  : '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>kspace</title></head><body><div id="app"></div></body></html>';
if (!html.includes('name="csp-nonce"')) {
  html = html.replace('</head>', `<meta name="csp-nonce" content="${NONCE_PLACEHOLDER}">\n</head>`);
} else {
  html = html.replace(/(<meta name="csp-nonce" content=")[^"]*(")/, `$1${NONCE_PLACEHOLDER}$2`);
}
const tags = [
  ...cssFiles.map((f) => `<link rel="stylesheet" href="${URL_BASE}${f}">`),
  ...pageFiles.filter((f) => f !== mainJs).map((f) => `<link rel="modulepreload" href="${URL_BASE}${f}">`),
  `<script type="module" src="${URL_BASE}${mainJs}"></script>`,
];
html = html.replace(/<script\b[^>]*src="[^"]*main\.tsx"[^>]*><\/script>\s*/g, '').replace('</head>', `${tags.join('\n')}\n</head>`);
fs.writeFileSync(path.join(out, 'index.html'), html);

// Precompressed copies of every asset; the server picks one by Accept-Encoding.
const assetFiles = [...outputs.keys()];
for (const f of assetFiles) {
  const buf = fs.readFileSync(path.join(out, f));
  fs.writeFileSync(path.join(out, `${f}.gz`), zlib.gzipSync(buf, { level: 9 }));
  fs.writeFileSync(
    path.join(out, `${f}.br`),
    zlib.brotliCompressSync(buf, {
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: buf.length },
    }),
  );
}

// The service worker (src/web/sw.ts, docs/web.md "Offline"): its own bundle at a fixed address,
// with this build's id (the hash of index.html and the hashed asset names) and its shell files
// written in, so that each build is a new worker with its own cache.
const shellFiles = assetFiles.filter((f) => f.endsWith('.js') || f.endsWith('.css')).sort();
const buildId = crypto.createHash('sha256').update(html).update(JSON.stringify(shellFiles)).digest('base64url').slice(0, 16);
await build({
  entryPoints: [path.join(src, 'sw.ts')],
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: ['es2022', 'chrome120', 'firefox120', 'safari16'],
  minify: true,
  legalComments: 'none',
  outfile: path.join(out, 'sw.js'),
  logLevel: 'warning',
  define: { __KSPACE_BUILD__: JSON.stringify(buildId), __KSPACE_SHELL__: JSON.stringify(shellFiles) },
});

const manifest: WebManifest = {
  files: ['index.html', 'sw.js', ...assetFiles.flatMap((f) => [f, `${f}.gz`, `${f}.br`])].sort(),
  pageJs: { files: pageFiles, ...sizes(pageFiles) },
  lazyChunks,
  css: { files: cssFiles, ...sizes(cssFiles) },
};
fs.writeFileSync(path.join(out, 'manifest.json'), JSON.stringify(manifest, null, 2));

const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`;
console.log(`built dist/web: ${assetFiles.length} assets`);
console.log(`page view JS: ${kb(manifest.pageJs.gzipBytes)} gzipped (${kb(manifest.pageJs.bytes)} raw, ${pageFiles.length} files)`);
for (const c of lazyChunks) {
  console.log(`${c.editor ? 'editor chunk' : 'lazy chunk'} ${c.entry}: ${kb(c.gzipBytes)} gzipped (${kb(c.bytes)} raw)`);
}
if (!lazyChunks.some((c) => c.editor)) console.log('editor chunk: none yet (no dynamically imported chunk holds CodeMirror)');
console.log(`CSS: ${kb(manifest.css.gzipBytes)} gzipped`);
