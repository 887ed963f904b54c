// The program's bundle as the single executable runs it (src/sea-loader.ts) and as the build
// trains its code cache (scripts/lib/sea-train.ts): one function of the CommonJS module variables.
// The text must be the same in both: a V8 code cache is only taken for the source it was made from.
import vm from 'node:vm';

export function wrapBundle(source: string): string {
  return `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
}

export const BUNDLE_ASSET = 'kspace.cjs';
export const CODE_CACHE_ASSET = 'kspace.codecache';
/** The MCP SDK and zod (src/mcp/vendor.ts), outside the program's bundle. */
export const MCP_VENDOR_ASSET = 'mcp-vendor.cjs';
/** What the program's bundle requires from MCP_VENDOR_ASSET: the build leaves these out of it. */
export const MCP_VENDOR_EXTERNAL = ['@modelcontextprotocol/sdk/*', 'zod'];

const vendored = (id: string) => id === 'zod' || id.startsWith('@modelcontextprotocol/sdk/');

/**
 * The bundle's `require`: the MCP SDK and zod come from the vendor bundle (`source` reads it),
 * evaluated at the first such require; anything else (Node's built-ins) from `base`.
 */
export function vendorRequire(base: NodeJS.Require, source: () => string): NodeJS.Require {
  let modules: Record<string, object> | null = null;
  const load = (): Record<string, object> => {
    if (modules) return modules;
    const mod = { exports: {} as { modules: Record<string, object> } };
    const run = new vm.Script(wrapBundle(source()), { filename: MCP_VENDOR_ASSET }).runInThisContext() as (exports: object, req: NodeJS.Require, mod: object, filename: string, dirname: string) => void;
    run(mod.exports, base, mod, MCP_VENDOR_ASSET, '.');
    return (modules = mod.exports.modules);
  };
  return Object.assign((id: string) => {
    if (!vendored(id)) return base(id);
    const found = load()[id];
    if (!found) throw new Error(`${id} is not in the executable's MCP bundle (src/mcp/vendor.ts)`);
    return found;
  }, base);
}
