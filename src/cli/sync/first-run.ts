// The first round of `kspace sync` (docs/sync.md "The first run"): an empty folder gets the space,
// an empty space gets the folder (as `kspace import-dir` reads it), and where both hold something,
// identical files and pages are matched and the others kept on both sides.
import fs from 'node:fs';
import path from 'node:path';
import {
  FOLDER_MARKER,
  PAGES_FILE,
  escapeReservedPath,
  fileOfPage,
  folderToBundle,
  type FolderFile,
} from '../../domain/bundles/markdown-folder.ts';
import { normalizePagePath } from '../../domain/paths.ts';
import { samePage } from './remote.ts';
import { acceptServerFile } from './attachments.ts';
import { readBytes, readText, scanFolder, type LocalFile } from './folder.ts';
import type { RoundContext, SyncReport } from './round-context.ts';
import { STATE_DIR } from './state.ts';

export async function firstRun(ctx: RoundContext, report: SyncReport): Promise<void> {
  // The feed's head before anything is read: what changes after it comes again through the feed.
  const cursor = await ctx.remote.feedHead();
  const local = scanFolder(ctx.dir, ctx.ignore);
  ctx.state = {
    format: 'kspace-sync',
    version: 1,
    server: ctx.remote.api.base.origin,
    space: ctx.space,
    cursor,
    files: {},
    attachments: {},
  };
  fs.mkdirSync(path.join(ctx.dir, STATE_DIR), { recursive: true });
  // Versions before content: a page changed between the two reads is recorded older than its
  // text, so the feed brings it again (the other way round, a change would be skipped).
  let versions = await ctx.remote.listVersions();
  if (versions.size === 0 && local.size > 0) versions = await importAll(ctx, local, report);
  const imported = new Set(Object.values(ctx.s.files).map((e) => e.page));
  // The export only when the space has pages this run did not import (all of them, or the
  // few written there while the import ran).
  const others = [...versions.keys()].some((p) => !imported.has(p));
  const exported = others ? await ctx.remote.exportPages() : { pages: [], attachments: [], blobs: {} };
  for (const page of exported.pages) {
    const version = versions.get(page.path);
    if (version === undefined) continue; // created after the listing: the feed brings it
    const server = { ...page, version };
    const rel = fileOfPage(page.path);
    if (imported.has(page.path)) continue; // imported just now
    const text = local.has(rel) ? readText(ctx.dir, rel) : null;
    if (text === null) {
      ctx.writeLocal(rel, server);
      report.pulled++;
    } else {
      const mine = ctx.pageOf(rel, text);
      if ('code' in mine || !samePage(mine, server)) ctx.conflict(rel, text, server, report);
      else ctx.record(rel, page.path, version, text, local.get(rel));
    }
  }
  for (const f of exported.attachments) {
    if (imported.has(f.path) || !ctx.entryOfPage(f.path)) continue;
    acceptServerFile(ctx, f.path, f.name, Buffer.from(exported.blobs[f.sha256] ?? '', 'base64'), report);
  }
  ctx.kept.touch(); // a new sync folder has its pages.json, even an empty one
  ctx.save();
}

/**
 * A folder into an empty space, read as `kspace import-dir` reads it (folderToBundle: a foreign
 * folder's wikilinks respelled where Obsidian would find another note, the files its notes embed
 * or link to attached), through the bundle import. Each file is then recorded with its page; a
 * note the import changed (respelled, its files' references made `files/<name>`) is written
 * back as the server has it, and each attached file is written where an export puts it.
 */
async function importAll(ctx: RoundContext, local: Map<string, LocalFile>, report: SyncReport): Promise<Map<string, number>> {
  const files: FolderFile[] = [];
  for (const rel of local.keys()) {
    const text = readText(ctx.dir, rel);
    if (text !== null) files.push({ path: rel, text });
  }
  const binaries = new Map<string, Uint8Array>();
  for (const rel of scanFolder(ctx.dir, ctx.ignore, (r) => !/\.md$/i.test(r) && !r.endsWith('.kspace-tmp')).keys()) {
    const bytes = readBytes(ctx.dir, rel);
    if (bytes) binaries.set(rel, bytes);
  }
  const markerFile = path.join(ctx.dir, ...FOLDER_MARKER.split('/'));
  const marker = fs.existsSync(markerFile) ? fs.readFileSync(markerFile, 'utf8') : undefined;
  const pagesFile = path.join(ctx.dir, ...PAGES_FILE.split('/'));
  const pagesText = fs.existsSync(pagesFile) ? fs.readFileSync(pagesFile, 'utf8') : undefined;
  const bundle = folderToBundle(files, marker, binaries, pagesText);
  // Files no note refers to are not attachments: they stay on disk, not synced.
  for (const e of bundle.errors) if (e.code !== 'not_referenced') report.errors.push({ path: e.path, message: e.message });
  const failed = await ctx.remote.importPages(bundle.pages, bundle.attachments);
  for (const f of failed) report.errors.push({ path: fileOfPage(f.path), message: f.message });
  const versions = await ctx.remote.listVersions();
  // Each page's file (the first of its path, as folderToBundle takes it).
  const fileOf = new Map<string, FolderFile>();
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const page = escapeReservedPath(normalizePagePath(f.path.slice(0, -3)));
    if (!fileOf.has(page)) fileOf.set(page, f);
  }
  for (const page of bundle.pages) {
    const version = versions.get(page.path);
    const f = fileOf.get(page.path);
    if (version === undefined || f === undefined) continue;
    const mine = ctx.pageOf(f.path, f.text);
    if (!('code' in mine) && samePage(mine, page)) ctx.record(f.path, page.path, version, f.text, local.get(f.path));
    else ctx.writeLocal(f.path, { ...page, version });
    report.created++;
  }
  for (const a of bundle.attachments) if (ctx.entryOfPage(a.path)) acceptServerFile(ctx, a.path, a.name, a.data, report);
  ctx.save();
  return versions;
}
