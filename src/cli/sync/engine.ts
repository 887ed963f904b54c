// `kspace sync`: a folder of Markdown files and a space kept the same, both ways (docs/sync.md).
// The folder has the layout of `kspace export --format markdown` (one `<path>.md` a page, the
// shared pure conversion of domain/bundles/markdown-folder.ts). Each round pulls what the change
// feed says changed on the server, then pushes what changed on disk. A page changed on both sides
// since the last round is merged line by line when the changes do not overlap; otherwise the
// server keeps its version and the folder's goes beside it as `<name>.conflict-<who>-<time>.md`,
// which the next push makes a page too. Nothing is lost either way.
import fs from 'node:fs';
import path from 'node:path';
import type { BundlePage } from '../../domain/bundles/bundle.ts';
import { fileOfPage, fileToPage, pageToFile } from '../../domain/bundles/markdown-folder.ts';
import { mergeThreeWay } from '../../text/line-merge.ts';
import type { Api } from '../client.ts';
import { ExitError } from '../exit-error.ts';
import { FEED_LIMIT, Remote, samePage, statusOf, type Change, type ServerPage } from './remote.ts';
import { absolute, conflictName, dropEmptyFolders, readText, scanFolder, type LocalFile } from './folder.ts';
import { compileIgnore, type Ignore } from './ignore.ts';
import {
  flushFolder, keepBase, loadState, pruneBases, readBase, saveState, sha256, STATE_DIR, writeFileAtomic, type FileEntry, type SyncState,
} from './state.ts';


export type SyncReport = {
  pulled: number; pushed: number; created: number; deleted: number; moved: number; merged: number;
  conflicts: string[]; errors: Array<{ path: string; message: string }>;
};

const newReport = (): SyncReport => ({ pulled: 0, pushed: 0, created: 0, deleted: 0, moved: 0, merged: 0, conflicts: [], errors: [] });


export class Syncer {
  private state: SyncState | null = null;
  private ignore: Ignore = compileIgnore();

  private readonly remote: Remote;
  private readonly dir: string;
  private readonly space: string;
  private readonly who: string;
  private readonly log: (line: string) => void;

  constructor(api: Api, dir: string, space: string, who: string, log: (line: string) => void = () => undefined) {
    this.remote = new Remote(api, space);
    this.dir = dir;
    this.space = space;
    this.who = who;
    this.log = log;
  }

  /** One round: the first run's matching when there is no state yet, then pull, then push. */
  async round(): Promise<SyncReport> {
    const report = newReport();
    this.ignore = compileIgnore(this.readIgnoreFile());
    if (!this.state) this.state = loadState(this.dir);
    if (this.state && this.state.space !== this.space) {
      throw new ExitError(`${this.dir} is synced with space '${this.state.space}', not '${this.space}'`);
    }
    if (!this.state) await this.firstRun(report);
    else await this.pull(report);
    await this.push(report);
    pruneBases(this.dir, this.state!);
    return report;
  }

  private readIgnoreFile(): string {
    try { return fs.readFileSync(path.join(this.dir, '.kspaceignore'), 'utf8'); } catch { return ''; }
  }

  /** Files written since the last save: flushed to the disk before the state that records them. */
  private written: string[] = [];

  private write(rel: string, text: string): void {
    writeFileAtomic(this.dir, rel, text);
    this.written.push(absolute(this.dir, rel));
  }

  private save(): void {
    if (this.written.length) flushFolder(this.dir, this.written.splice(0));
    saveState(this.dir, this.state!);
  }

  // ---- the folder side

  /** Writes the server's page to its file and records it as synced. */
  private writeLocal(rel: string, page: ServerPage): void {
    const text = pageToFile(page).text;
    this.write(rel, text);
    this.record(rel, page.path, page.version, text);
  }

  private record(rel: string, page: string, version: number, text: string): void {
    const st = fs.statSync(absolute(this.dir, rel));
    const hash = keepBase(this.dir, text);
    // The size and time say "unchanged" at the next scan only if the file still holds `text`: an
    // edit made while this round read, sent and recorded it must not hide behind them.
    const same = readText(this.dir, rel) === text;
    this.state!.files[rel] = { page, version, hash, size: same ? st.size : -1, mtimeMs: same ? st.mtimeMs : -1 };
  }

  private removeLocal(rel: string): void {
    fs.rmSync(absolute(this.dir, rel), { force: true });
    delete this.state!.files[rel];
    dropEmptyFolders(this.dir, rel);
  }

