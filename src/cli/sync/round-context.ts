// What the steps of a `kspace sync` round share (docs/sync.md): the server, the folder, the state
// in `DIR/.kspace/`, and the folder-side writes with the records that say a file and its page
// agree. The steps themselves are first-run.ts, pull.ts, push.ts and reconcile.ts.
import fs from 'node:fs';
import type { BundleError, BundlePage } from '../../domain/bundles/bundle.ts';
import { pageToNote, type KeptPage } from '../../domain/bundles/folder-kept.ts';
import { fileToPage } from '../../domain/bundles/markdown-folder.ts';
import { KeptPages } from './kept.ts';
import type { Api } from '../client.ts';
import { Remote, type ServerPage } from './remote.ts';
import { absolute, conflictName, dropEmptyFolders, readText, type LocalFile } from './folder.ts';
import { compileIgnore, type Ignore } from './ignore.ts';
import { BasePack } from './bases.ts';
import { flushFolder, sha256, writeFileAtomic, type FileEntry, type FileStat, type SyncState } from './state.ts';
import { StateFile } from './state-file.ts';

export type SyncReport = {
  pulled: number;
  pushed: number;
  created: number;
  deleted: number;
  moved: number;
  merged: number;
  conflicts: string[];
  errors: Array<{ path: string; message: string }>;
};

export const newReport = (): SyncReport => ({
  pulled: 0,
  pushed: 0,
  created: 0,
  deleted: 0,
  moved: 0,
  merged: 0,
  conflicts: [],
  errors: [],
});

export class RoundContext {
  state: SyncState | null = null;
  ignore: Ignore = compileIgnore();

  readonly remote: Remote;
  /** Where the state is kept: a snapshot and a journal of what changed since. */
  readonly store: StateFile;
  /** The texts the files and pages last agreed on (the merge's common ancestor). */
  readonly bases: BasePack;
  /** What `.kspace/pages.json` keeps of each note (its title when not its file's name, …). */
  readonly kept: KeptPages;
  readonly dir: string;
  readonly space: string;
  readonly who: string;
  readonly log: (line: string) => void;

  /** Files written since the last save: flushed to the disk before the state that records them. */
  private written: string[] = [];

  constructor(api: Api, dir: string, space: string, who: string, log: (line: string) => void) {
    this.remote = new Remote(api, space);
    this.store = new StateFile(dir);
    this.bases = new BasePack(dir);
    this.kept = new KeptPages(dir);
    this.dir = dir;
    this.space = space;
    this.who = who;
    this.log = log;
  }

  /** The state of a round in progress (there is one once the first run has begun). */
  get s(): SyncState {
    return this.state!;
  }

  write(rel: string, text: string | Uint8Array): FileStat {
    const st = writeFileAtomic(this.dir, rel, text);
    this.written.push(absolute(this.dir, rel));
    return st;
  }

  /** The files written since the last save to the disk, then what changed in the state. */
  save(): void {
    if (this.written.length) flushFolder(this.dir, this.written.splice(0));
    this.bases.flush(); // the bases the state names (a `pushing` text above all) before the state
    this.kept.flush(); // the titles of the notes it names
    this.store.save(this.state!);
  }

  /** The note at `rel` (this text of it) as a page, with what pages.json keeps of it. */
  pageOf(rel: string, text: string, kept?: KeptPage): BundlePage | BundleError {
    return fileToPage({ path: rel, text }, kept ?? this.kept.get(rel));
  }

  /** A page as the note at `rel`: its text, and what pages.json keeps of it. */
  noteOf(rel: string, page: BundlePage): { text: string; kept: KeptPage } {
    const n = pageToNote(page, rel);
    return { text: n.text, kept: n.kept ?? {} };
  }

  /** Writes the server's page to its file and records it as synced. */
  writeLocal(rel: string, page: ServerPage): void {
    const { text, kept } = this.noteOf(rel, page);
    this.kept.set(rel, Object.keys(kept).length ? kept : null);
    this.record(rel, page.path, page.version, text, this.write(rel, text));
  }

  /**
   * The file at `rel` and the page agree on `text` at `version`. `known`: the file's size and time
   * when `text` was written to it, or read before `text` was read from it (an edit after that
   * shows as a change at the next look); without it, they are read now and the file read back.
   */
  record(rel: string, page: string, version: number, text: string, known?: FileStat): void {
    const hash = this.bases.keep(text);
    if (known) {
      this.state!.files[rel] = { page, version, hash, size: known.size, mtimeMs: known.mtimeMs };
      return;
    }
    const st = fs.statSync(absolute(this.dir, rel));
    // The size and time say "unchanged" at the next scan only if the file still holds `text`: an
    // edit made while this round read, sent and recorded it must not hide behind them.
    const same = readText(this.dir, rel) === text;
    this.state!.files[rel] = { page, version, hash, size: same ? st.size : -1, mtimeMs: same ? st.mtimeMs : -1 };
  }

  removeLocal(rel: string): void {
    fs.rmSync(absolute(this.dir, rel), { force: true });
    delete this.state!.files[rel];
    this.kept.set(rel, null);
    dropEmptyFolders(this.dir, rel);
  }

  /** Whether the file changed since it was last synced (its size or time first, then its hash). */
  changedOnDisk(rel: string, entry: FileEntry, local?: LocalFile): { text: string } | null {
    if (local && local.size === entry.size && local.mtimeMs === entry.mtimeMs) return null;
    const text = readText(this.dir, rel);
    if (text === null) return null;
    return sha256(text) === entry.hash ? null : { text };
  }

  /** page → its file, checked at each use and rebuilt on a miss (a round looks up each change's page). */
  private byPage = new Map<string, string>();

  entryOfPage(page: string): [string, FileEntry] | undefined {
    const files = this.state!.files;
    const hit = this.byPage.get(page);
    if (hit !== undefined && files[hit]?.page === page) return [hit, files[hit]];
    this.byPage.clear();
    for (const [rel, e] of Object.entries(files)) this.byPage.set(e.page, rel);
    const rel = this.byPage.get(page);
    return rel === undefined ? undefined : [rel, files[rel]];
  }

  /**
   * Before a PUT: what is being sent, recorded durably, so that a run stopped between the PUT and
   * its record knows at the next start that the server's version is this text (see reconcile).
   */
  markPushing(rel: string, entry: FileEntry, text: string): void {
    this.state!.files[rel] = { ...entry, pushing: this.bases.keep(text) };
    this.save();
  }

  /** The server's version to the file, the folder's beside it (a new page at the next push). */
  conflict(rel: string, text: string, server: ServerPage, report: SyncReport): void {
    const other = conflictName(rel, this.who, new Date());
    this.write(other, text);
    this.kept.move(rel, other); // the folder's version keeps the title it had
    this.writeLocal(rel, server);
    report.conflicts.push(other);
    this.log(`conflict: ${rel} changed on both sides; yours is kept as ${other}`);
  }
}
