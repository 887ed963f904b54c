// Entry of the single executable (scripts/build-binary.ts makes it the SEA main script). It runs
// the program's bundle, an asset, with a V8 code cache that the build took after a real start of
// the server (scripts/lib/sea-train.ts): the functions a start runs come compiled. The SEA's own
// code cache (useCodeCache) holds only what V8 compiles before anything runs, a small part of it,
// so most module bodies and functions would be compiled at every start (docs/performance.md, Cold start).
import path from 'node:path';
import sea from 'node:sea';
import vm from 'node:vm';
import { BUNDLE_ASSET, CODE_CACHE_ASSET, vendorRequire, wrapBundle } from './sea-wrap.ts';

let cachedData: Buffer | undefined;
try {
  cachedData = Buffer.from(sea.getRawAsset(CODE_CACHE_ASSET)); // a view of the executable's bytes, no copy
} catch {
  // built without one: compiled as it runs
}
const script = new vm.Script(wrapBundle(sea.getAsset(BUNDLE_ASSET, 'utf8')), { filename: BUNDLE_ASSET, cachedData });
const run = script.runInThisContext() as (exports: object, req: NodeJS.Require, mod: object, filename: string, dirname: string) => void;
const mod = { exports: {} };
run(
  mod.exports,
  vendorRequire(require, (asset) => sea.getAsset(asset, 'utf8')),
  mod,
  process.execPath,
  path.dirname(process.execPath),
);