  /** Whether the file changed since it was last synced (its size or time first, then its hash). */
  private changedOnDisk(rel: string, entry: FileEntry, local?: LocalFile): { text: string } | null {
    if (local && local.size === entry.size && local.mtimeMs === entry.mtimeMs) return null;
    const text = readText(this.dir, rel);
    if (text === null) return null;
    return sha256(text) === entry.hash ? null : { text };
  }

  // ---- first run

  private async firstRun(report: SyncReport): Promise<void> {
    // The feed's head before anything is read: what changes after it comes again through the feed.
    const cursor = await this.remote.feedHead();
    const local = scanFolder(this.dir, this.ignore);
    this.state = { format: 'kspace-sync', version: 1, server: this.remote.api.base.origin, space: this.space, cursor, files: {} };
    fs.mkdirSync(path.join(this.dir, STATE_DIR), { recursive: true });
    // Versions before content: a page changed between the two reads is recorded older than its
    // text, so the feed brings it again (the other way round, a change would be skipped).
    let versions = await this.remote.listVersions();
    if (versions.size === 0 && local.size > 0) {
      await this.importAll(local, report);
      versions = await this.remote.listVersions();
    }
    const pages = versions.size === 0 ? [] : await this.remote.exportPages();
    for (const page of pages) {
      const version = versions.get(page.path);
      if (version === undefined) continue; // created after the listing: the feed brings it
      const server = { ...page, version };
      const rel = fileOfPage(page.path);
      if (this.state.files[rel]) continue; // imported just now
      const text = local.has(rel) ? readText(this.dir, rel) : null;
      if (text === null) {
        this.writeLocal(rel, server);
        report.pulled++;
      } else {
        const mine = fileToPage({ path: rel, text });
        if ('code' in mine || !samePage(mine, server)) this.conflict(rel, text, server, report);
        else this.record(rel, page.path, version, text);
      }
    }
    this.save();
  }

  /**
   * A folder into an empty space: its files through the bundle import (their text as written), each
   * then recorded with its page.
   */
  private async importAll(local: Map<string, LocalFile>, report: SyncReport): Promise<void> {
    const pages: BundlePage[] = [];
    const relOf = new Map<string, string>();
    for (const rel of local.keys()) {
      const text = readText(this.dir, rel);
      if (text === null) continue;
      const page = fileToPage({ path: rel, text });
      if ('code' in page) { report.errors.push({ path: rel, message: page.message }); continue; }
      if (relOf.has(page.path)) continue; // two files of one page: the second is pushed (and refused) later
      relOf.set(page.path, rel);
      pages.push(page);
    }
    const failed = await this.remote.importPages(pages);
    for (const f of failed) report.errors.push({ path: relOf.get(f.path) ?? f.path, message: f.message });
    const versions = await this.remote.listVersions();
    for (const [page, rel] of relOf) {
      const version = versions.get(page);
      const text = version === undefined ? null : readText(this.dir, rel);
      if (text === null || version === undefined) continue;
      this.record(rel, page, version, text);
      report.created++;
    }
    this.save();
  }

  // ---- pull

  private async pull(report: SyncReport): Promise<void> {
    const s = this.state!;
    if (this.remote.noFeed || s.cursor === 0) {
      await this.resync(report);
      return;
    }
    let changes: Change[] = [];
    for (;;) {
      let r: { changes: Change[]; nextSince: number };
      try {
        r = await this.remote.changes(s.cursor);
      } catch (e) {
        if (statusOf(e) !== 410) throw e;
        // The feed no longer reaches back to the cursor: compare every page instead.
        await this.resync(report);
        return;
      }
      changes = r.changes;
      // In commit order, each one: a move must be seen even when a later change of the page follows it.
      for (const c of changes) if (c.event.startsWith('page.')) await this.pullChange(c, report);
      s.cursor = r.nextSince;
      this.save();
      if (changes.length < FEED_LIMIT) return;
    }
  }

  private entryOfPage(page: string): [string, FileEntry] | undefined {
    return Object.entries(this.state!.files).find(([, e]) => e.page === page);
  }

