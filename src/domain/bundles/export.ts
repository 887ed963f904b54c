import type { Readable } from 'node:stream';
import type { Services } from '../../services.ts';
import { AppError } from '../errors.ts';
import type { Db } from '../../store/db/types.ts';
import { readExportBatch } from '../../store/bundles.ts';
import { readableAttachmentsOfSpace, readBlob } from '../../store/attachments.ts';
import type { SpaceRow } from '../../store/spaces.ts';
import { openSnapshotStream } from './snapshot-stream.ts';
import { BUNDLE_FORMAT, BUNDLE_FORMAT_VERSION, BUNDLE_FORMAT_VERSION_FILES } from './bundle.ts';
import type { Caller } from '../../model.ts';

// Export writes the bundle as JSON text batch by batch, so memory stays flat whatever the size of
// the space: each keyset batch of pages is one query (never a statement left open across turns of
// the event loop) whose answer is the batch already written as JSON, handed on as one chunk.

// Each chunk is one string from SQLite. Kept under V8's large-object size (128 KiB, and a
// string of non-Latin-1 text takes two bytes a character), chunks die young in the scavenger;
// bigger ones go to large-object space and wait for a full GC. Measured on 100k 2 KB pages:
// 440 KB chunks took the server's peak RSS to 200-330 MB, 110 KB chunks kept it near 165 MB.
// The batch size follows the pages' average size to stay near the target.
const CHUNK_CHARS = 48 * 1024;
const MAX_BATCH = 1000;

export type ExportOptions = { exportedAt: string; withAcl?: boolean; batch?: number };

/**
 * The bundle of `space` as text chunks: the envelope, then one chunk per batch of pages the
 * caller may read, then the closing brackets. Stored frontmatter and metadata are JSON text
 * written by JSON.stringify, so they are spliced in as they are.
 */
export function* generateBundleChunks(db: Db, caller: Caller, space: SpaceRow, opts: ExportOptions): Generator<string> {
  // Files make it version 2 (bundle.ts); they follow the pages, each blob once, as base64.
  const files = readableAttachmentsOfSpace(db, caller, space.id, opts.withAcl ?? true);
  const head = {
    format: BUNDLE_FORMAT,
    formatVersion: files.length ? BUNDLE_FORMAT_VERSION_FILES : BUNDLE_FORMAT_VERSION,
    exportedAt: opts.exportedAt,
    space: { slug: space.slug, name: space.name, description: space.description },
  };
  const prefix = JSON.stringify(head);
  yield `${prefix.slice(0, -1)},"pages":[`;
  let after = '';
  let first = true;
  let batch = opts.batch ?? 32;
  for (;;) {
    const b = readExportBatch(db, caller, space.id, after, batch, opts.withAcl ?? true);
    if (b.n > 0) {
      yield first ? b.json! : `,${b.json}`;
      first = false;
      after = b.last!;
    }
    if (b.n < batch) break;
    if (opts.batch === undefined) batch = Math.max(1, Math.min(MAX_BATCH, Math.floor(CHUNK_CHARS / (b.json!.length / b.n))));
  }
  if (!files.length) {
    yield ']}';
    return;
  }
  const listed = files.map((f) => ({
    path: f.path,
    name: f.name,
    contentType: f.content_type,
    sha256: f.sha256,
    size: f.size,
    ...(f.source === null ? {} : { source: f.source }),
  }));
  yield `],"attachments":${JSON.stringify(listed)},"blobs":{`;
  const written = new Set<string>();
  for (const f of files) {
    if (written.has(f.sha256)) continue;
    yield `${written.size ? ',' : ''}"${f.sha256}":"${readBlob(db, f.sha256)?.toString('base64') ?? ''}"`;
    written.add(f.sha256);
  }
  yield '}}';
}

/** The JSON export as a Node stream over its own snapshot connection (openSnapshotStream). */
export function openExportStream(svc: Services, caller: Caller, space: SpaceRow): Promise<Readable> {
  return openSnapshotStream(svc, 'export', space, (reader) => generateBundleChunks(reader, caller, space, { exportedAt: svc.now() }));
}

/** The whole bundle as one string (org template snapshots), refused past `maxBytes`. */
export function buildBundleText(db: Db, caller: Caller, space: SpaceRow, opts: ExportOptions & { maxBytes: number }): string {
  const parts: string[] = [];
  let size = 0;
  for (const chunk of generateBundleChunks(db, caller, space, opts)) {
    size += Buffer.byteLength(chunk);
    if (size > opts.maxBytes) throw new AppError('payload_too_large', `the space is larger than the ${opts.maxBytes}-byte bundle cap`);
    parts.push(chunk);
  }
  return parts.join('');
}
