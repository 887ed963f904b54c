// Entry point of the single executable (dist/kspace). Files that a checkout reads from disk come
// from the executable's embedded SEA assets; the better-sqlite3 addon is written once to a cache
// directory (named by its hash) and loaded with process.dlopen.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sea from 'node:sea';
import { setAssetReader } from './assets.ts';
import { main } from './cli/main.ts';
import { setNativeBinding } from './store/db.ts';

const ADDON_ASSET = 'better_sqlite3.node';

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
  throw new Error('no writable cache directory for the SQLite addon (set XDG_CACHE_HOME)');
}

function loadAddon(): object {
  const bytes = Buffer.from(sea.getAsset(ADDON_ASSET));
  const hash = crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const file = path.join(cacheDir(), `better_sqlite3-${hash}.node`);
  if (!fs.existsSync(file)) {
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, bytes, { mode: 0o755 });
    fs.renameSync(tmp, file); // atomic: concurrent first starts never load a half-written file
  }
  const mod = { exports: {} as object };
  process.dlopen(mod, file);
  return mod.exports;
}

if (sea.isSea()) {
  setAssetReader((name) => {
    try {
      return Buffer.from(sea.getAsset(name));
    } catch {
      return null;
    }
  });
  setNativeBinding(loadAddon());
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
