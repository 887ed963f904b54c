import { Readable } from 'node:stream';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import type { Services } from '../../services.ts';
import type { Caller } from '../access.ts';
import { closeSnapshot, openSnapshot, type Db } from '../../store/db.ts';
import { readExportBatch } from '../../store/bundles.ts';
import { readBlob, readableAttachmentsOfSpace } from '../../store/attachments.ts';
import type { SpaceRow } from '../../store/spaces.ts';
import type { BundlePage } from './bundle.ts';
import { folderMarker, pageToFile, placeAttachments, type PlacedAttachment } from './markdown-folder.ts';

// GET /spaces/:slug/export?format=zip: the Markdown folder of `kspace export --format markdown`
// as one zip, built from the same batches as the JSON export (the pages the caller may read,
// from one snapshot), compressed and handed on a batch at a time, so memory stays flat.
const BATCH = 200;
// The zip format's clock starts in 1980.
const ZIP_EPOCH = Date.UTC(1980, 0, 2);

/** The zip as a Node stream over its own snapshot connection. */
export function openZipExportStream(svc: Services, caller: Caller, space: SpaceRow): Readable {
  let reader: Db | null = null;
  let after = '';
  let finished = false;
  let pagesDone = false;
  let zip: Zip | null = null;
  let out: Uint8Array[] = [];
  let files: Array<PlacedAttachment & { sha256: string }> = [];
  let nextFile = 0;
  const add = (path: string, data: string | Uint8Array, mtime: number, compress = true) => {
    const file = compress ? new ZipDeflate(path, { level: 6 }) : new ZipPassThrough(path);
    file.mtime = Math.max(ZIP_EPOCH, mtime);
    zip!.add(file);
    file.push(typeof data === 'string' ? Buffer.from(data) : data, true);
  };
  return new Readable({
    highWaterMark: 256 * 1024,
    read() {
      try {
        if (!reader) {
          reader = openSnapshot(svc.db);
          zip = new Zip((err, data) => {
            if (err) throw err;
            out.push(data);
          });
          // The attached files the caller may read: listed in the marker, written after the pages.
          const rows = readableAttachmentsOfSpace(reader, caller, space.id);
          const placed = placeAttachments(rows.map((r) => ({ path: r.path, name: r.name, contentType: r.content_type, sha256: r.sha256 })));
          files = placed.map((p, i) => ({ ...p, sha256: rows[i].sha256 }));
          const marker = folderMarker({ slug: space.slug, name: space.name, description: space.description }, placed);
          add(marker.path, marker.text, Date.parse(svc.now()));
        }
        // Pages first, a batch at a time, then the files, one at a time, until something is out.
        while (out.length === 0 && !finished) {
          if (!pagesDone) {
            const b = readExportBatch(reader, caller, space.id, after, BATCH);
            if (b.n > 0) {
              after = b.last!;
              for (const p of JSON.parse(`[${b.json}]`) as Array<BundlePage & { updatedAt: string }>) {
                const f = pageToFile(p);
                add(f.path, f.text, Date.parse(p.updatedAt));
              }
            }
            if (b.n < BATCH) pagesDone = true;
          } else if (nextFile < files.length) {
            const f = files[nextFile++];
            // Images and archives are compressed already; text is not.
            add(f.file, readBlob(reader, f.sha256) ?? new Uint8Array(), Date.parse(svc.now()), /^(text\/|image\/svg|application\/(json|xml))/.test(f.contentType));
          }
          if (pagesDone && nextFile === files.length) {
            finished = true;
            zip!.end();
          }
        }
        const chunks = out;
        out = [];
        for (const c of chunks) this.push(c);
        if (finished && out.length === 0) {
          closeSnapshot(reader);
          this.push(null);
        }
      } catch (e) {
        svc.log.error('zip export failed', { space: space.slug, error: (e as Error).message });
        this.destroy(e as Error);
      }
    },
    destroy(err, callback) {
      if (reader) closeSnapshot(reader);
      callback(err);
    },
  });
}
