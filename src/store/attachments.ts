import { stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';
import { READABLE_PAGE, callerParams } from './access-sql.ts';
import type { Caller } from '../model.ts';
import { mappedReader } from './db/connection.ts';

// Attachments and their content-addressed blobs (schema.sql). A blob is stored once, in chunks
// of CHUNK_BYTES, however many attachments name it; it is removed with the last one.

export const CHUNK_BYTES = 1024 * 1024;

export type AttachmentRow = {
  page_id: number;
  name: string;
  space_id: number;
  sha256: string;
  content_type: string;
  size: number;
  created_at: string;
  created_by: string;
  /** Its path in the folder it was imported from (`Attachments/pic.png`), else null. */
  source: string | null;
};

export function hasBlob(db: Db, sha256: string): boolean {
  return stmt(db, 'SELECT 1 FROM blobs WHERE sha256 = ?').get(sha256) !== undefined;
}

/** Stores `data` under its hash unless a blob with that hash exists. */
export function putBlob(db: Db, sha256: string, data: Buffer, now: string): void {
  if (hasBlob(db, sha256)) return;
  stmt(db, 'INSERT INTO blobs (sha256, size, chunk_size, created_at) VALUES (?, ?, ?, ?)').run(sha256, data.length, CHUNK_BYTES, now);
  const insert = stmt(db, 'INSERT INTO blob_chunks (sha256, n, data) VALUES (?, ?, ?)');
  for (let off = 0, n = 0; off < data.length || n === 0; off += CHUNK_BYTES, n++)
    insert.run(sha256, n, data.subarray(off, off + CHUNK_BYTES));
}

// Blob reads go through a memory-mapped reader (db/connection.ts, mappedReader): a chunk is a
// chain of 256 overflow pages, and reading them from the map instead of one pread each is much
// faster (docs/performance.md, Attachments). Only blob pages are touched through it,
// so the main connection's page cache and the server's memory stay as they were.
const blobReader = (db: Db): Db => mappedReader(db, 'blobs');

/**
 * Bytes `start`..`end` (inclusive) of a blob, reading only the chunks that hold them (one
 * statement, so one snapshot); null when the blob is gone (removed since its attachment was read).
 */
export function readBlobRange(db: Db, sha256: string, start: number, end: number): Buffer | null {
  if (end < start) return Buffer.alloc(0);
  const rows = stmt(
    blobReader(db),
    `SELECT b.chunk_size AS size, c.n, c.data FROM blobs b JOIN blob_chunks c ON c.sha256 = b.sha256
    WHERE b.sha256 = @sha256 AND c.n BETWEEN CAST(@start AS INTEGER) / b.chunk_size AND CAST(@end AS INTEGER) / b.chunk_size ORDER BY c.n`,
  ).all({ sha256, start, end }) as Array<{ size: number; n: number; data: Buffer }>;
  if (rows.length === 0) return null;
  const whole = rows.length === 1 ? rows[0].data : Buffer.concat(rows.map((r) => r.data));
  const from = start - rows[0].n * rows[0].size;
  const out = whole.subarray(from, from + (end - start + 1));
  return out.length === end - start + 1 ? out : null;
}

/**
 * The chunks holding bytes `start`..`end` of a blob, one statement each, as they are asked for
 * (a stream sends one while the next is read). Content-addressed blobs never change, so reading
 * them chunk by chunk is consistent; a blob removed meanwhile ends the iteration early.
 */
export function* blobChunks(db: Db, sha256: string, start: number, end: number, chunkSize = CHUNK_BYTES): Generator<Buffer> {
  const one = stmt(blobReader(db), 'SELECT data FROM blob_chunks WHERE sha256 = ? AND n = ?').pluck();
  for (let n = Math.floor(start / chunkSize); n <= Math.floor(end / chunkSize); n++) {
    const data = one.get(sha256, n) as Buffer | undefined;
    if (!data) return;
    const from = n * chunkSize;
    yield data.subarray(Math.max(0, start - from), Math.min(data.length, end - from + 1));
  }
}

export function readBlob(db: Db, sha256: string): Buffer | null {
  const size = stmt(db, 'SELECT size FROM blobs WHERE sha256 = ?').pluck().get(sha256) as number | undefined;
  return size === undefined ? null : readBlobRange(db, sha256, 0, size - 1);
}

/** Removes a blob no attachment names any more. */
function dropBlobIfUnused(db: Db, sha256: string): void {
  if (stmt(db, 'SELECT 1 FROM attachments WHERE sha256 = ? LIMIT 1').get(sha256) !== undefined) return;
  stmt(db, 'DELETE FROM blob_chunks WHERE sha256 = ?').run(sha256);
  stmt(db, 'DELETE FROM blobs WHERE sha256 = ?').run(sha256);
}

export function findAttachment(db: Db, pageId: number, name: string): AttachmentRow | undefined {
  return stmt(db, 'SELECT * FROM attachments WHERE page_id = ? AND name = ?').get(pageId, name) as never;
}

export function listAttachments(db: Db, pageId: number): AttachmentRow[] {
  return stmt(db, 'SELECT * FROM attachments WHERE page_id = ? ORDER BY name').all(pageId) as never;
}

/** Adds or replaces an attachment (its blob must exist); a blob it replaced goes when unused. */
export function upsertAttachment(db: Db, row: AttachmentRow): void {
  const old = findAttachment(db, row.page_id, row.name);
  // An upsert, not OR REPLACE: a replaced row fires the update trigger that keeps org_usage.
  stmt(
    db,
    `INSERT INTO attachments (page_id, name, space_id, sha256, content_type, size, created_at, created_by, source)
    VALUES (@page_id, @name, @space_id, @sha256, @content_type, @size, @created_at, @created_by, @source)
    ON CONFLICT (page_id, name) DO UPDATE SET space_id = excluded.space_id, sha256 = excluded.sha256,
      content_type = excluded.content_type, size = excluded.size, created_at = excluded.created_at, created_by = excluded.created_by,
      source = excluded.source`,
  ).run(row);
  if (old && old.sha256 !== row.sha256) dropBlobIfUnused(db, old.sha256);
}

export function deleteAttachment(db: Db, pageId: number, name: string): boolean {
  const old = findAttachment(db, pageId, name);
  if (!old) return false;
  stmt(db, 'DELETE FROM attachments WHERE page_id = ? AND name = ?').run(pageId, name);
  dropBlobIfUnused(db, old.sha256);
  return true;
}

/**
 * Bytes attached to the pages of a space, live and in the trash: each attachment counts its
 * full size, even when its blob is shared (the quota is what the space's pages hold, not how it
 * is stored). From the (space_id, size) index alone.
 */
export function spaceAttachmentBytes(db: Db, spaceId: number): number {
  return stmt(db, 'SELECT coalesce(sum(size), 0) FROM attachments WHERE space_id = ?').pluck().get(spaceId) as number;
}

export type ExportedAttachment = { path: string; name: string; sha256: string; content_type: string; size: number; source: string | null };

/**
 * The attachments of the live pages of a space the caller may read (what an export carries), by
 * path and name. Walked from the space's attachments (CROSS JOIN keeps that order): from its
 * pages, it probed every page for files (0.15–0.4 s at 20,000 pages).
 */
export function readableAttachmentsOfSpace(db: Db, caller: Caller, spaceId: number, withAcl = true): ExportedAttachment[] {
  return stmt(
    db,
    `SELECT p.path, a.name, a.sha256, a.content_type, a.size, a.source
    FROM attachments a CROSS JOIN pages p ON p.id = a.page_id JOIN spaces s ON s.id = p.space_id
    WHERE a.space_id = @spaceId AND p.space_id = @spaceId AND (@withAcl = 1 OR p.has_acl = 0) AND ${READABLE_PAGE}
    ORDER BY p.path, a.name`,
  ).all({ ...callerParams(caller), spaceId, withAcl: withAcl ? 1 : 0 }) as never;
}
