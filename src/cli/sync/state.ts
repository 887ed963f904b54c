// The state `kspace sync` keeps in `DIR/.kspace/`: the change feed's cursor and, for each file it
// has synced, its page, the page's version and the file's hash then (sync.json); and the text of
// each file as last synced (base/<sha256>), the common ancestor of a three-way merge. Every write
// is a new file renamed over the old one after an fsync, so a crash leaves the old state or the
// new, never a torn one. A change done but not yet recorded is found again at the next run and
// matched by content, so it is neither lost nor repeated (docs/sync.md, State and crashes).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export type FileEntry = { page: string; version: number; hash: string; size: number; mtimeMs: number };
export type SyncState = { format: 'kspace-sync'; version: 1; server: string; space: string; cursor: number; files: Record<string, FileEntry> };

export const STATE_DIR = '.kspace';
const STATE_FILE = 'sync.json';
const BASE_DIR = 'base';

export const sha256 = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

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
  try { fs.fsyncSync(dir); } finally { fs.closeSync(dir); }
}

/** Writes a synced file the same way: whole, or not at all. */
export function writeFileDurably(dir: string, rel: string, text: string): void {
  writeDurably(path.join(dir, ...rel.split('/')), text);
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
  const file = path.join(dir, STATE_DIR, BASE_DIR, hash);
  if (!fs.existsSync(file)) writeDurably(file, text);
  return hash;
}

export function readBase(dir: string, hash: string): string | null {
  try {
    return fs.readFileSync(path.join(dir, STATE_DIR, BASE_DIR, hash), 'utf8');
  } catch {
    return null;
  }
}

/** Removes the bases no file refers to any more. */
export function pruneBases(dir: string, state: SyncState): void {
  const used = new Set(Object.values(state.files).map((f) => f.hash));
  const base = path.join(dir, STATE_DIR, BASE_DIR);
  let names: string[] = [];
  try { names = fs.readdirSync(base); } catch { return; }
  for (const n of names) if (!used.has(n) && !n.endsWith('.tmp')) fs.rmSync(path.join(base, n), { force: true });
}
