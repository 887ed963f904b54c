// `kspace export --format markdown` and `kspace import-dir`: a space as a folder of Markdown
// files (docs/export-import.md "Markdown folders"). The conversion is the shared pure code of
// domain/bundles/markdown-folder.ts; the pages travel as the ordinary JSON bundle, so an import
// takes the one write path (POST /spaces/:slug/import) with its rules and its error items.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Api } from './client.ts';
import { enc } from './client.ts';
import { ExitError } from './exit-error.ts';
import { startProgress } from './progress.ts';
import type { BundleError, BundlePage, BundleSpace } from '../domain/bundles/bundle.ts';
import {
  FOLDER_MARKER,
  PAGES_FILE,
  bundleToFolder,
  decodeNote,
  folderToBundle,
  isSkipped,
  placeAttachments,
  toBundleJson,
  type FolderAttachment,
  type FolderBundle,
  type FolderFile,
} from '../domain/bundles/markdown-folder.ts';

/**
 * What `kspace import-dir` answers (docs/export-import.md "Reports"): the import endpoint's counts
 * and `errors`, with the folder reading's own reports: its errors (a note not imported), its
 * `warnings` (a note imported, not exactly as written) and `leftOut` (files not imported by rule).
 */
export type ImportResult = { created: number; updated: number; skipped: number; errors: BundleError[] };
export type FolderImportResult = ImportResult & { warnings: BundleError[]; leftOut: BundleError[] };

/** Writes the space's pages (as the JSON export has them) into `dir` as Markdown files. */
export async function exportMarkdown(api: Api, space: string, dir: string): Promise<{ pages: number; files: number; bytes: number }> {
  if (fs.existsSync(dir)) {
    const entries = fs.readdirSync(dir);
    if (entries.length && !fs.existsSync(path.join(dir, FOLDER_MARKER))) {
      throw new ExitError(`${dir} is not empty and holds no earlier export (${FOLDER_MARKER}): choose an empty or new folder`);
    }
  }
  const progress = startProgress(`export ${space}`, null);
  let bundle: {
    space: BundleSpace;
    pages: BundlePage[];
    attachments?: Array<{ path: string; name: string; contentType: string; sha256: string; source?: string }>;
    blobs?: Record<string, string>;
  };
  try {
    const res = await api.send('GET', `/spaces/${enc(space)}/export`);
    const chunks: Buffer[] = [];
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      chunks.push(Buffer.from(chunk));
      progress.add(chunk.length);
    }
    bundle = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (e) {
    progress.done();
    if (e instanceof ExitError) throw e;
    throw new ExitError(`export of ${space} failed: ${(e as Error).message}`);
  }
  progress.note('writing files…');
  let bytes = 0;
  const write = (rel: string, data: string | Buffer) => {
    const file = path.join(dir, ...rel.split('/'));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, data);
    bytes += typeof data === 'string' ? Buffer.byteLength(data) : data.length;
  };
  const files = bundle.attachments ?? [];
  const placed = placeAttachments(files);
  for (const f of bundleToFolder(bundle.space, bundle.pages, placed)) write(f.path, f.text);
  const written = new Set<string>();
  placed.forEach((p, i) => {
    if (written.has(p.file)) return; // each file once, however many pages have it
    written.add(p.file);
    write(p.file, Buffer.from(bundle.blobs?.[files[i].sha256] ?? '', 'base64'));
  });
  progress.done();
  return { pages: bundle.pages.length, files: written.size, bytes };
}

/**
 * Every file of `dir` not under a dot-folder, as `/`-separated relative paths, sorted, and the
 * symlinks left out. A symlink to a file inside the folder is followed (it is read as a file at
 * the link's path); one that leads outside the folder, or nowhere, is never followed; a symlink
 * to a folder is not walked (a folder inside is imported where it is, and no link loops).
 */
export function walkFolder(dir: string): { files: string[]; leftOut: BundleError[] } {
  const files: string[] = [];
  const leftOut: BundleError[] = [];
  const root = fs.realpathSync(dir);
  const inside = (real: string) => real.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (isSkipped(child)) continue;
      if (e.isDirectory()) walk(child);
      else if (e.isFile()) files.push(child);
      else if (e.isSymbolicLink()) {
        const link = path.join(dir, ...child.split('/'));
        const target = fs.readlinkSync(link);
        let real: string;
        try {
          real = fs.realpathSync(link);
        } catch {
          leftOut.push({ path: child, code: 'symlink_broken', message: `a symlink to '${target}', which does not exist: not imported` });
          continue;
        }
        if (!inside(real))
          leftOut.push({ path: child, code: 'symlink_outside', message: `a symlink to '${target}', outside the folder: never followed` });
        else if (fs.statSync(real).isDirectory()) {
          leftOut.push({
            path: child,
            code: 'symlink_folder',
            message: `a symlink to the folder '${target}': not walked (the folder's own notes are imported where they are)`,
          });
        } else if (isSkipped(path.relative(root, real).split(path.sep).join('/'))) {
          leftOut.push({
            path: child,
            code: 'symlink_outside',
            message: `a symlink to '${target}', in a folder the import skips: not followed`,
          });
        } else files.push(child);
      }
    }
  };
  walk('');
  return { files: files.sort(), leftOut: leftOut.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) };
}