  private async pullChange(c: Change, report: SyncReport): Promise<void> {
    if (c.event === 'page.moved' && c.from && c.from.space === this.space) {
      const old = this.entryOfPage(c.from.path);
      if (old) {
        const [rel, entry] = old;
        const to = fileOfPage(c.path);
        if (c.space === this.space && !this.changedOnDisk(rel, entry) && !fs.existsSync(absolute(this.dir, to))) {
          fs.mkdirSync(path.dirname(absolute(this.dir, to)), { recursive: true });
          fs.renameSync(absolute(this.dir, rel), absolute(this.dir, to));
          delete this.state!.files[rel];
          this.state!.files[to] = { ...entry, page: c.path };
          dropEmptyFolders(this.dir, rel);
          report.moved++;
        } else {
          // Changed here meanwhile: the file stays and becomes a page of its own at the next push.
          delete this.state!.files[rel];
        }
      }
    }
    if (c.space !== this.space) return;
    const found = this.entryOfPage(c.path);
    if (found && c.version !== undefined && c.version <= found[1].version && c.event !== 'page.deleted') return;
    const server = c.event === 'page.deleted' ? null : await this.remote.getPage(c.path);
    const rel = found?.[0] ?? fileOfPage(c.path);
    if (!server) {
      if (!found) return;
      if (this.changedOnDisk(rel, found[1])) delete this.state!.files[rel]; // kept: the next push brings it back
      else { this.removeLocal(rel); report.deleted++; }
      return;
    }
    if (!found) {
      const text = readText(this.dir, rel);
      if (text === null) { this.writeLocal(rel, server); report.pulled++; return; }
      const mine = fileToPage({ path: rel, text });
      if (!('code' in mine) && samePage(mine, server)) { this.record(rel, server.path, server.version, text); return; }
      this.conflict(rel, text, server, report);
      return;
    }
    if (server.version <= found[1].version) return;
    const mine = this.changedOnDisk(rel, found[1]);
    if (!mine) { this.writeLocal(rel, server); report.pulled++; return; }
    await this.reconcile(rel, found[1], mine.text, server, report);
  }

  /** Every page compared again (the feed's cursor expired). */
  private async resync(report: SyncReport): Promise<void> {
    const s = this.state!;
    s.cursor = await this.remote.feedHead();
    const versions = await this.remote.listVersions();
    for (const [page, version] of versions) {
      const found = this.entryOfPage(page);
      if (found && found[1].version >= version) continue;
      await this.pullChange({ txid: 0, event: 'page.updated', space: this.space, path: page, version }, report);
    }
    for (const e of Object.values(s.files)) {
      if (!versions.has(e.page)) await this.pullChange({ txid: 0, event: 'page.deleted', space: this.space, path: e.page }, report);
    }
    this.save();
  }

  // ---- both sides changed

  /**
   * The file and the page both changed since `entry`: merged when the changes do not overlap (the
   * merge goes to both sides), else the server keeps its version and the folder's goes beside it.
   */
  private async reconcile(rel: string, entry: FileEntry, text: string, server: ServerPage, report: SyncReport): Promise<void> {
    const theirs = pageToFile(server).text;
    const mine = fileToPage({ path: rel, text });
    if (!('code' in mine) && samePage(mine, server)) { this.record(rel, server.path, server.version, text); return; }
    const pushed = entry.pushing ? readBase(this.dir, entry.pushing) : null;
    const sent = pushed === null ? null : fileToPage({ path: rel, text: pushed });
    if (entry.pushing && sent && !('code' in sent) && samePage(sent, server)) {
      // The server holds what a run that then stopped sent: that text is the common ground, and
      // what changed on disk since is an ordinary edit on top of it.
      const agreed: FileEntry = { page: server.path, version: server.version, hash: entry.pushing, size: -1, mtimeMs: -1 };
      this.state!.files[rel] = agreed;
      await this.pushChange(rel, agreed, text, report);
      return;
    }
    if (!('code' in mine) && await this.isPastServerVersion({ ...mine, path: server.path }, entry.version, server.version)) {
      // The file holds a version the server had since: a pull cut short before it was recorded.
      this.writeLocal(rel, server);
      return;
    }
    const base = readBase(this.dir, entry.hash);
    if (base !== null && !('code' in mine)) {
      const m = mergeThreeWay(base, text, theirs);
      const merged = m.conflicts === 0 ? fileToPage({ path: rel, text: m.text }) : null;
      if (merged && !('code' in merged)) {
        const version = await this.remote.putPage(merged, server.version);
        if (version !== null) {
          this.write(rel, m.text);
          this.record(rel, server.path, version, m.text);
          report.merged++;
          return;
        }
      }
    }
    this.conflict(rel, text, server, report);
  }

  /**
   * Before a PUT: what is being sent, recorded durably, so that a run stopped between the PUT and
   * its record knows at the next start that the server's version is this text (see reconcile).
   */
  private markPushing(rel: string, entry: FileEntry, text: string): void {
    this.state!.files[rel] = { ...entry, pushing: keepBase(this.dir, text) };
    this.save();
  }

  /** Whether `mine` says what one of the page's versions after `from` and before `to` said (the last few). */
  private async isPastServerVersion(mine: BundlePage, from: number, to: number): Promise<boolean> {
    for (let v = to - 1; v > from && v >= to - 10; v--) {
      const rev = await this.remote.getRevision(mine.path, v);
      if (rev && samePage(mine, rev)) return true;
    }
    return false;
  }

