import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// In a process of its own: the flags it sets are process-wide, and vitest's workers should keep theirs.
const MODULE = pathToFileURL(path.resolve(import.meta.dirname, '../../src/heap-limit.ts')).href;
const SCRIPT = `
import v8 from 'node:v8';
import vm from 'node:vm';
import { tightenHeapLimit } from ${JSON.stringify(MODULE)};
let junk = [];
for (let i = 0; i < 300000; i++) junk.push({ i, s: 'x'.repeat(16) + i });
junk = null;
const before = v8.getHeapStatistics().used_heap_size;
tightenHeapLimit();
const after = v8.getHeapStatistics().used_heap_size;
console.log(JSON.stringify({ before, after, inNewContext: vm.runInNewContext('typeof gc'), here: typeof globalThis.gc }));
`;

// Five allocation sites, each making 600,000 objects that stay alive, as a growing structure does.
// V8 pretenures such a site after a few young collections: its later objects go to the old
// generation directly, and the phase sees 1–3 young collections instead of 22–29 (the server's
// 4 MB semi-spaces). Each phase's count of young collections is printed.
const PRETENURING = (stop: boolean) => `
import { PerformanceObserver, constants, performance } from 'node:perf_hooks';
import { stopPretenuring } from ${JSON.stringify(MODULE)};
if (${stop}) stopPretenuring();
const minors = [];
const obs = new PerformanceObserver((l) => { for (const e of l.getEntries()) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MINOR) minors.push(e.startTime); });
obs.observe({ entryTypes: ['gc'] });
const sites = [(i) => ({ a: i, b: [i] }), (i) => ({ c: i, d: [i] }), (i) => ({ e: i, f: [i] }), (i) => ({ g: i, h: [i] }), (i) => ({ k: i, l: [i] })];
const phases = [];
const keep = [];
for (const make of sites) {
  const t0 = performance.now();
  for (let i = 0; i < 600_000; i++) keep.push(make(i));
  phases.push([t0, performance.now()]);
}
setTimeout(() => {
  obs.disconnect();
  console.log(JSON.stringify(phases.map(([a, b]) => minors.filter((t) => t >= a && t < b).length)));
}, 50);
`;

function youngCollectionsByPhase(stop: boolean): number[] {
  const run = spawnSync(process.execPath, ['--max-semi-space-size=4', '--input-type=module', '-e', PRETENURING(stop)], {
    encoding: 'utf8',
  });
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as number[];
}

describe('stopPretenuring', () => {
  it('keeps V8 from moving an allocation site to the old generation', () => {
    for (const n of youngCollectionsByPhase(true)) expect(n).toBeGreaterThan(12);
  });

  it('(the same program without it: V8 pretenures, which is what the first test would see if the flag did nothing)', () => {
    expect(Math.min(...youngCollectionsByPhase(false))).toBeLessThan(6);
  });
});

describe('tightenHeapLimit', () => {
  it('collects the heap once (V8 sets the limit then) and leaves no gc function behind', () => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', SCRIPT], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const got = JSON.parse(run.stdout) as { before: number; after: number; inNewContext: string; here: string };
    // ~30 MB of objects nothing refers to any more: only a full collection frees those in the old generation.
    expect(got.before - got.after).toBeGreaterThan(10 * 1024 * 1024);
    expect(got.inNewContext).toBe('undefined');
    expect(got.here).toBe('undefined');
  });
});