/** Reads a folder into a bundle: its `.md` files as pages, the rest listed as not imported. */
export function readFolder(dir: string): FolderBundle & { bytes: number } {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch (e) {
    throw new ExitError(`cannot read ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (!stat.isDirectory()) throw new ExitError(`${dir} is not a folder`);
  const files: FolderFile[] = [];
  const binaries = new Map<string, Uint8Array>();
  const utf8: BundleError[] = [];
  let bytes = 0;
  const walked = walkFolder(dir);
  for (const rel of walked.files) {
    const buf = fs.readFileSync(path.join(dir, ...rel.split('/')));
    bytes += buf.length;
    // Markdown files are pages; the others may be files the pages embed or link to.
    if (/\.md$/i.test(rel)) {
      const { text, problem } = decodeNote(buf);
      if (problem) utf8.push({ path: rel, code: 'invalid_utf8', message: problem });
      files.push({ path: rel, text });
    } else binaries.set(rel, buf);
  }
  const markerFile = path.join(dir, ...FOLDER_MARKER.split('/'));
  const marker = fs.existsSync(markerFile) ? fs.readFileSync(markerFile, 'utf8') : undefined;
  const pagesFile = path.join(dir, ...PAGES_FILE.split('/'));
  const pagesText = fs.existsSync(pagesFile) ? fs.readFileSync(pagesFile, 'utf8') : undefined;
  const folder = folderToBundle(files, marker, binaries, pagesText);
  // A note refused as a page is an error already; its text's decoding is then no news.
  const refused = new Set(folder.errors.map((e) => e.path));
  return {
    ...folder,
    warnings: [...utf8.filter((w) => !refused.has(w.path)), ...folder.warnings].sort((a, b) =>
      a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
    ),
    leftOut: [...walked.leftOut, ...folder.leftOut].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    bytes,
  };
}

// A request of the import stays well under the server's import cap (100 MiB by default).
const BATCH_BYTES = 16 * 1024 * 1024;

/** Sends the folder's pages through the bundle import, in batches; sums the results. */
export async function importFolder(api: Api, space: string, dir: string, mode: string): Promise<FolderImportResult> {
  const folder = readFolder(dir);
  const result: FolderImportResult = {
    created: 0,
    updated: 0,
    skipped: 0,
    errors: [...folder.errors],
    warnings: folder.warnings,
    leftOut: folder.leftOut,
  };
  const fileBytes = new Map<string, number>();
  for (const a of folder.attachments) fileBytes.set(a.path, (fileBytes.get(a.path) ?? 0) + Math.ceil((a.data.length * 4) / 3));
  const weight = (p: BundlePage) => Buffer.byteLength(p.content) + 256 + (fileBytes.get(p.path) ?? 0);
  const progress = startProgress(
    `import ${space}`,
    folder.pages.reduce((n, p) => n + weight(p), 0),
  );
  try {
    let batch: BundlePage[] = [];
    let size = 0;
    const filesOf = new Map<string, FolderAttachment[]>();
    for (const a of folder.attachments) filesOf.set(a.path, [...(filesOf.get(a.path) ?? []), a]);
    const send = async () => {
      if (batch.length === 0) return;
      const body = toBundleJson(folder.space.name ? folder.space : { slug: space, name: space, description: '' }, batch);
      const files = batch.flatMap((p) => filesOf.get(p.path) ?? []);
      if (files.length) {
        // Version 2: the pages' files, each blob once (docs/export-import.md).
        const blobs: Record<string, string> = {};
        body.formatVersion = 2;
        body.attachments = files.map((f) => {
          const sha256 = createHash('sha256').update(f.data).digest('hex');
          blobs[sha256] ??= Buffer.from(f.data).toString('base64');
          return { path: f.path, name: f.name, contentType: f.contentType, sha256, ...(f.source ? { source: f.source } : {}) };
        });
        body.blobs = blobs;
      }
      const r = await api.json<ImportResult>('POST', `/spaces/${enc(space)}/import`, { query: { mode }, body });
      result.created += r.created;
      result.updated += r.updated;
      result.skipped += r.skipped;
      result.errors.push(...r.errors);
      progress.add(size);
      batch = [];
      size = 0;
    };
    for (const p of folder.pages) {
      const n = weight(p);
      if (size + n > BATCH_BYTES) await send();
      batch.push(p);
      size += n;
    }
    await send();
  } finally {
    progress.done();
  }
  return result;
}
