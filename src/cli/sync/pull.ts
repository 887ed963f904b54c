// The pull of a `kspace sync` round (docs/sync.md "Each round"): what the change feed says changed
// on the server comes to disk; a move moves the file, a delete removes it. Without the feed, or
// past its retention, every page's version is compared instead.
import fs from 'node:fs';
import path from 'node:path';
import { fileOfPage } from '../../domain/bundles/markdown-folder.ts';
import { FEED_LIMIT, samePage, statusOf, type Change } from './remote.ts';
import { absolute, dropEmptyFolders, readText } from './folder.ts';
import { dropPageFiles, movePageFiles, pullFileChange, pullPageFiles } from './attachments.ts';
import { reconcile } from './reconcile.ts';
import { pushChange } from './push.ts';
import type { RoundContext, SyncReport } from './round-context.ts';

export async function pull(ctx: RoundContext, report: SyncReport): Promise<void> {
  const s = ctx.s;
  if (ctx.remote.noFeed || s.cursor === 0) {
    await resync(ctx, report);
    return;
  }
  let changes: Change[] = [];
  for (;;) {
    let r: { changes: Change[]; nextSince: number };
    try {
      r = await ctx.remote.changes(s.cursor);
    } catch (e) {
      if (statusOf(e) !== 410) throw e;
      // The feed no longer reaches back to the cursor: compare every page instead.
      await resync(ctx, report);
      return;
    }
    changes = r.changes;
    // In commit order, each one: a move must be seen even when a later change of the page follows it.
    for (const c of changes) {
      if (c.event.startsWith('page.')) await pullChange(ctx, c, report);
      else if (c.space === ctx.space) await pullFileChange(ctx, c.event, c.path, report);
    }
    s.cursor = r.nextSince;
    ctx.save();
    if (changes.length < FEED_LIMIT) return;
  }
}

async function pullChange(ctx: RoundContext, c: Change, report: SyncReport): Promise<void> {
  if (c.event === 'page.moved' && c.from && c.from.space === ctx.space) {
    const old = ctx.entryOfPage(c.from.path);
    if (old) {
      const [rel, entry] = old;
      const to = fileOfPage(c.path);
      if (c.space === ctx.space && !ctx.changedOnDisk(rel, entry) && !fs.existsSync(absolute(ctx.dir, to))) {
        fs.mkdirSync(path.dirname(absolute(ctx.dir, to)), { recursive: true });
        fs.renameSync(absolute(ctx.dir, rel), absolute(ctx.dir, to));
        ctx.kept.move(rel, to);
        delete ctx.s.files[rel];
        ctx.s.files[to] = { ...entry, page: c.path };
        dropEmptyFolders(ctx.dir, rel);
        movePageFiles(ctx, c.from.path, c.path);
        report.moved++;
      } else {
        // Changed here meanwhile: the file stays and becomes a page of its own at the next push.
        delete ctx.s.files[rel];
      }
    }
  }
  if (c.space !== ctx.space) return;
  const found = ctx.entryOfPage(c.path);
  if (found && c.version !== undefined && c.version <= found[1].version && c.event !== 'page.deleted') return;
  const server = c.event === 'page.deleted' ? null : await ctx.remote.getPage(c.path);
  const rel = found?.[0] ?? fileOfPage(c.path);
  if (!server) {
    if (!found) return;
    if (ctx.changedOnDisk(rel, found[1]))
      delete ctx.s.files[rel]; // kept: the next push brings it back
    else {
      ctx.removeLocal(rel);
      report.deleted++;
      await dropPageFiles(ctx, c.path, report);
    }
    return;
  }
  if (!found) {
    const text = readText(ctx.dir, rel);
    // A page new to this folder (created, restored, moved or let in): its files come along.
    if (text === null) {
      ctx.writeLocal(rel, server);
      report.pulled++;
    } else {
      const mine = ctx.pageOf(rel, text);
      if (!('code' in mine) && samePage(mine, server)) ctx.record(rel, server.path, server.version, text);
      else ctx.conflict(rel, text, server, report);
    }
    await pullPageFiles(ctx, server.path, report);
    return;
  }
  if (server.version <= found[1].version) return;
  const mine = ctx.changedOnDisk(rel, found[1]);
  if (!mine) {
    ctx.writeLocal(rel, server);
    report.pulled++;
    return;
  }
  await reconcile(ctx, rel, found[1], mine.text, server, report, pushChange);
}

/** Every page compared again (the feed's cursor expired). */
async function resync(ctx: RoundContext, report: SyncReport): Promise<void> {
  const s = ctx.s;
  s.cursor = await ctx.remote.feedHead();
  const versions = await ctx.remote.listVersions();
  for (const [page, version] of versions) {
    const found = ctx.entryOfPage(page);
    if (found && found[1].version >= version) continue;
    await pullChange(ctx, { txid: 0, event: 'page.updated', space: ctx.space, path: page, version }, report);
  }
  for (const e of Object.values(s.files)) {
    if (!versions.has(e.page)) await pullChange(ctx, { txid: 0, event: 'page.deleted', space: ctx.space, path: e.page }, report);
  }
  ctx.save();
}
