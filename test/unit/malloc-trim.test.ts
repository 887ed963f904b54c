// src/malloc-trim.ts and its addon (src/native/malloc-trim.c, built by scripts/build-native.ts).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { buildNative } from '../../scripts/build-native.ts';
import { TRIM_GROWTH_BYTES, loadTrimAddon, setMallocTrimLoader, shouldTrim, startMallocTrim } from '../../src/malloc-trim.ts';
import { killHard, startChildServer } from '../support/child-server.ts';
import { waitFor } from '../support/wait.ts';

const MB = 1024 * 1024;
// Null on a machine without a C compiler: kspace runs without the addon there, and these tests skip.
const addon = buildNative();
const MODULE = pathToFileURL(path.resolve(import.meta.dirname, '../../src/malloc-trim.ts')).href;

describe('shouldTrim', () => {
  it.each([
    { rss: 100 * MB, low: 0, want: true, why: 'the first look after start' },
    { rss: 100 * MB, low: 100 * MB, want: false, why: 'no growth' },
    { rss: 100 * MB + TRIM_GROWTH_BYTES - 1, low: 100 * MB, want: false, why: 'just under the growth' },
    { rss: 100 * MB + TRIM_GROWTH_BYTES, low: 100 * MB, want: true, why: 'exactly the growth' },
    { rss: 90 * MB, low: 100 * MB, want: false, why: 'below the last low' },
  ])('$why → $want', ({ rss, low, want }) => {
    expect(shouldTrim(rss, low)).toBe(want);
  });
});

describe('startMallocTrim', () => {
  afterEach(() => setMallocTrimLoader(() => null));

  it('does nothing without the addon, or when it does not load', () => {
    setMallocTrimLoader(() => null);
    expect(startMallocTrim(5)).toBeNull();
    setMallocTrimLoader(() => {
      throw new Error('ENOSPC: no space left on device');
    });
    expect(startMallocTrim(5)).toBeNull();
  });

  it('trims at its first look, then only after growth, until stopped', async () => {
    let calls = 0;
    setMallocTrimLoader(() => ({
      trim: () => true,
      trimAsync: async () => {
        calls++;
        return true;
      },
    }));
    const stop = startMallocTrim(5)!;
    expect(await waitFor(() => calls === 1, 2000, 5)).toBe(true);
    await new Promise((r) => setTimeout(r, 60)); // ~10 more looks, and this process has not grown by 4 MB
    expect(calls).toBe(1);
    let junk: Uint8Array[] | null = Array.from({ length: 48 }, () => new Uint8Array(MB).fill(1));
    expect(await waitFor(() => calls === 2, 2000, 5)).toBe(true);
    junk = null;
    stop();
    const after = calls;
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toBe(after);
    expect(junk).toBeNull();
  });

  it('starts no trim while one is still running', async () => {
    let calls = 0;
    setMallocTrimLoader(() => ({ trim: () => true, trimAsync: () => (calls++, new Promise<boolean>(() => {})) }));
    const stop = startMallocTrim(5)!;
    expect(await waitFor(() => calls === 1, 2000, 5)).toBe(true);
    const junk = Array.from({ length: 48 }, () => new Uint8Array(MB).fill(1));
    await new Promise((r) => setTimeout(r, 100));
    stop();
    expect(calls).toBe(1);
    expect(junk).toHaveLength(48);
  });
});

describe('scripts/build-native.ts', () => {
  // In a copy of the tree: the checkout's own dist/native is what the other tests load.
  function tree(): string {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-native-'));
    const real = path.resolve(import.meta.dirname, '../..');
    for (const f of ['scripts/build-native.ts', 'src/native/malloc-trim.c']) {
      fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
      fs.copyFileSync(path.join(real, f), path.join(root, f));
    }
    fs.symlinkSync(path.join(real, 'node_modules'), path.join(root, 'node_modules'));
    return root;
  }

  it('warns and exits 0 without a C compiler, and builds nothing', () => {
    const root = tree();
    try {
      const r = spawnSync(process.execPath, [path.join(root, 'scripts/build-native.ts')], {
        encoding: 'utf8',
        env: { ...process.env, CC: path.join(root, 'no-such-cc') },
      });
      expect(r.status).toBe(0);
      expect(r.stderr).toMatch(/^kspace: src\/native\/malloc-trim\.c not built \(.+\): kspace runs without it/);
      expect(fs.readdirSync(path.join(root, 'dist/native'))).toEqual([]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it.skipIf(addon === null)('builds the addon where there is one', () => {
    const root = tree();
    try {
      const r = spawnSync(process.execPath, [path.join(root, 'scripts/build-native.ts')], { encoding: 'utf8' });
      expect(r).toMatchObject({ status: 0, stderr: '' });
      expect(fs.readdirSync(path.join(root, 'dist/native'))).toEqual(['malloc-trim.node']);
      expect(loadTrimAddon(path.join(root, 'dist/native/malloc-trim.node'))?.trim()).toBeTypeOf('boolean');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe.skipIf(addon === null)('the malloc-trim addon', () => {
  it.each(['trim', 'trimAsync'])('gives back the free pages inside the heap (%s)', (how) => {
    // 64 MB of 16 KB buffers, nine in ten freed: holes glibc keeps (the kept tenth holds the heap's end).
    const script = `
      import { loadTrimAddon } from ${JSON.stringify(MODULE)};
      const addon = loadTrimAddon(${JSON.stringify(addon)});
      let all = Array.from({ length: 4000 }, () => new Uint8Array(16384).fill(1));
      const kept = all.filter((_, i) => i % 10 === 0);
      all = null;
      globalThis.gc();
      await new Promise((r) => setTimeout(r, 200)); // V8 frees array buffers off the main thread
      globalThis.gc();
      const before = process.memoryUsage.rss();
      const trimmed = await addon.${how}(); // trimAsync: on libuv's thread pool
      console.log(JSON.stringify({ trimmed, freed: before - process.memoryUsage.rss(), kept: kept.length }));
    `;
    const run = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const got = JSON.parse(run.stdout) as { trimmed: boolean; freed: number; kept: number };
    expect(got.trimmed).toBe(true);
    expect(got.freed).toBeGreaterThan(30 * MB);
    expect(got.kept).toBe(400);
  });

  it('is null for a file that is not there, and throws for one that is no addon', () => {
    expect(loadTrimAddon(path.join(os.tmpdir(), 'no-such-addon.node'))).toBeNull();
    expect(() => loadTrimAddon(path.resolve(import.meta.dirname, '../../src/native/malloc-trim.c'))).toThrow();
  });

  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('is loaded by kspace serve from a checkout, a second after it starts', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-trim-'));
    dirs.push(dataDir);
    const srv = await startChildServer(dataDir, { SERVICE_BOOTSTRAP_ADMIN_KEY: 'ks_trim_test_key_0123456789abcdef' });
    try {
      const maps = () => fs.readFileSync(`/proc/${srv.proc.pid}/maps`, 'utf8');
      expect(maps()).not.toContain('malloc-trim.node');
      expect(await waitFor(() => maps().includes('malloc-trim.node'), 5000)).toBe(true);
    } finally {
      await killHard(srv);
    }
  });
});
