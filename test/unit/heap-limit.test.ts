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
