// Where `kspace sync` keeps its state on disk (docs/sync.md "State and crashes"): a snapshot,
// `DIR/.kspace/sync.json`, and beside it a journal, `sync.journal`, of what changed since. A save
// writes only the entries that changed since the last one, as one line appended to the journal and
// flushed; nothing changed, nothing written. When the journal outgrows the snapshot, the snapshot
// is written whole (a new file renamed over the old, flushed) and the journal starts again.
//
// A crash leaves a whole snapshot and a journal whose last line may be torn: each line carries the
// CRC-32 of its text, and the first line that does not check ends what is read (it is cut off, so
// later lines are not written after it). The journal's first line names the snapshot it follows;
// a journal that names another (a crash between a new snapshot and the new journal) is left
// unread, since that snapshot holds all it says. One save is one line: it is read whole or not at all.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

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
export type AttachmentEntry = { pages: readonly string[]; name: string; sha256: string; size: number; mtimeMs: number };
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
const SNAPSHOT = 'sync.json';
const JOURNAL = 'sync.journal';
const HEADER = 'kspace-sync-journal ';
/** The journal is folded into a new snapshot once it is larger than this or than the snapshot. */
const MIN_JOURNAL_BYTES = 256 * 1024;

/** One save: the cursor, and each entry that changed (null: removed). */
type Line = { c: number; f?: Record<string, FileEntry | null>; a?: Record<string, AttachmentEntry | null> };

