import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { Zip, ZipDeflate, ZipPassThrough, type DeflateOptions } from 'fflate';
import type { Services } from '../../services.ts';
import type { Db } from '../../store/db/types.ts';
import { openSnapshotStream, type Chunk } from './snapshot-stream.ts';
import { readExportBatch } from '../../store/bundles.ts';
import { readBlob, readableAttachmentsOfSpace } from '../../store/attachments.ts';
import type { SpaceRow } from '../../store/spaces.ts';
import type { BundlePage } from './bundle.ts';
import { folderMarker, keptPagesFile, pageToNoteFile, placeAttachments, placesByPage, type KeptPage } from './markdown-folder.ts';
import type { Caller } from '../../model.ts';

// GET /spaces/:slug/export?format=zip: the Markdown folder of `kspace export --format markdown`
// as one zip, built from the same batches as the JSON export (the pages the caller may read,
// from one snapshot). It is made on a worker thread (export-thread.ts); where none may run, on the
// event loop, where a large file is compressed a piece at a time and the generator pauses after
// every piece (snapshot-stream.ts), so neither a large space nor a large page holds the event
// loop. Memory stays flat either way.

// A batch of pages is one query; its size follows the pages' average size to stay near
// BATCH_CHARS of JSON text, at most MAX_BATCH pages.
const BATCH_CHARS = 64 * 1024;
const MAX_BATCH = 200;
const FIRST_BATCH = 16;
// A file is compressed in pieces of this many bytes.
const PIECE = 64 * 1024;
// The zip format's clock starts in 1980.
const ZIP_EPOCH = Date.UTC(1980, 0, 2);
const PAUSE = new Uint8Array(0);

/**
 * fflate's memory level for a file of `size` bytes: its hash tables follow the file's size as its
 * one-shot deflate sizes them. The streaming default sizes them for large files, and allocating
 * them for every small page made the deflate of one page several times slower.
 */
const memLevel = (size: number): DeflateOptions['mem'] =>
  Math.max(0, Math.min(8, Math.ceil(Math.log2(Math.max(size, 2))) - 11)) as DeflateOptions['mem'];

/**
 * A file compressed in one call of Node's zlib, with its window and tables sized to the file:
 * several times faster than fflate's deflate (which took 0.7 ms and most of an export's garbage
 * for a 2 KB page). It must be pushed whole, in one final push.
 */
class WholeDeflate extends ZipPassThrough {
  constructor(path: string) {
    super(path);
    this.compression = 8; // deflate
  }

  override process(chunk: Uint8Array, final: boolean): void {
    // zlib keeps 262 bytes of lookahead out of its window's reach.
    const windowBits = Math.min(15, Math.max(9, Math.ceil(Math.log2(chunk.length + 263))));
    this.ondata(null, zlib.deflateRawSync(chunk, { level: 6, windowBits, memLevel: Math.min(8, Math.max(1, windowBits - 7)) }), final);
  }
}

/** The zip as a Node stream over its own snapshot connection; rejects when it fails before its first bytes. */
export function openZipExportStream(svc: Services, caller: Caller, space: SpaceRow): Promise<Readable> {
  const now = svc.now();
  return openSnapshotStream(svc, 'zip export', space, (reader) => zipChunks(now, reader, caller, space));
}

/**
 * The zip's bytes: the marker, the pages a batch at a time, pages.json, then the files one at a time; `now`
 * dates the marker and the files. A file of up to `wholeUpTo` bytes is compressed in one call
 * (WholeDeflate), a larger one a PIECE at a time, with a pause after each (on the event loop, a
 * call on 2 MiB took tens of milliseconds; a worker thread passes Infinity).
 */
export function* zipChunks(now: string, reader: Db, caller: Caller, space: SpaceRow, wholeUpTo = PIECE): Generator<Chunk> {
  let out: Uint8Array[] = [];
  const zip = new Zip((err, data) => {
    if (err) throw err;
    out.push(data);
  });
  const drain = (): Chunk => {
    if (out.length === 0) return PAUSE;
    const ready = out.length === 1 ? out[0] : Buffer.concat(out);
    out = [];
    return ready;
  };
  const open = (path: string, mtime: number, compress: boolean, size: number): ZipDeflate | ZipPassThrough => {
    const file = !compress
      ? new ZipPassThrough(path)
      : size <= wholeUpTo
        ? new WholeDeflate(path)
        : new ZipDeflate(path, { level: 6, mem: memLevel(size) });
    file.mtime = Math.max(ZIP_EPOCH, mtime);
    zip.add(file);
    return file;
  };
  /** Adds one file, whole or a piece at a time; yields what the zip has ready after each piece. */
  function* add(path: string, data: string | Uint8Array, mtime: number, compress = true): Generator<Chunk> {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    const file = open(path, mtime, compress, bytes.length);
    if (bytes.length <= wholeUpTo) {
      file.push(bytes, true);
      yield drain();
      return;
    }
    for (let at = 0; ; at += PIECE) {
      const last = at + PIECE >= bytes.length;
      file.push(bytes.subarray(at, Math.min(at + PIECE, bytes.length)), last);
      yield drain();
      if (last) return;
    }
  }
  // The attached files the caller may read: listed in the marker, written after the pages.
  const rows = readableAttachmentsOfSpace(reader, caller, space.id);
  const placed = placeAttachments(
    rows.map((r) => ({ path: r.path, name: r.name, contentType: r.content_type, sha256: r.sha256, source: r.source })),
  );
  const places = placesByPage(placed);
  const marker = folderMarker({ slug: space.slug, name: space.name, description: space.description }, placed);
  // The marker's bytes wait for the first batch of pages: a failure to read it comes before the first byte.
  const markerBytes = Buffer.from(marker.text);
  open(marker.path, Date.parse(now), true, markerBytes.length).push(markerBytes, true);
  let after = '';
  let batch = FIRST_BATCH;
  // What pages.json keeps (titles that are not their file's name, mostly): written after the notes.
  const kept: Array<[string, KeptPage]> = [];
  for (;;) {
    const b = readExportBatch(reader, caller, space.id, after, batch);
    if (b.n === 0) break; // no page left (or none the caller may read at all)
    after = b.last!;
    const pages = JSON.parse(`[${b.json}]`) as Array<BundlePage & { updatedAt: string }>;
    for (const p of pages) {
      const n = pageToNoteFile(p, places.get(p.path));
      if (n.kept) kept.push([n.file.path, n.kept]);
      yield* add(n.file.path, n.file.text, Date.parse(p.updatedAt));
    }
    if (b.n < batch) break;
    batch = Math.max(1, Math.min(MAX_BATCH, Math.floor(BATCH_CHARS / (b.json!.length / b.n))));
  }
  const pagesFile = keptPagesFile(kept);
  kept.length = 0;
  yield* add(pagesFile.path, pagesFile.text, Date.parse(now));
  const written = new Set<string>();
  for (const [i, f] of placed.entries()) {
    // Each file once, however many pages have it.
    if (written.has(f.file)) continue;
    written.add(f.file);
    // Images and archives are compressed already; text is not.
    yield* add(
      f.file,
      readBlob(reader, rows[i].sha256) ?? new Uint8Array(),
      Date.parse(now),
      /^(text\/|image\/svg|application\/(json|xml))/.test(f.contentType),
    );
  }
  zip.end();
  yield drain();
}
