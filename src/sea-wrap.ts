// The program's bundle as the single executable runs it (src/sea-loader.ts) and as the build
// trains its code cache (scripts/lib/sea-train.ts): one function of the CommonJS module variables.
// The text must be the same in both: a V8 code cache is only taken for the source it was made from.
export function wrapBundle(source: string): string {
  return `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
}

export const BUNDLE_ASSET = 'kspace.cjs';
export const CODE_CACHE_ASSET = 'kspace.codecache';
