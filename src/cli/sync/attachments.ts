// Attached files in `kspace sync` (docs/sync.md "Attached files"): each file once, at `files/<name>`
// in the folder's root, where a page's relative link `files/<name>` finds it in Obsidian (a link
// is read beside the note first, then from the root) and the page's text on disk stays exactly
// the server's. A different file of a name taken there goes beside its page, at
// `<page's folder>/files/<name>` (or `…/files/<page name>/<name>` when that is taken too, or when
// a page of that folder uses the root's file). A server's file comes to disk when its
// page is synced; a file put there on disk goes to the server when a page of that folder links to
// it (`files/<name>`); deletes and edits follow both ways; a page moved or deleted takes its files
// along. Each file's pages, hash, size and time are kept in the state (`attachments`), and each
// write is recorded only after it is done, so a crash repeats it (the same bytes), never loses it.
import fs from 'node:fs';
import path from 'node:path';
import { exportedFileName } from '../../domain/bundles/markdown-folder.ts';
import { absolute, conflictName, dropEmptyFolders, isAttachmentPlace, readBytes, readText, scanFolder, scanPaths } from './folder.ts';
import type { RoundContext, SyncReport } from './round-context.ts';
import { sha256, type AttachmentEntry } from './state.ts';

const entriesOf = (ctx: RoundContext): Record<string, AttachmentEntry> => (ctx.s.attachments ??= {});

/** The `<folder>/` of a page's file (`''` at the root). */
function folderOf(page: string): string {
  const p = exportedFileName(page);
  return p.includes('/') ? p.slice(0, p.lastIndexOf('/') + 1) : '';
}

/**
 * The file of `page`'s `name` on disk: where it is already, else the root's `files/<name>` when it
 * is free or holds these bytes (the same file of another page: written once), else beside the page.
 * A `<page's folder>/files/<name>` of other bytes comes first for the page's link, so the page's
 * own place is then `…/files/<page name>/<name>`; and a page's own file does not go where it would
 * hide the root's file from a page of its folder.
 */
function placeOf(ctx: RoundContext, page: string, name: string, hash: string): string {
  const all = entriesOf(ctx);
  for (const [rel, e] of Object.entries(all)) if (e.name === name && e.pages.includes(page)) return rel;
  const dir = folderOf(page);
  const file = exportedFileName(name);
  const root = `files/${file}`;
  const local = `${dir}files/${file}`;
  const own = `${dir}files/${exportedFileName(page).slice(dir.length)}/${file}`;
  const holds = (rel: string): string | null => all[rel]?.sha256 ?? hashOnDisk(ctx, rel);
  if (dir !== '') {
    const there = holds(local);
    if (there === hash) return local;
    if (there !== null) return own;
  }
  const atRoot = holds(root);
  if (atRoot === null || atRoot === hash) return root;
  if (dir === '' || all[root]?.pages.some((p) => folderOf(p) === dir)) return own;
  return local;
}

function hashOnDisk(ctx: RoundContext, rel: string): string | null {
  const bytes = readBytes(ctx.dir, rel);
  return bytes === null ? null : sha256(bytes);
}

function record(ctx: RoundContext, rel: string, pages: readonly string[], name: string, hash: string): void {
  const st = fs.statSync(absolute(ctx.dir, rel));
  const same = hashOnDisk(ctx, rel) === hash;
  entriesOf(ctx)[rel] = { pages, name, sha256: hash, size: same ? st.size : -1, mtimeMs: same ? st.mtimeMs : -1 };
}

/** `notes/files/pic.png` → `notes/files/pic.conflict-ann-20261129T070102Z.png`. */
function conflictFileName(rel: string, who: string): string {
  const dot = rel.lastIndexOf('.');
  const ext = dot > rel.lastIndexOf('/') ? rel.slice(dot) : '';
  return `${conflictName(`${rel.slice(0, rel.length - ext.length)}.md`, who, new Date()).slice(0, -3)}${ext}`;
}

/**
 * The server's `name` of `page` (these bytes) to disk. A file changed on disk too is kept beside
 * it as a conflict file (not linked, so not synced); nothing is lost.
 */
