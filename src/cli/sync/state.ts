// The state `kspace sync` keeps in `DIR/.kspace/`: the change feed's cursor and, for each file it
// has synced, its page, the page's version and the file's hash then (sync.json); and the text of
// each file as last synced (base/<sha256>), the common ancestor of a three-way merge. Every write
// is a new file renamed over the old one, so a crash leaves the old file or the new, never a torn
// one. The files a round wrote reach the disk (one flush of the file system) before the state
// that records them; a base is checked against its name when read. A change done but not yet
// recorded is found again at the next run and matched by content, so it is neither lost nor
// repeated (docs/sync.md, State and crashes).
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export type FileEntry = {
  page: string;
  version: number;
  hash: string;
  size: number;
  mtimeMs: number;
  /** The hash of a text being sent to the server and not yet recorded as agreed (a PUT in flight). */
  pushing?: string;
};
/**
 * An attached file on disk: the pages it is attached to under `name` (one file in the folder can
 * be the same file of several pages of one folder, as the export writes it), its hash, size and
 * time when it was last synced.
 */
export type AttachmentEntry = { pages: string[]; name: string; sha256: string; size: number; mtimeMs: number };
export type SyncState = {
  format: 'kspace-sync';
  version: 1;
  server: string;
  space: string;
  cursor: number;
  files: Record<string, FileEntry>;
  /** The attached files, by their path in the folder (absent in a state from before they were synced). */
  attachments?: Record<string, AttachmentEntry>;
};

export const STATE_DIR = '.kspace';
const STATE_FILE = 'sync.json';
const BASE_DIR = 'base';

export const sha256 = (text: string | Uint8Array): string => createHash('sha256').update(text).digest('hex');

function writeDurably(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  const dir = fs.openSync(path.dirname(file), 'r');
  try {
    fs.fsyncSync(dir);
  } finally {
    fs.closeSync(dir);
  }
}

/** Writes a synced file whole or not at all (the flush before the state makes it durable). */
export function writeFileAtomic(dir: string, rel: string, text: string | Uint8Array): void {
  const file = path.join(dir, ...rel.split('/'));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.kspace-tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

/**
 * Everything written under `dir` to the disk: one `sync -f` of its file system (a flush per file
 * would make a first sync of 10,000 files take minutes); where that is missing, each of `files`.
 */
export function flushFolder(dir: string, files: string[]): void {
  const r = spawnSync('sync', ['-f', dir], { stdio: 'ignore' });
  if (r.status === 0) return;
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

export function loadState(dir: string): SyncState | null {
  const file = path.join(dir, STATE_DIR, STATE_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const s = JSON.parse(text) as SyncState;
  if (s.format !== 'kspace-sync' || s.version !== 1) throw new Error(`${file} is not a kspace sync state`);
  return s;
}

export function saveState(dir: string, state: SyncState): void {
  writeDurably(path.join(dir, STATE_DIR, STATE_FILE), `${JSON.stringify(state)}\n`);
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
