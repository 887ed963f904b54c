// The program's bundle as the single executable runs it (src/sea-loader.ts) and as the build
// trains its code cache (scripts/lib/sea-train.ts): one function of the CommonJS module variables.
// The text must be the same in both: a V8 code cache is only taken for the source it was made from.
import vm from 'node:vm';

export function wrapBundle(source: string): string {
  return `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
}

export const BUNDLE_ASSET = 'kspace.cjs';
export const CODE_CACHE_ASSET = 'kspace.codecache';
/**
 * Dependencies that a server start never evaluates, bundled apart (each an asset, its entry
 * listing what src/ imports from it; scripts/build-binary.ts checks it): the program's bundle
 * and the code cache of a start are a third the size (docs/performance.md, Cold start). The
 * first require of one of `ids` evaluates its bundle.
 */
export const VENDOR_BUNDLES = [
  // The MCP SDK and zod: the first /mcp request, `kspace mcp`.
  {
    asset: 'mcp-vendor.cjs',
    entry: 'src/mcp/vendor.ts',
    external: ['@modelcontextprotocol/sdk/*', 'zod'],
    ids: /^(?:zod|@modelcontextprotocol\/sdk\/.*)$/,
  },
  // undici from npm: webhook deliveries, the remote template catalog (src/domain/net/guarded-fetch.ts).
  { asset: 'undici-vendor.cjs', entry: 'src/domain/net/vendor.ts', external: ['undici'], ids: /^undici$/ },
];

type Run = (exports: object, req: NodeJS.Require, mod: object, filename: string, dirname: string) => void;

/**
 * The bundle's `require`: a module of a vendor bundle comes from it (`source` reads the asset),
 * evaluated at the first such require; anything else (Node's built-ins) from `base`.
 */
export function vendorRequire(base: NodeJS.Require, source: (asset: string) => string): NodeJS.Require {
  const loaded = new Map<string, Record<string, object>>();
  const load = (asset: string): Record<string, object> => {
    let modules = loaded.get(asset);
    if (modules) return modules;
    const mod = { exports: {} as { modules: Record<string, object> } };
    (new vm.Script(wrapBundle(source(asset)), { filename: asset }).runInThisContext() as Run)(mod.exports, base, mod, asset, '.');
    loaded.set(asset, (modules = mod.exports.modules));
    return modules;
  };
  return Object.assign((id: string) => {
    const vendor = VENDOR_BUNDLES.find((v) => v.ids.test(id));
    if (!vendor) return base(id);
    const found = load(vendor.asset)[id];
    if (!found) throw new Error(`${id} is not in the executable's ${vendor.asset} (${vendor.entry})`);
    return found;
  }, base);
}
