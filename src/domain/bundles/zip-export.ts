import { Readable } from 'node:stream';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import type { Services } from '../../services.ts';
import type { Caller } from '../access.ts';
import { closeSnapshot, openSnapshot, type Db } from '../../store/db.ts';
import { readExportBatch } from '../../store/bundles.ts';
import type { SpaceRow } from '../../store/spaces.ts';
import type { BundlePage } from './bundle.ts';
import { bundleToFolder, pageToFile } from './markdown-folder.ts';

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
  let zip: Zip | null = null;
  let out: Uint8Array[] = [];
  const add = (path: string, text: string, mtime: number, compress = true) => {
    const file = compress ? new ZipDeflate(path, { level: 6 }) : new ZipPassThrough(path);
    file.mtime = Math.max(ZIP_EPOCH, mtime);
    zip!.add(file);
    file.push(Buffer.from(text), true);
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
          const [marker] = bundleToFolder({ slug: space.slug, name: space.name, description: space.description }, []);
          add(marker.path, marker.text, Date.parse(svc.now()));
        }
        while (out.length === 0 && !finished) {
          const b = readExportBatch(reader, caller, space.id, after, BATCH);
          if (b.n > 0) {
            after = b.last!;
            for (const p of JSON.parse(`[${b.json}]`) as Array<BundlePage & { updatedAt: string }>) {
              const f = pageToFile(p);
              add(f.path, f.text, Date.parse(p.updatedAt));
            }
          }
          if (b.n < BATCH) {
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