export function acceptServerFile(ctx: RoundContext, page: string, name: string, bytes: Uint8Array, report: SyncReport): void {
  const hash = sha256(bytes);
  let rel = placeOf(ctx, page, name, hash);
  const e = entriesOf(ctx)[rel];
  if (e && e.sha256 === hash) {
    if (!e.pages.includes(page)) entriesOf(ctx)[rel] = { ...e, pages: [...e.pages, page] };
    return;
  }
  if (e && e.pages.some((p) => p !== page)) {
    // Shared with other pages, which keep the old bytes: this page's file goes to a place of its own.
    entriesOf(ctx)[rel] = { ...e, pages: e.pages.filter((p) => p !== page) };
    rel = placeOf(ctx, page, name, hash);
  }
  const onDisk = hashOnDisk(ctx, rel);
  if (onDisk !== hash) {
    const mine = entriesOf(ctx)[rel];
    if (onDisk !== null && (!mine || onDisk !== mine.sha256)) {
      const other = conflictFileName(rel, ctx.who);
      ctx.write(other, readBytes(ctx.dir, rel)!);
      report.conflicts.push(other);
      ctx.log(`conflict: ${rel} changed on both sides; yours is kept as ${other}`);
    }
    ctx.write(rel, bytes);
    report.pulled++;
  }
  record(ctx, rel, [page], name, hash);
}

/** Every file of a page the server has, to disk (a page new to this folder). */
export async function pullPageFiles(ctx: RoundContext, page: string, report: SyncReport): Promise<void> {
  for (const f of await ctx.remote.listFiles(page)) {
    const rel = placeOf(ctx, page, f.name, f.sha256);
    if (entriesOf(ctx)[rel]?.sha256 === f.sha256 && entriesOf(ctx)[rel].pages.includes(page)) continue;
    const bytes = await ctx.remote.getFile(page, f.name);
    if (bytes) acceptServerFile(ctx, page, f.name, bytes, report);
  }
}

/** A `file.put` or `file.deleted` of the feed (`path`: `<page path>/<name>`). */
export async function pullFileChange(ctx: RoundContext, event: string, filePath: string, report: SyncReport): Promise<void> {
  const cut = filePath.lastIndexOf('/');
  const page = filePath.slice(0, cut);
  const name = filePath.slice(cut + 1);
  if (!ctx.entryOfPage(page)) return; // a page not on disk (ignored there, or gone since)
  if (event === 'file.put') {
    const bytes = await ctx.remote.getFile(page, name);
    if (bytes) acceptServerFile(ctx, page, name, bytes, report);
    else await forgetFile(ctx, page, name, report); // deleted again since
    return;
  }
  await forgetFile(ctx, page, name, report);
}

/** `page` has no file `name` any more: the file on disk goes, unless it changed here or other pages share it. */
async function forgetFile(ctx: RoundContext, page: string, name: string, report: SyncReport): Promise<void> {
  const all = entriesOf(ctx);
  for (const [rel, e] of Object.entries(all)) {
    if (e.name !== name || !e.pages.includes(page)) continue;
    const pages = e.pages.filter((p) => p !== page);
    if (pages.length) {
      all[rel] = { ...e, pages };
      continue;
    }
    delete all[rel];
    // Changed here since: it stays, and the next push attaches it again if a page links to it.
    if (hashOnDisk(ctx, rel) !== e.sha256) continue;
    fs.rmSync(absolute(ctx.dir, rel), { force: true });
    dropEmptyFolders(ctx.dir, rel);
    report.deleted++;
  }
}

/** A page deleted on the server: its files on disk go with it. */
export async function dropPageFiles(ctx: RoundContext, page: string, report: SyncReport): Promise<void> {
  for (const e of Object.values({ ...entriesOf(ctx) })) if (e.pages.includes(page)) await forgetFile(ctx, page, e.name, report);
}

/** A page moved (on either side): its files follow it on disk, to its new folder. */
export function movePageFiles(ctx: RoundContext, from: string, to: string): void {
  const all = entriesOf(ctx);
  for (const [rel, old] of Object.entries({ ...all })) {
    if (!old.pages.includes(from)) continue;
    const e = { ...old, pages: old.pages.map((p) => (p === from ? to : p)) };
    all[rel] = e;
    if (e.pages.length > 1) continue; // shared: it stays where the other pages find it
    delete all[rel];
    const want = placeOf(ctx, to, e.name, e.sha256);
    if (want !== rel && !fs.existsSync(absolute(ctx.dir, want))) {
      fs.mkdirSync(path.dirname(absolute(ctx.dir, want)), { recursive: true });
      fs.renameSync(absolute(ctx.dir, rel), absolute(ctx.dir, want));
      dropEmptyFolders(ctx.dir, rel);
      all[want] = e;
    } else all[rel] = e;
  }
}

