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
  FOLDER_MARKER, bundleToFolder, folderToBundle, isSkipped, placeAttachments, toBundleJson, type FolderAttachment, type FolderFile,
} from '../domain/bundles/markdown-folder.ts';

export type ImportResult = { created: number; updated: number; skipped: number; errors: BundleError[] };

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
    space: BundleSpace; pages: BundlePage[];
    attachments?: Array<{ path: string; name: string; contentType: string; sha256: string }>; blobs?: Record<string, string>;
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
  placed.forEach((p, i) => write(p.file, Buffer.from(bundle.blobs?.[files[i].sha256] ?? '', 'base64')));
  progress.done();
  return { pages: bundle.pages.length, files: files.length, bytes };
}

/** Every file of `dir` not under a dot-folder, as `/`-separated relative paths, sorted. */
export function walkFolder(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (isSkipped(child)) continue;
      if (e.isDirectory()) walk(child);
      else if (e.isFile()) out.push(child);
    }
  };
  walk('');
  return out.sort();
}

/** Reads a folder into a bundle: its `.md` files as pages, the rest listed as not imported. */
export function readFolder(dir: string): ReturnType<typeof folderToBundle> & { bytes: number } {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch (e) {
    throw new ExitError(`cannot read ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (!stat.isDirectory()) throw new ExitError(`${dir} is not a folder`);
  const files: FolderFile[] = [];
  const binaries = new Map<string, Uint8Array>();
  let bytes = 0;
  for (const rel of walkFolder(dir)) {
    const buf = fs.readFileSync(path.join(dir, ...rel.split('/')));
    bytes += buf.length;
    // Markdown files are pages; the others may be files the pages embed or link to.
    if (/\.md$/i.test(rel)) files.push({ path: rel, text: buf.toString('utf8') });
    else binaries.set(rel, buf);
  }
  const markerFile = path.join(dir, ...FOLDER_MARKER.split('/'));
  const marker = fs.existsSync(markerFile) ? fs.readFileSync(markerFile, 'utf8') : undefined;
  return { ...folderToBundle(files, marker, binaries), bytes };
}

// A request of the import stays well under the server's import cap (100 MiB by default).
const BATCH_BYTES = 16 * 1024 * 1024;

/** Sends the folder's pages through the bundle import, in batches; sums the results. */
export async function importFolder(api: Api, space: string, dir: string, mode: string): Promise<ImportResult> {
  const folder = readFolder(dir);
  const result: ImportResult = { created: 0, updated: 0, skipped: 0, errors: [...folder.errors] };
  const fileBytes = new Map<string, number>();
  for (const a of folder.attachments) fileBytes.set(a.path, (fileBytes.get(a.path) ?? 0) + Math.ceil(a.data.length * 4 / 3));
  const weight = (p: BundlePage) => Buffer.byteLength(p.content) + 256 + (fileBytes.get(p.path) ?? 0);
  const progress = startProgress(`import ${space}`, folder.pages.reduce((n, p) => n + weight(p), 0));
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
          return { path: f.path, name: f.name, contentType: f.contentType, sha256 };
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
