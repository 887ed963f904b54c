import fs from 'node:fs';
import path from 'node:path';

// Files that ship with kspace (schema.sql, the built-in template catalog, web assets). From a
// checkout they are read from the source tree; the single executable swaps in a reader over its
// embedded SEA assets (src/sea-main.ts) before anything else runs.
let root = process.env.KSPACE_ROOT ?? process.cwd();
let reader: ((name: string) => Buffer | null) | null = null;

export function setAssetRoot(dir: string): void {
  root = dir;
}

export function setAssetReader(read: (name: string) => Buffer | null): void {
  reader = read;
}

/** Where a shipped file lies in a checkout (not in the single executable, which has no such files). */
export function assetPath(name: string): string {
  return path.join(root, name);
}

/** The bytes of a shipped file, by its path relative to the project root; null when absent. */
export function readAsset(name: string): Buffer | null {
  if (reader) return reader(name);
  try {
    return fs.readFileSync(path.join(root, name));
  } catch {
    return null;
  }
}

export function readAssetText(name: string): string {
  const buf = readAsset(name);
  if (!buf) throw new Error(`kspace asset missing: ${name}`);
  return buf.toString('utf8');
}
