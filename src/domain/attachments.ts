import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Services } from '../services.ts';
import { recordChange } from './changes.ts';
import { AppError, invalid, notFound } from './errors.ts';
import { checkFileName, servedType, sniffContentType } from './file-rules.ts';
import { withinOrgQuota } from './org-quota.ts';
import { loadReadablePage, loadWritablePage } from './pages.ts';
import { tx } from '../store/db/transactions.ts';
import * as store from '../store/attachments.ts';
import type { AttachmentRow } from '../store/attachments.ts';
import type { Caller } from '../model.ts';

// Files attached to a page (docs/api.md "Attachments"). They belong to the page row (by id), so
// a move or a rename carries them and the trash keeps them for a restore; the page's ACL is
// theirs (read → GET and list, write → PUT and DELETE; a page the caller may not read is absent,
// and so are its files). Attachment changes write no page revision and emit no webhook event.

type FileInfo = { name: string; size: number; contentType: string; sha256: string };
type FileListItem = FileInfo & { createdAt: string; url: string };

/** The address of an attachment: `/files/<space>/<page path>/<name>`, each segment percent-encoded. */
export function fileHref(space: string, pagePath: string, name: string): string {
  return `/files/${encodeURIComponent(space)}/${[...pagePath.split('/'), name].map(encodeURIComponent).join('/')}`;
}

/** Splits the part after `/files/<space>/` into the page path and the file name (the last segment). */
export function splitFileAddress(rest: string): { pagePath: string; name: string } {
  const slash = rest.lastIndexOf('/');
  if (slash <= 0 || slash === rest.length - 1) throw notFound('file (the address is /files/<space>/<page path>/<name>)');
  return { pagePath: rest.slice(0, slash), name: rest.slice(slash + 1).normalize('NFC') };
}

function present(row: AttachmentRow): FileInfo {
  return { name: row.name, size: row.size, contentType: servedType(row.content_type), sha256: row.sha256 };
}

/** 413 naming the setting: a file past SERVICE_MAX_ATTACHMENT_BYTES. */
export function attachmentTooLarge(cap: number): AppError {
  return new AppError(
    'payload_too_large',
    `an attachment is limited to ${cap} bytes (SERVICE_MAX_ATTACHMENT_BYTES)`,
    [{ key: 'SERVICE_MAX_ATTACHMENT_BYTES', code: 'max', message: `at most ${cap} bytes a file` }],
    { setting: 'SERVICE_MAX_ATTACHMENT_BYTES', limit: cap },
  );
}

/** The cap a file of `size` bytes must pass (checked on Content-Length before its body is read). */
export function checkFileSize(svc: Services, size: number): void {
  if (size > svc.config.limits.attachmentBytes) throw attachmentTooLarge(svc.config.limits.attachmentBytes);
}

/** Before the upload's body is read: the page exists and the caller may write it; a valid name. */
export function authorizeUpload(svc: Services, caller: Caller, slug: string, pagePath: string, name: string): void {
  loadWritablePage(svc, caller, slug, pagePath);
  const issue = checkFileName(name);
  if (issue) throw invalid([issue]);
}

/** An uploaded body and its hash (computed while it was read). */
type Upload = { data: Buffer; sha256: string };

/** A running hash for a body read in chunks: `add` each chunk, then `finish` with the whole body. */
export function uploadHasher(): { add(chunk: Uint8Array): void; finish(data: Buffer): Upload } {
  const h = createHash('sha256');
  return {
    add: (chunk) => {
      h.update(chunk);
    },
    finish: (data) => ({ data, sha256: h.digest('hex') }),
  };
}

/**
 * PUT /files/…: adds or replaces the file `name` of a page. One transaction. `source`: the file's
 * path in the folder an import read it from (a vault's layout, which a Markdown export keeps);
 * an upload has none, so a file replaced by one is no longer the vault's.
 */