function fsyncPath(p: string): void {
  const fd = fs.openSync(p, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** A whole file or none: written to a new file, flushed, renamed over the old, the folder flushed. */
export function writeDurably(file: string, data: string | Uint8Array): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  fsyncPath(path.dirname(file));
}

const crcOf = (text: string): string => zlib.crc32(text).toString(16).padStart(8, '0');

/**
 * Entries are frozen once saved: a change is a new entry in the record (which the next save finds
 * by identity), never an edit in place, which the save would not see.
 */
function freeze<T extends FileEntry | AttachmentEntry>(e: T): T {
  if ('pages' in e) Object.freeze(e.pages);
  return Object.freeze(e);
}

/** The journal's lines that check, applied to `state`; the byte length of that good part. */
function replay(state: SyncState, journal: Buffer, id: string): { good: number; valid: boolean } {
  const first = journal.indexOf(10);
  if (first < 0 || journal.toString('utf8', 0, first) !== `${HEADER}${id}`) return { good: 0, valid: false };
  let at = first + 1;
  while (at < journal.length) {
    const end = journal.indexOf(10, at);
    if (end < 0) break;
    const line = journal.toString('utf8', at, end);
    const text = line.slice(9);
    if (line[8] !== ' ' || crcOf(text) !== line.slice(0, 8)) break;
    let l: Line;
    try {
      l = JSON.parse(text) as Line;
    } catch {
      break;
    }
    state.cursor = l.c;
    for (const [rel, e] of Object.entries(l.f ?? {})) {
      if (e) state.files[rel] = e;
      else delete state.files[rel];
    }
    const atts = (state.attachments ??= {});
    for (const [rel, e] of Object.entries(l.a ?? {})) {
      if (e) atts[rel] = e;
      else delete atts[rel];
    }
    at = end + 1;
  }
  return { good: at, valid: true };
}

export class StateFile {
  private readonly dir: string;
  /** The entries as last saved, by identity (they are frozen). */
  private savedFiles = new Map<string, FileEntry>();
  private savedAttachments = new Map<string, AttachmentEntry>();
  private savedCursor = -1;
  /** The snapshot's id, which the journal's header names; null: the next save writes a snapshot. */
  private id: string | null = null;
  private snapshotBytes = 0;
  private journalBytes = 0;
  private fd: number | null = null;
  /** Lines appended and snapshots written (for the tests and the figures). */
  readonly counts = { lines: 0, snapshots: 0 };

  private readonly minJournalBytes: number;

  constructor(dir: string, opts: { minJournalBytes?: number } = {}) {
    this.dir = path.join(dir, STATE_DIR);
    this.minJournalBytes = opts.minJournalBytes ?? MIN_JOURNAL_BYTES;
  }

  /** The state the snapshot and the journal say, or null when there is none. */
  load(): SyncState | null {
    const file = path.join(this.dir, SNAPSHOT);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return null;
    }
    const s = JSON.parse(text) as SyncState & { journal?: string };
    if (s.format !== 'kspace-sync' || s.version !== 1) throw new Error(`${file} is not a kspace sync state`);
    this.snapshotBytes = Buffer.byteLength(text);
    const id = s.journal;
    delete s.journal;
    if (id) {
      const jfile = path.join(this.dir, JOURNAL);
      let journal: Buffer | null = null;
      try {
        journal = fs.readFileSync(jfile);
      } catch {
        /* none yet */
      }
      const r = journal ? replay(s, journal, id) : { good: 0, valid: false };
      if (r.valid) {
        this.id = id;
        this.journalBytes = r.good;
        // A torn last line is cut off, so that the next line is not appended after it.
        if (r.good < journal!.length) {
          fs.truncateSync(jfile, r.good);
          fsyncPath(jfile);
        }
      }
    }
    this.remember(s);
    return s;
  }

  /** Writes what changed in `state` since the last save; false when nothing did. */
  save(state: SyncState): boolean {
    const f: Record<string, FileEntry | null> = {};
    const a: Record<string, AttachmentEntry | null> = {};
    const nf = diff(state.files, this.savedFiles, f);
    const na = diff((state.attachments ??= {}), this.savedAttachments, a);
    // After a failed write (id null) the whole state is written again, changed or not.
    if (nf + na === 0 && state.cursor === this.savedCursor && this.id !== null) return false;
    const line: Line = { c: state.cursor };
    if (nf) line.f = f;
    if (na) line.a = a;
    const text = JSON.stringify(line);
    const limit = Math.max(this.minJournalBytes, this.snapshotBytes);
    try {
      if (this.id === null || this.journalBytes + text.length + 10 > limit) this.snapshot(state);
      else this.append(`${crcOf(text)} ${text}\n`);
    } catch (e) {
      // Not written: the next save writes the whole state.
      this.id = null;
      throw e;
    }
    this.savedCursor = state.cursor;
    return true;
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }

  private append(line: string): void {
    if (this.fd === null) this.fd = fs.openSync(path.join(this.dir, JOURNAL), 'a');
    const bytes = Buffer.from(line);
    if (fs.writeSync(this.fd, bytes) !== bytes.length) throw new Error(`${JOURNAL}: a line was written short`);
    fs.fdatasyncSync(this.fd);
    this.journalBytes += bytes.length;
    this.counts.lines++;
  }

  /** The whole state as a new snapshot with a new id, then a journal that names it. */
  private snapshot(state: SyncState): void {
    const id = crypto.randomBytes(8).toString('hex');
    const text = `${JSON.stringify({ ...state, journal: id })}\n`;
    writeDurably(path.join(this.dir, SNAPSHOT), text);
    this.close();
    const header = `${HEADER}${id}\n`;
    writeDurably(path.join(this.dir, JOURNAL), header);
    this.id = id;
    this.snapshotBytes = Buffer.byteLength(text);
    this.journalBytes = header.length;
    this.counts.snapshots++;
  }

  private remember(state: SyncState): void {
    this.savedCursor = state.cursor;
    this.savedFiles = new Map(Object.entries(state.files));
    for (const e of this.savedFiles.values()) freeze(e);
    this.savedAttachments = new Map(Object.entries(state.attachments ?? {}));
    for (const e of this.savedAttachments.values()) freeze(e);
  }
}

/**
 * The entries of `now` that are not those of `saved` into `out` (null: gone), how many; `saved`
 * becomes `now` (each entry of it frozen).
 */
function diff<T extends FileEntry | AttachmentEntry>(now: Record<string, T>, saved: Map<string, T>, out: Record<string, T | null>): number {
  const before = saved.size;
  let n = 0;
  let seen = 0;
  for (const rel in now) {
    const e = now[rel];
    const was = saved.get(rel);
    if (was !== undefined) seen++;
    if (was === e) continue;
    saved.set(rel, freeze(e));
    if (was !== undefined && JSON.stringify(was) === JSON.stringify(e)) continue;
    out[rel] = e;
    n++;
  }
  if (seen < before) {
    for (const rel of saved.keys()) {
      if (rel in now) continue;
      saved.delete(rel);
      out[rel] = null;
      n++;
    }
  }
  return n;
}
