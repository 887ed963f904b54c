// The files `kspace sync` writes: the synced files themselves, and in `DIR/.kspace/base/<sha256>`
// the text of each file as last synced, the common ancestor of a three-way merge (the state that
// records them is state-file.ts). Every write is a new file renamed over the old one, so a crash
// leaves the old file or the new, never a torn one. The files a round wrote reach the disk before
// the state that records them; a base is checked against its name when read. A change done but
// not yet recorded is found again at the next run and matched by content, so it is neither lost
// nor repeated (docs/sync.md, State and crashes).
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { STATE_DIR, type SyncState } from './state-file.ts';

export type { AttachmentEntry, FileEntry, SyncState } from './state-file.ts';
export { STATE_DIR } from './state-file.ts';
const BASE_DIR = 'base';

export const sha256 = (text: string | Uint8Array): string => createHash('sha256').update(text).digest('hex');

/** Writes a synced file whole or not at all (the flush before the state makes it durable). */
export function writeFileAtomic(dir: string, rel: string, text: string | Uint8Array): void {
  const file = path.join(dir, ...rel.split('/'));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.kspace-tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

/** Up to this many files are flushed one by one; more, the file system at once. */
const FLUSH_EACH = 32;

/**
 * `files`, written under `dir`, to the disk: a few (an edit while following) each with its own
 * flush; many (a first sync) with one `sync -f` of the file system, since a flush per file would
 * make a first sync of 10,000 files take minutes, or each where that command is missing.
 */
export function flushFolder(dir: string, files: string[]): void {
  if (files.length > FLUSH_EACH && spawnSync('sync', ['-f', dir], { stdio: 'ignore' }).status === 0) return;
  for (const f of files) {
    try {
      const fd = fs.openSync(f, 'r');
      try {
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      /* gone since: nothing to keep */
    }
  }
}

/** Keeps `text` as a merge base; returns its hash. */
export function keepBase(dir: string, text: string): string {
  const hash = sha256(text);
  const rel = `${STATE_DIR}/${BASE_DIR}/${hash}`;
  if (!fs.existsSync(path.join(dir, ...rel.split('/')))) writeFileAtomic(dir, rel, text);
  return hash;
}

/** A base, or null when it is missing or not what its name says (cut short by a power loss). */
export function readBase(dir: string, hash: string): string | null {
  try {
    const text = fs.readFileSync(path.join(dir, STATE_DIR, BASE_DIR, hash), 'utf8');
    return sha256(text) === hash ? text : null;
  } catch {
    return null;
  }
}

/** Removes the bases no file refers to any more. */
export function pruneBases(dir: string, state: SyncState): void {
  const used = new Set(Object.values(state.files).flatMap((f) => (f.pushing ? [f.hash, f.pushing] : [f.hash])));
  const base = path.join(dir, STATE_DIR, BASE_DIR);
  let names: string[] = [];
  try {
    names = fs.readdirSync(base);
  } catch {
    return;
  }
  for (const n of names) if (!used.has(n) && !n.endsWith('.kspace-tmp')) fs.rmSync(path.join(base, n), { force: true });
}
