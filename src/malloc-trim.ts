// Gives the kernel back the free pages that glibc keeps in its malloc arenas. glibc returns an
// arena's memory only from its end, and keeps the rest of what a thread frees for that thread's
// next mallocs; V8 compiles hot functions on background threads, each with an arena of its own,
// and the zones of those compiles stay there as free pages, a sizeable part of the resident set
// under load (docs/performance.md, Memory). glibc's
// malloc_trim(0) returns them; kspace's one native function calls it (src/native/malloc-trim.c).
import fs from 'node:fs';
import { assetPath } from './assets.ts';

/** The addon: malloc_trim(0) on this thread, or on libuv's thread pool (what `serve` uses). */
type MallocTrim = { trim(): boolean; trimAsync(): Promise<boolean> };

/** Trim when the resident set has grown this much over its lowest point since the last trim. */
export const TRIM_GROWTH_BYTES = 4 * 1024 * 1024;
const TRIM_INTERVAL_MS = 1000;

let loadTrim: () => MallocTrim | null = () => loadTrimAddon(assetPath('dist/native/malloc-trim.node'));

/** The single executable carries the addon as an asset and loads it its own way (src/sea-main.ts). */
export function setMallocTrimLoader(load: () => MallocTrim | null): void {
  loadTrim = load;
}

/** The addon; null when the file is absent (built without a C compiler). Throws when it does not load. */
export function loadTrimAddon(file: string): MallocTrim | null {
  if (!fs.existsSync(file)) return null;
  const mod = { exports: {} as Partial<Record<keyof MallocTrim, unknown>> };
  process.dlopen(mod, file);
  const { trim, trimAsync } = mod.exports;
  return typeof trim === 'function' && typeof trimAsync === 'function' ? (mod.exports as MallocTrim) : null;
}

/** Whether to trim: `rss` has grown by at least `growth` over `low`, its lowest since the last trim. */
export function shouldTrim(rss: number, low: number, growth = TRIM_GROWTH_BYTES): boolean {
  return rss - low >= growth;
}

/**
 * Looks at the resident set once a second and trims when it has grown. A look takes microseconds;
 * a trim runs on libuv's thread pool, not the event loop. Returns a stop
 * function, or null when the addon is not there or does not load (the trim is optional: the
 * server runs on without it).
 */
export function startMallocTrim(intervalMs = TRIM_INTERVAL_MS): (() => void) | null {
  let addon: MallocTrim | null;
  try {
    addon = loadTrim();
  } catch {
    return null; // a file that does not load, or the executable's cache directory unwritable
  }
  if (!addon) return null;
  let low = 0; // the first look trims what the start left
  let trimming = false;
  const timer = setInterval(() => {
    if (trimming) return;
    const rss = process.memoryUsage.rss();
    low = Math.min(low, rss);
    if (!shouldTrim(rss, low)) return;
    trimming = true;
    addon.trimAsync().then(
      () => {
        low = process.memoryUsage.rss();
        trimming = false;
      },
      () => {
        trimming = false;
      },
    );
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
