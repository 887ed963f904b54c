// The first round of `kspace sync` (docs/sync.md "The first run"): an empty folder gets the space,
// an empty space gets the folder, and where both hold something, identical files and pages are
// matched and the others kept on both sides.
import fs from 'node:fs';
import path from 'node:path';
import type { BundlePage } from '../../domain/bundles/bundle.ts';
import { fileOfPage, fileToPage } from '../../domain/bundles/markdown-folder.ts';
import { samePage } from './remote.ts';
import { readText, scanFolder, type LocalFile } from './folder.ts';
import type { RoundContext, SyncReport } from './round-context.ts';
import { STATE_DIR } from './state.ts';

export async function firstRun(ctx: RoundContext, report: SyncReport): Promise<void> {
  // The feed's head before anything is read: what changes after it comes again through the feed.
  const cursor = await ctx.remote.feedHead();
  const local = scanFolder(ctx.dir, ctx.ignore);
  ctx.state = { format: 'kspace-sync', version: 1, server: ctx.remote.api.base.origin, space: ctx.space, cursor, files: {} };
  fs.mkdirSync(path.join(ctx.dir, STATE_DIR), { recursive: true });
  // Versions before content: a page changed between the two reads is recorded older than its
  // text, so the feed brings it again (the other way round, a change would be skipped).
  let versions = await ctx.remote.listVersions();
  if (versions.size === 0 && local.size > 0) {
    await importAll(ctx, local, report);
    versions = await ctx.remote.listVersions();
  }
  const pages = versions.size === 0 ? [] : await ctx.remote.exportPages();
  for (const page of pages) {
    const version = versions.get(page.path);
    if (version === undefined) continue; // created after the listing: the feed brings it
    const server = { ...page, version };
    const rel = fileOfPage(page.path);
    if (ctx.s.files[rel]) continue; // imported just now
    const text = local.has(rel) ? readText(ctx.dir, rel) : null;
    if (text === null) {
      ctx.writeLocal(rel, server);
      report.pulled++;
    } else {
      const mine = fileToPage({ path: rel, text });
      if ('code' in mine || !samePage(mine, server)) ctx.conflict(rel, text, server, report);
      else ctx.record(rel, page.path, version, text);
    }
  }
  ctx.save();
}

/**
 * A folder into an empty space: its files through the bundle import (their text as written), each
 * then recorded with its page.
 */
async function importAll(ctx: RoundContext, local: Map<string, LocalFile>, report: SyncReport): Promise<void> {
  const pages: BundlePage[] = [];
  const relOf = new Map<string, string>();
  for (const rel of local.keys()) {
    const text = readText(ctx.dir, rel);
    if (text === null) continue;
    const page = fileToPage({ path: rel, text });
    if ('code' in page) { report.errors.push({ path: rel, message: page.message }); continue; }
    if (relOf.has(page.path)) continue; // two files of one page: the second is pushed (and refused) later
    relOf.set(page.path, rel);
    pages.push(page);
  }
  const failed = await ctx.remote.importPages(pages);
  for (const f of failed) report.errors.push({ path: relOf.get(f.path) ?? f.path, message: f.message });
  const versions = await ctx.remote.listVersions();
  for (const [page, rel] of relOf) {
    const version = versions.get(page);
    const text = version === undefined ? null : readText(ctx.dir, rel);
    if (text === null || version === undefined) continue;
    ctx.record(rel, page, version, text);
    report.created++;
  }
  ctx.save();
}
