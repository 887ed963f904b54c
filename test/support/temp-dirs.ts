// Temporary directories that a test file makes and that go after each of its tests.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

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
