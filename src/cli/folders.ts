// `kspace export --format markdown` and `kspace import-dir`: a space as a folder of Markdown
// files (docs/export-import.md "Markdown folders"). The conversion is the shared pure code of
// domain/bundles/markdown-folder.ts; the pages travel as the ordinary JSON bundle, so an import
// takes the one write path (POST /spaces/:slug/import) with its rules and its error items.
import fs from 'node:fs';
import path from 'node:path';
import type { Api } from './client.ts';
import { enc } from './client.ts';
import { ExitError } from './exit-error.ts';
import { startProgress } from './progress.ts';
import type { BundleError, BundlePage, BundleSpace } from '../domain/bundles/bundle.ts';
import { FOLDER_MARKER, bundleToFolder, folderToBundle, isSkipped, toBundleJson, type FolderFile } from '../domain/bundles/markdown-folder.ts';

export type ImportResult = { created: number; updated: number; skipped: number; errors: BundleError[] };

/** Writes the space's pages (as the JSON export has them) into `dir` as Markdown files. */
export async function exportMarkdown(api: Api, space: string, dir: string): Promise<{ pages: number; bytes: number }> {
  if (fs.existsSync(dir)) {
    const entries = fs.readdirSync(dir);
    if (entries.length && !fs.existsSync(path.join(dir, FOLDER_MARKER))) {
      throw new ExitError(`${dir} is not empty and holds no earlier export (${FOLDER_MARKER}): choose an empty or new folder`);
    }
  }
  const progress = startProgress(`export ${space}`, null);
  let bundle: { space: BundleSpace; pages: BundlePage[] };
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
  for (const f of bundleToFolder(bundle.space, bundle.pages)) {
    const file = path.join(dir, ...f.path.split('/'));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, f.text);
    bytes += Buffer.byteLength(f.text);
  }
  progress.done();
  return { pages: bundle.pages.length, bytes };
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
  const others: BundleError[] = [];
  let bytes = 0;
  for (const rel of walkFolder(dir)) {
    if (!/\.md$/i.test(rel)) {
      others.push({ path: rel, code: 'unsupported_file', message: 'not a Markdown file: not imported' });
      continue;
    }
    const buf = fs.readFileSync(path.join(dir, ...rel.split('/')));
    bytes += buf.length;
    files.push({ path: rel, text: buf.toString('utf8') });
  }
  const markerFile = path.join(dir, ...FOLDER_MARKER.split('/'));
  const marker = fs.existsSync(markerFile) ? fs.readFileSync(markerFile, 'utf8') : undefined;
  const out = folderToBundle(files, marker);
  return { ...out, errors: [...out.errors, ...others], bytes };
}

// A request of the import stays well under the server's import cap (100 MiB by default).
const BATCH_BYTES = 16 * 1024 * 1024;

/** Sends the folder's pages through the bundle import, in batches; sums the results. */
export async function importFolder(api: Api, space: string, dir: string, mode: string): Promise<ImportResult> {
  const t0 = performance.now();
  const folder = readFolder(dir);
  if (process.env.KSPACE_TIMING) process.stderr.write(`read ${(performance.now() - t0).toFixed(0)} ms\n`);
  const result: ImportResult = { created: 0, updated: 0, skipped: 0, errors: [...folder.errors] };
  const weight = (p: BundlePage) => Buffer.byteLength(p.content) + 256;
  const progress = startProgress(`import ${space}`, folder.pages.reduce((n, p) => n + weight(p), 0));
  try {
    let batch: BundlePage[] = [];
    let size = 0;
    const send = async () => {
      if (batch.length === 0) return;
      const t1 = performance.now();
      const r = await api.json<ImportResult>('POST', `/spaces/${enc(space)}/import`, {
        query: { mode }, body: toBundleJson(folder.space.name ? folder.space : { slug: space, name: space, description: '' }, batch),
      });
      if (process.env.KSPACE_TIMING) process.stderr.write(`batch ${batch.length} ${(performance.now() - t1).toFixed(0)} ms\n`);
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