export function putAttachment(
  svc: Services,
  caller: Caller,
  slug: string,
  pagePath: string,
  name: string,
  upload: Upload,
  declaredType: string | null,
  source: string | null = null,
): { file: FileInfo; created: boolean } {
  const issue = checkFileName(name);
  if (issue) throw invalid([issue]);
  checkFileSize(svc, upload.data.length);
  const contentType = sniffContentType(upload.data, declaredType);
  return tx(svc.db, () => {
    const { space, page } = loadWritablePage(svc, caller, slug, pagePath);
    const old = store.findAttachment(svc.db, page.id, name);
    const quota = svc.config.limits.spaceQuotaBytes;
    if (quota > 0) {
      const used = store.spaceAttachmentBytes(svc.db, space.id) - (old?.size ?? 0);
      if (used + upload.data.length > quota) {
        throw new AppError(
          'payload_too_large',
          `the space '${space.slug}' holds ${used} bytes of attachments; its quota is ${quota} (SERVICE_SPACE_QUOTA_BYTES)`,
          [{ key: 'SERVICE_SPACE_QUOTA_BYTES', code: 'max', message: `at most ${quota} bytes of attachments a space` }],
          { setting: 'SERVICE_SPACE_QUOTA_BYTES', limit: quota, used },
        );
      }
    }
    const now = svc.now();
    const row: AttachmentRow = {
      page_id: page.id,
      name,
      space_id: space.id,
      sha256: upload.sha256,
      content_type: contentType,
      size: upload.data.length,
      created_at: now,
      created_by: caller.id,
      source,
    };
    withinOrgQuota(svc, space.org_id, () => {
      store.putBlob(svc.db, upload.sha256, upload.data, now);
      store.upsertAttachment(svc.db, row);
    });
    recordChange(svc.db, caller, { event: 'file.put', pageId: page.id, path: `${page.path}/${name}`, at: now });
    return { file: present(row), created: old === undefined };
  });
}

/** The stored file `name` of a page the caller may read (404 otherwise, for both). */
export function findFile(svc: Services, caller: Caller, slug: string, pagePath: string, name: string): AttachmentRow {
  const { page } = loadReadablePage(svc, caller, slug, pagePath);
  const row = store.findAttachment(svc.db, page.id, name.normalize('NFC'));
  if (!row) throw notFound(`file '${name}' of page '${slug}/${pagePath}'`);
  return row;
}

/** Bytes `start`..`end` (inclusive) of a stored file; 404 when it was removed meanwhile. */
function readFileRange(svc: Services, row: AttachmentRow, start: number, end: number): Buffer {
  const data = store.readBlobRange(svc.db, row.sha256, start, end);
  if (data === null) throw notFound(`file '${row.name}'`);
  return data;
}

/** Bytes `start`..`end` of a stored file: one buffer up to a chunk, a stream of chunks past it. */
export function fileBody(svc: Services, row: AttachmentRow, start: number, end: number): Buffer | Readable {
  return end - start + 1 <= store.CHUNK_BYTES ? readFileRange(svc, row, start, end) : streamFileRange(svc, row, start, end);
}

/**
 * Bytes `start`..`end` of a stored file as a stream of its chunks, read one at a time as the
 * client takes them (so reading the next overlaps sending this one, and memory stays at a chunk).
 * Ends with an error, cutting the answer short, if the file is removed meanwhile.
 */
function streamFileRange(svc: Services, row: AttachmentRow, start: number, end: number): Readable {
  const chunks = store.blobChunks(svc.db, row.sha256, start, end);
  let sent = 0;
  return new Readable({
    highWaterMark: store.CHUNK_BYTES,
    read() {
      try {
        const next = chunks.next();
        if (!next.done) {
          sent += next.value.length;
          this.push(next.value);
        } else if (sent === end - start + 1) {
          this.push(null);
        } else {
          this.destroy(new Error(`file '${row.name}' was removed while it was being sent`));
        }
      } catch (e) {
        this.destroy(e as Error);
      }
    },
  });
}

export function deleteAttachment(svc: Services, caller: Caller, slug: string, pagePath: string, name: string): void {
  tx(svc.db, () => {
    const { page } = loadWritablePage(svc, caller, slug, pagePath);
    const stored = name.normalize('NFC');
    if (!store.deleteAttachment(svc.db, page.id, stored)) throw notFound(`file '${name}' of page '${slug}/${pagePath}'`);
    recordChange(svc.db, caller, { event: 'file.deleted', pageId: page.id, path: `${page.path}/${stored}`, at: svc.now() });
  });
}

/** GET /pages/:space/:path/files: the page's files in name order. */
export function listFiles(svc: Services, caller: Caller, slug: string, pagePath: string, q: { after: string; limit: number }) {
  const { space, page } = loadReadablePage(svc, caller, slug, pagePath);
  const rows = store.listAttachments(svc.db, page.id).filter((r) => r.name > q.after);
  const files: FileListItem[] = rows.slice(0, q.limit).map((r) => ({
    ...present(r),
    createdAt: r.created_at,
    url: fileHref(space.slug, page.path, r.name),
  }));
  return { files, last: rows.length > q.limit ? files[files.length - 1].name : null };
}
