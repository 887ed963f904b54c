// Temporary directories that a test file makes: for one test (tempDirs) or for the whole file (fileTempDir).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach } from 'vitest';

/** Registers the clean-up and returns a function making a new `kspace-<prefix>-…` directory. */
export function tempDirs(prefix: string): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), `kspace-${prefix}-`));
    dirs.push(d);
    return d;
  };
}

/** A new `kspace-<prefix>-…` directory for the whole test file, removed after its last test. */
export function fileTempDir(prefix: string): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `kspace-${prefix}-`));
  afterAll(() => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}