  /** The server's version to the file, the folder's beside it (a new page at the next push). */
  private conflict(rel: string, text: string, server: ServerPage, report: SyncReport): void {
    const other = conflictName(rel, this.who, new Date());
    this.write(other, text);
    this.writeLocal(rel, server);
    report.conflicts.push(other);
    this.log(`conflict: ${rel} changed on both sides; yours is kept as ${other}`);
  }

  // ---- push

  private async push(report: SyncReport): Promise<void> {
    const s = this.state!;
    const local = scanFolder(this.dir, this.ignore);
    const gone: Array<[string, FileEntry]> = [];
    for (const [rel, entry] of Object.entries(s.files)) {
      if (local.has(rel)) continue;
      // Still there but ignored now: no longer synced, and its page stays.
      if (fs.existsSync(absolute(this.dir, rel))) delete s.files[rel];
      else gone.push([rel, entry]);
    }
    // New files: a file whose text is a gone file's is that file renamed (a move, below).
    const goneByHash = new Map(gone.map(([rel, e]) => [e.hash, rel]));
    for (const [rel, f] of local) {
      const entry = s.files[rel];
      if (entry) {
        const changed = this.changedOnDisk(rel, entry, f);
        if (!changed) {
          if (entry.size !== f.size || entry.mtimeMs !== f.mtimeMs) { s.files[rel] = { ...entry, size: f.size, mtimeMs: f.mtimeMs }; this.save(); }
          continue;
        }
        await this.pushChange(rel, entry, changed.text, report);
        this.save();
        continue;
      }
      const text = readText(this.dir, rel);
      if (text === null) continue;
      const renamedFrom = goneByHash.get(sha256(text));
      if (renamedFrom !== undefined && await this.pushMove(renamedFrom, rel, text, report)) {
        goneByHash.delete(sha256(text));
        this.save();
        continue;
      }
      await this.pushNew(rel, text, report);
      this.save();
    }
    for (const [rel, entry] of gone) {
      if (!s.files[rel]) continue; // moved above
      await this.pushDelete(rel, entry, report);
      this.save();
    }
  }

  private async pushChange(rel: string, entry: FileEntry, text: string, report: SyncReport): Promise<void> {
    const page = fileToPage({ path: rel, text });
    if ('code' in page) { report.errors.push({ path: rel, message: page.message }); return; }
    this.markPushing(rel, entry, text);
    const version = await this.remote.putPage({ ...page, path: entry.page }, entry.version);
    if (version !== null) { this.record(rel, entry.page, version, text); report.pushed++; return; }
    const server = await this.remote.getPage(entry.page);
    if (!server) { delete this.state!.files[rel]; await this.pushNew(rel, text, report); return; }
    await this.reconcile(rel, entry, text, server, report);
  }

  private async pushNew(rel: string, text: string, report: SyncReport): Promise<void> {
    const page = fileToPage({ path: rel, text });
    if ('code' in page) { report.errors.push({ path: rel, message: page.message }); return; }
    this.markPushing(rel, { page: page.path, version: 0, hash: '', size: -1, mtimeMs: -1 }, text);
    const version = await this.remote.putPage(page, 0);
    if (version !== null) { this.record(rel, page.path, version, text); report.created++; return; }
    // The page exists: the same (a create recorded by a run that then stopped) or another.
    const server = await this.remote.getPage(page.path);
    if (server && samePage(page, server)) { this.record(rel, page.path, server.version, text); return; }
    if (server) this.conflict(rel, text, server, report);
  }

  /** A rename on disk: a move on the server (its links follow); false when it cannot be one. */
  private async pushMove(fromRel: string, toRel: string, text: string, report: SyncReport): Promise<boolean> {
    const entry = this.state!.files[fromRel];
    const page = fileToPage({ path: toRel, text });
    if (!entry || 'code' in page) return false;
    if (!(await this.remote.move(entry.page, page.path))) return false;
    delete this.state!.files[fromRel];
    const server = await this.remote.getPage(page.path);
    this.record(toRel, page.path, server?.version ?? entry.version, text);
    report.moved++;
    return true;
  }

  private async pushDelete(rel: string, entry: FileEntry, report: SyncReport): Promise<void> {
    const server = await this.remote.getPage(entry.page);
    if (server && server.version > entry.version) {
      // Changed on the server since: the change wins over the delete, and comes back to disk.
      this.writeLocal(rel, server);
      report.pulled++;
      return;
    }
    if (server) {
      await this.remote.remove(entry.page);
      report.deleted++;
    }
    delete this.state!.files[rel];
  }
}
