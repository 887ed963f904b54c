// Takes the single executable's code cache (scripts/build-binary.ts): runs the bundle as the
// executable does (src/sea-loader.ts, with its assets served as node:sea would), starts the
// server on a scratch data dir, waits for its first 200, and writes the code cache of
// everything compiled so far. Run with the executable's Node flags: V8 takes a cache only from
// a run with the same flags.
//   node <flags> scripts/lib/sea-train.ts <bundle.cjs> <assets.json> <out> <data dir> <port> <key>
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { BUNDLE_ASSET, vendorRequire, wrapBundle } from '../../src/sea-wrap.ts';

const [bundleFile, assetsFile, outFile, dataDir, port, key] = process.argv.slice(2);
const assets = JSON.parse(fs.readFileSync(assetsFile, 'utf8')) as Record<string, string>;
const bytes = (name: string): Buffer => {
  if (!assets[name]) throw new Error(`no asset ${name}`);
  return fs.readFileSync(assets[name]);
};
const fakeSea = {
  isSea: () => true,
  getAsset: (name: string, encoding?: BufferEncoding) => {
    const b = bytes(name);
    return encoding ? b.toString(encoding) : b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  },
  getRawAsset: (name: string) => {
    const b = bytes(name);
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  },
};
const realRequire = createRequire(path.resolve(bundleFile));
const req = vendorRequire(
  Object.assign((id: string) => (id === 'node:sea' ? fakeSea : realRequire(id)), realRequire),
  (asset) => bytes(asset).toString('utf8'),
);
const script = new vm.Script(wrapBundle(fs.readFileSync(bundleFile, 'utf8')), { filename: BUNDLE_ASSET });
process.argv = [process.execPath, 'kspace', 'serve', '--data', dataDir, '--port', port];
const mod = { exports: {} };
(script.runInThisContext() as (...a: unknown[]) => void)(mod.exports, req, mod, process.execPath, path.dirname(process.execPath));
const deadline = Date.now() + 60_000;
for (;;) {
  const status = await fetch(`http://127.0.0.1:${port}/me`, { headers: { authorization: `Bearer ${key}` } }).then(
    (r) => r.status,
    () => 0,
  );
  if (status === 200) break;
  if (Date.now() > deadline) throw new Error('the server did not answer /me within 60 s');
  await new Promise((r) => setTimeout(r, 5));
}
await (mod.exports as { trainCommander?: () => Promise<void> }).trainCommander?.();
// `kspace serve` sets --heap-growing-percent a second after it starts (src/cli/serve-run.ts); a cache
// written after that would carry another flag hash than a start has, and be rejected. Its default
// value brings the start's hash back.
v8.setFlagsFromString('--heap-growing-percent=0');
fs.writeFileSync(outFile, script.createCachedData());
process.exit(0);