/** The name of the file at `rel` (an export writes `:` as `%3A` and `\` as `%5C`). */
const nameOf = (rel: string): string =>
  rel
    .slice(rel.lastIndexOf('/') + 1)
    .replace(/%3A/g, ':')
    .replace(/%5C/g, '\\');

/**
 * The synced pages a file on disk belongs to: at `<folder>/files/<name>`, the pages of that folder
 * whose text links to `files/<name>`; at the root's `files/<name>`, those of any folder without a
 * `files/<name>` of its own (which their link would find first); at
 * `<folder>/files/<page name>/<name>`, that page if it does.
 */
function ownersOf(ctx: RoundContext, rel: string): string[] {
  const parts = rel.split('/');
  const name = nameOf(rel);
  const mentions = [name, encodeURIComponent(name), encodeURI(name)].map((n) => `files/${n}`);
  const folderHasOwn = (md: string) => md.includes('/') && fs.existsSync(absolute(ctx.dir, `${md.slice(0, md.lastIndexOf('/'))}/${rel}`));
  const own =
    parts.length === 2 && parts[0] === 'files'
      ? (md: string) => !folderHasOwn(md)
      : parts.at(-2) === 'files'
        ? (md: string) =>
            md.startsWith(
              parts
                .slice(0, -2)
                .map((p) => `${p}/`)
                .join(''),
            ) && md.split('/').length === parts.length - 1
        : (md: string) => md === `${parts.slice(0, -3).concat(parts.at(-2)!).join('/')}.md`;
  const out: string[] = [];
  for (const [md, e] of Object.entries(ctx.s.files)) {
    if (!own(md)) continue;
    const text = readText(ctx.dir, md);
    if (text !== null && mentions.some((m) => text.includes(m))) out.push(e.page);
  }
  return out;
}

/**
 * The paths a round following the folder's events looks at for attached files: those that changed,
 * and the `files/` folders beside each note that changed and at the root (it may link to a file there now).
 */
function attachmentPaths(changed: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const rel of changed) {
    out.add(rel);
    if (/\.md$/i.test(rel)) {
      out.add('files');
      if (rel.includes('/')) out.add(`${rel.slice(0, rel.lastIndexOf('/'))}/files`);
    }
  }
  return out;
}

/**
 * The files changed, added or removed on disk, to the server. `changed`: only the paths that
 * changed (following the folder's events); none: the whole folder.
 */
export async function pushFiles(ctx: RoundContext, report: SyncReport, changed?: Iterable<string>): Promise<void> {
  const all = entriesOf(ctx);
  const scope = changed ? scanPaths(ctx.dir, ctx.ignore, attachmentPaths(changed), isAttachmentPlace) : null;
  const local = scope ? scope.found : scanFolder(ctx.dir, ctx.ignore, isAttachmentPlace);
  const synced = new Set(Object.values(ctx.s.files).map((e) => e.page));
  for (const [rel, old] of Object.entries({ ...all })) {
    // A page no longer synced (deleted here, or ignored now) lets go of its files; they stay on disk.
    const pages = old.pages.filter((p) => synced.has(p));
    const e = pages.length === old.pages.length ? old : (all[rel] = { ...old, pages });
    if (!e.pages.length) {
      delete all[rel];
      ctx.save();
      continue;
    }
    if (scope && !scope.covers(rel)) continue;
    const f = local.get(rel);
    if (!f) {
      if (fs.existsSync(absolute(ctx.dir, rel))) {
        delete all[rel];
        continue;
      } // ignored now
      for (const p of e.pages) await ctx.remote.deleteFile(p, e.name);
      delete all[rel];
      report.deleted++;
      ctx.save();
      continue;
    }
    if (f.size === e.size && f.mtimeMs === e.mtimeMs) continue;
    const bytes = readBytes(ctx.dir, rel);
    if (bytes === null) continue;
    const hash = sha256(bytes);
    if (hash !== e.sha256) {
      for (const p of e.pages) await ctx.remote.putFile(p, e.name, bytes);
      report.pushed++;
    }
    record(ctx, rel, e.pages, e.name, hash);
    ctx.save();
  }
  for (const rel of local.keys()) {
    if (all[rel]) continue;
    const pages = ownersOf(ctx, rel);
    const bytes = pages.length ? readBytes(ctx.dir, rel) : null;
    if (!bytes) continue;
    const name = nameOf(rel);
    const done: string[] = [];
    for (const p of pages) if (await ctx.remote.putFile(p, name, bytes)) done.push(p);
    if (!done.length) continue;
    record(ctx, rel, done, name, sha256(bytes));
    report.pushed++;
    ctx.save();
  }
}
