// The synced files as `kspace sync` writes them (the state that records them is state-file.ts,
// the merge bases bases.ts). Every write is a new file renamed over the old one, so a crash leaves
// the old file or the new, never a torn one. The files a round wrote reach the disk before the
// state that records them. A change done but not yet recorded is found again at the next run and
// matched by content, so it is neither lost nor repeated (docs/sync.md, State and crashes).
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export type { AttachmentEntry, FileEntry, SyncState } from './state-file.ts';
export { STATE_DIR } from './state-file.ts';

export const sha256 = (text: string | Uint8Array): string => createHash('sha256').update(text).digest('hex');

/** A file's size and time, as the scan of the folder reads them. */
export type FileStat = { size: number; mtimeMs: number };

/**
 * Writes a synced file whole or not at all (the flush before the state makes it durable); its size
 * and time once written (a rename keeps them), so that a later edit shows as a change.
 */
export function writeFileAtomic(dir: string, rel: string, text: string | Uint8Array): FileStat {
  const file = path.join(dir, ...rel.split('/'));
  const tmp = `${file}.${process.pid}.kspace-tmp`;
  let fd: number;
  try {
    fd = fs.openSync(tmp, 'w');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fd = fs.openSync(tmp, 'w');
  }
  let st: fs.Stats;
  try {
    fs.writeSync(fd, typeof text === 'string' ? Buffer.from(text) : text);
    st = fs.fstatSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  return { size: st.size, mtimeMs: st.mtimeMs };
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
