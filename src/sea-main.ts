// Entry point of the single executable (dist/kspace). Files that a checkout reads from disk come
// from the executable's embedded SEA assets; the native addons (better-sqlite3's, and kspace's
// malloc trim when the build had a C compiler) are written once to a cache directory (named by
// their hash, computed at build time) and loaded with process.dlopen.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sea from 'node:sea';
import { setAssetReader } from './assets.ts';
import { run } from './cli/run.ts';
import { loadTrimAddon, setMallocTrimLoader } from './malloc-trim.ts';
import { setNativeBinding } from './store/db/native.ts';

const ADDON_ASSET = 'better_sqlite3.node';
const TRIM_ASSET = 'malloc-trim.node';

function cacheDir(): string {
  const candidates = [process.env.XDG_CACHE_HOME, process.env.HOME && path.join(process.env.HOME, '.cache'), os.tmpdir()];
  for (const base of candidates) {
    if (!base) continue;
    const dir = path.join(base, 'kspace');
    try {
      fs.mkdirSync(dir, { recursive: true });
      fs.accessSync(dir, fs.constants.W_OK);
      return dir;
    } catch {
      // try the next place
    }
  }
  throw new Error('no writable cache directory for the native addons (set XDG_CACHE_HOME)');
}

/** An addon asset as a file in the cache directory, written there the first time. */
function addonFile(asset: string): string {
  // The hash (`<asset>.sha256`, written by scripts/build-binary.ts) comes with the executable, so
  // no start hashes the addon, and its bytes are only copied out of the executable when the cache
  // lacks them.
  const hash = sea.getAsset(`${asset}.sha256`, 'utf8').trim().slice(0, 16);
  const file = path.join(cacheDir(), `${asset.replace(/\.node$/, '')}-${hash}.node`);
  if (!fs.existsSync(file)) {
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, new Uint8Array(sea.getRawAsset(asset)), { mode: 0o755 });
    fs.renameSync(tmp, file); // atomic: concurrent first starts never load a half-written file
  }
  return file;
}

function loadAddon(): { exports: object; file: string } {
  const file = addonFile(ADDON_ASSET);
  const mod = { exports: {} as object };
  process.dlopen(mod, file);
  return { exports: mod.exports, file };
}

if (sea.isSea()) {
  setAssetReader((name) => {
    try {
      return Buffer.from(sea.getAsset(name));
    } catch {
      return null;
    }
  });
  const addon = loadAddon();
  setNativeBinding(addon.exports, addon.file);
  // Loaded when `serve` starts trimming, a second after it starts; absent when built without a compiler.
  setMallocTrimLoader(() => (sea.getAssetKeys().includes(TRIM_ASSET) ? loadTrimAddon(addonFile(TRIM_ASSET)) : null));
}

run(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});

/**
 * For scripts/lib/sea-train.ts, which trains the code cache on a `serve` start: runs the
 * commander path too (`--version`), so that client commands still start with their functions
 * compiled.
 */
export async function trainCommander(): Promise<void> {
  const { buildProgram } = await import('./cli/main.ts');
  await buildProgram()
    .configureOutput({ writeOut: () => {}, writeErr: () => {} })
    .parseAsync(['--version'], { from: 'user' })
    .catch(() => {});
}
