// Both sides of a `kspace sync` page changed since the last round (docs/sync.md "Both sides
// changed"): merged line by line when the changes do not overlap (the merge goes to both sides);
// else the server keeps its version and the folder's goes beside it as a conflict file. A run cut
// short between a write and its record is recognised here and not taken for a conflict.
import type { BundlePage } from '../../domain/bundles/bundle.ts';
import { mergeThreeWay } from '../../text/line-merge.ts';
import { samePage, type ServerPage } from './remote.ts';
import type { RoundContext, SyncReport } from './round-context.ts';
import type { FileEntry } from './state.ts';

/** Pushes a file's text as an edit of `entry` (push.ts's pushChange, passed in: it calls back here). */
type PushChange = (ctx: RoundContext, rel: string, entry: FileEntry, text: string, report: SyncReport) => Promise<void>;

/** The file (`text`) and the page (`server`) both changed since `entry`. */
export async function reconcile(
  ctx: RoundContext,
  rel: string,
  entry: FileEntry,
  text: string,
  server: ServerPage,
  report: SyncReport,
  pushChange: PushChange,
): Promise<void> {
  const theirs = ctx.noteOf(rel, server);
  const mine = ctx.pageOf(rel, text);
  if (!('code' in mine) && samePage(mine, server)) {
    ctx.record(rel, server.path, server.version, text);
    return;
  }
  const pushed = entry.pushing ? ctx.bases.read(entry.pushing) : null;
  const sent = pushed === null ? null : ctx.pageOf(rel, pushed);
  if (entry.pushing && sent && !('code' in sent) && samePage(sent, server)) {
    // The server holds what a run that then stopped sent: that text is the common ground, and
    // what changed on disk since is an ordinary edit on top of it.
    const agreed: FileEntry = { page: server.path, version: server.version, hash: entry.pushing, size: -1, mtimeMs: -1 };
    ctx.s.files[rel] = agreed;
    await pushChange(ctx, rel, agreed, text, report);
    return;
  }
  if (!('code' in mine) && (await isPastServerVersion(ctx, { ...mine, path: server.path }, entry.version, server.version))) {
    // The file holds a version the server had since: a pull cut short before it was recorded.
    ctx.writeLocal(rel, server);
    return;
  }
  const base = ctx.bases.read(entry.hash);
  if (base !== null && !('code' in mine)) {
    const m = mergeThreeWay(base, text, theirs.text);
    // The merge has the server's title (a note's title changes on the server only).
    const merged = m.conflicts === 0 ? ctx.pageOf(rel, m.text, theirs.kept) : null;
    if (merged && !('code' in merged)) {
      const version = await ctx.remote.putPage(merged, server.version);
      if (version !== null) {
        ctx.kept.set(rel, Object.keys(theirs.kept).length ? theirs.kept : null);
        ctx.record(rel, server.path, version, m.text, ctx.write(rel, m.text));
        report.merged++;
        return;
      }
    }
  }
  ctx.conflict(rel, text, server, report);
}

/** Whether `mine` says what one of the page's versions after `from` and before `to` said (the last few). */
async function isPastServerVersion(ctx: RoundContext, mine: BundlePage, from: number, to: number): Promise<boolean> {
  for (let v = to - 1; v > from && v >= to - 10; v--) {
    const rev = await ctx.remote.getRevision(mine.path, v);
    if (rev && samePage(mine, rev)) return true;
  }
  return false;
}
