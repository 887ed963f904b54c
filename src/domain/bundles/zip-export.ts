import { Readable } from 'node:stream';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import type { Services } from '../../services.ts';
import type { Db } from '../../store/db.ts';
import { snapshotStream } from './export.ts';
import { readExportBatch } from '../../store/bundles.ts';
import { readBlob, readableAttachmentsOfSpace } from '../../store/attachments.ts';
import type { SpaceRow } from '../../store/spaces.ts';
import type { BundlePage } from './bundle.ts';
import { folderMarker, pageToFile, placeAttachments } from './markdown-folder.ts';
import type { Caller } from '../../model.ts';

// GET /spaces/:slug/export?format=zip: the Markdown folder of `kspace export --format markdown`
// as one zip, built from the same batches as the JSON export (the pages the caller may read,
// from one snapshot), compressed and handed on a batch at a time, so memory stays flat.
const BATCH = 200;
// The zip format's clock starts in 1980.
const ZIP_EPOCH = Date.UTC(1980, 0, 2);

/** The zip as a Node stream over its own snapshot connection. */
export function openZipExportStream(svc: Services, caller: Caller, space: SpaceRow): Readable {
  return snapshotStream(svc, 'zip export', space, (reader) => zipChunks(svc, reader, caller, space));
}

/** The zip's bytes: the marker, the pages a batch at a time, then the files one at a time. */
function* zipChunks(svc: Services, reader: Db, caller: Caller, space: SpaceRow): Generator<Uint8Array> {
  let out: Uint8Array[] = [];
  const zip = new Zip((err, data) => {
    if (err) throw err;
    out.push(data);
  });
  const drain = (): Uint8Array[] => {
    const ready = out;
    out = [];
    return ready;
  };
  const add = (path: string, data: string | Uint8Array, mtime: number, compress = true) => {
    const file = compress ? new ZipDeflate(path, { level: 6 }) : new ZipPassThrough(path);
    file.mtime = Math.max(ZIP_EPOCH, mtime);
    zip.add(file);
    file.push(typeof data === 'string' ? Buffer.from(data) : data, true);
  };
  // The attached files the caller may read: listed in the marker, written after the pages.
  const rows = readableAttachmentsOfSpace(reader, caller, space.id);
  const placed = placeAttachments(rows.map((r) => ({ path: r.path, name: r.name, contentType: r.content_type, sha256: r.sha256 })));
  const marker = folderMarker({ slug: space.slug, name: space.name, description: space.description }, placed);
  add(marker.path, marker.text, Date.parse(svc.now()));
  for (let after = '', n = BATCH; n === BATCH;) {
    const b = readExportBatch(reader, caller, space.id, after, BATCH);
    n = b.n;
    if (n > 0) after = b.last!;
    for (const p of JSON.parse(`[${b.json}]`) as Array<BundlePage & { updatedAt: string }>) {
      const f = pageToFile(p);
      add(f.path, f.text, Date.parse(p.updatedAt));
    }
    yield* drain();
  }
  for (const [i, f] of placed.entries()) {
    // Images and archives are compressed already; text is not.
    add(f.file, readBlob(reader, rows[i].sha256) ?? new Uint8Array(), Date.parse(svc.now()), /^(text\/|image\/svg|application\/(json|xml))/.test(f.contentType));
    yield* drain();
  }
  zip.end();
  yield* drain();
}
