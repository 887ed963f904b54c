// The push of a `kspace sync` round (docs/sync.md "Each round"): each file changed on disk is
// written with its base version, a new file becomes a page, a gone file's page goes to the trash,
// and a new file with the text of a gone one is a rename: a move on the server, links following.
import fs from 'node:fs';
import { samePage } from './remote.ts';
import { absolute, readText, scanFolder, type Scope } from './folder.ts';
import { movePageFiles } from './attachments.ts';
import { reconcile } from './reconcile.ts';
import type { RoundContext, SyncReport } from './round-context.ts';
import { sha256, type FileEntry } from './state.ts';

/** `scope`: only the paths that changed (following the folder's events); none: the whole folder. */
export async function push(ctx: RoundContext, report: SyncReport, scope?: Scope): Promise<void> {
  const s = ctx.s;
  const local = scope ? scope.found : scanFolder(ctx.dir, ctx.ignore);
  const gone: Array<[string, FileEntry]> = [];
  for (const [rel, entry] of Object.entries(s.files)) {
    if (local.has(rel) || (scope && !scope.covers(rel))) continue;
    // Still there but ignored now: no longer synced, and its page stays.
    if (fs.existsSync(absolute(ctx.dir, rel))) delete s.files[rel];
    else gone.push([rel, entry]);
  }
  // New files: a file whose text is a gone file's is that file renamed (a move, below).
  const goneByHash = new Map(gone.map(([rel, e]) => [e.hash, rel]));
  for (const [rel, f] of local) {
    const entry = s.files[rel];
    if (entry) {
      const changed = ctx.changedOnDisk(rel, entry, f);
      if (!changed) {
        // The same text with a new time (a checkout, a touch): saved with the rest at the end, not
        // one flush a file.
        if (entry.size !== f.size || entry.mtimeMs !== f.mtimeMs) s.files[rel] = { ...entry, size: f.size, mtimeMs: f.mtimeMs };
        continue;
      }
      await pushChange(ctx, rel, entry, changed.text, report);
      ctx.save();
      continue;
    }
    const text = readText(ctx.dir, rel);
    if (text === null) continue;
    const renamedFrom = goneByHash.get(sha256(text));
    if (renamedFrom !== undefined && (await pushMove(ctx, renamedFrom, rel, text, report))) {
      goneByHash.delete(sha256(text));
      ctx.save();
      continue;
    }
    await pushNew(ctx, rel, text, report);
    ctx.save();
  }
  for (const [rel, entry] of gone) {
    if (!s.files[rel]) continue; // moved above
    await pushDelete(ctx, rel, entry, report);
    ctx.save();
  }
  ctx.save();
}

export async function pushChange(ctx: RoundContext, rel: string, entry: FileEntry, text: string, report: SyncReport): Promise<void> {
  const page = ctx.pageOf(rel, text);
  if ('code' in page) {
    report.errors.push({ path: rel, message: page.message });
    return;
  }
  ctx.markPushing(rel, entry, text);
  const version = await ctx.remote.putPage({ ...page, path: entry.page }, entry.version);
  if (version !== null) {
    ctx.record(rel, entry.page, version, text);
    report.pushed++;
    return;
  }
  const server = await ctx.remote.getPage(entry.page);
  if (!server) {
    delete ctx.s.files[rel];
    await pushNew(ctx, rel, text, report);
    return;
  }
  await reconcile(ctx, rel, entry, text, server, report, pushChange);
}

async function pushNew(ctx: RoundContext, rel: string, text: string, report: SyncReport): Promise<void> {
  const page = ctx.pageOf(rel, text);
  if ('code' in page) {
    report.errors.push({ path: rel, message: page.message });
    return;
  }
  ctx.markPushing(rel, { page: page.path, version: 0, hash: '', size: -1, mtimeMs: -1 }, text);
  const version = await ctx.remote.putPage(page, 0);
  if (version !== null) {
    ctx.record(rel, page.path, version, text);
    report.created++;
    return;
  }
  // The page exists: the same (a create recorded by a run that then stopped) or another.
  const server = await ctx.remote.getPage(page.path);
  if (server && samePage(page, server)) {
    ctx.record(rel, page.path, server.version, text);
    return;
  }
  if (server) ctx.conflict(rel, text, server, report);
}

/** A rename on disk: a move on the server (its links follow); false when it cannot be one. */
async function pushMove(ctx: RoundContext, fromRel: string, toRel: string, text: string, report: SyncReport): Promise<boolean> {
  const entry = ctx.s.files[fromRel];
  if (!entry) return false;
  // The note keeps its title where it goes, as it did when the title was written in the file.
  ctx.kept.move(fromRel, toRel);
  const page = ctx.pageOf(toRel, text);
  if ('code' in page || !(await ctx.remote.move(entry.page, page.path))) {
    ctx.kept.move(toRel, fromRel);
    return false;
  }
  delete ctx.s.files[fromRel];
  movePageFiles(ctx, entry.page, page.path);
  const server = await ctx.remote.getPage(page.path);
  ctx.record(toRel, page.path, server?.version ?? entry.version, text);
  report.moved++;
  return true;
}

async function pushDelete(ctx: RoundContext, rel: string, entry: FileEntry, report: SyncReport): Promise<void> {
  const server = await ctx.remote.getPage(entry.page);
  if (server && server.version > entry.version) {
    // Changed on the server since: the change wins over the delete, and comes back to disk.
    ctx.writeLocal(rel, server);
    report.pulled++;
    return;
  }
  if (server) {
    await ctx.remote.remove(entry.page);
    report.deleted++;
  }
  delete ctx.s.files[rel];
  ctx.kept.set(rel, null);
}
