// The server side of `kspace sync` (docs/sync.md): the pages of one space through the HTTP API.
import type { BundlePage } from '../../domain/bundles/bundle.ts';
import { toBundleJson, type FolderAttachment } from '../../domain/bundles/markdown-folder.ts';
import { pagePath, spacePath } from '../../client/paths.ts';
import type { Api } from '../client.ts';
import { enc } from '../client.ts';
import { ExitError } from '../exit-error.ts';
import { sha256 } from './state.ts';

export type ServerPage = BundlePage & { version: number };
/** A page's attached file as the JSON export lists it (its bytes in the export's `blobs`, by sha256). */
type ServerFile = { path: string; name: string; contentType: string; sha256: string };
type ServerExport = { pages: BundlePage[]; attachments: ServerFile[]; blobs: Record<string, string> };
export type Change = { txid: number; event: string; space: string; path: string; from?: { space: string; path: string }; version?: number };

export const FEED_LIMIT = 1000;
const LIST_LIMIT = 200;
const IMPORT_BATCH_BYTES = 16 * 1024 * 1024;

/** HTTP status of a failed call, or undefined for anything else. */
export const statusOf = (e: unknown): number | undefined => (e instanceof ExitError ? e.status : undefined);

/** Whether two pages say the same (title, text, metadata, frontmatter). */
export function samePage(a: BundlePage, b: BundlePage): boolean {
  return (
    a.title === b.title &&
    a.content === b.content &&
    JSON.stringify(sorted(a.metadata)) === JSON.stringify(sorted(b.metadata)) &&
    JSON.stringify(sorted(a.frontmatter)) === JSON.stringify(sorted(b.frontmatter))
  );
}
function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
    );
  return v;
}

export class Remote {
  readonly api: Api;
  readonly space: string;
  /** The server has no change feed (an older kspace): rounds compare every page's version. */
  noFeed = false;

  constructor(api: Api, space: string) {
    this.api = api;
    this.space = space;
  }

  async getPage(page: string): Promise<ServerPage | null> {
    try {
      const p = await this.api.get<ServerPage>(pagePath(this.space, page));
      return { path: p.path, title: p.title, content: p.content, metadata: p.metadata, frontmatter: p.frontmatter, version: p.version };
    } catch (e) {
      if (statusOf(e) === 404) return null;
      throw e;
    }
  }

  /** PUT of a file's page; the page's version after it. 409 comes back as null. */
  async putPage(page: BundlePage, baseVersion: number): Promise<number | null> {
    try {
      const r = await this.api.json<{ version: number }>('PUT', pagePath(this.space, page.path), {
        body: { title: page.title, content: page.content, metadata: page.metadata, frontmatter: page.frontmatter, baseVersion },
      });
      return r.version;
    } catch (e) {
      if (statusOf(e) === 409) return null;
      throw e;
    }
  }

  /**
   * The txid to follow the feed from: the newest the server holds (`since=now`, one request; from
   * a server before that, by reading the kept changes through). 0 from a server without the feed
   * (an older kspace): each round then compares the versions of every page instead.
   */
  async feedHead(): Promise<number> {
    try {
      const r = await this.api.get<{ nextSince: number }>('/changes', { since: 'now', space: this.space, limit: 1 });
      return r.nextSince;
    } catch (e) {
      if (statusOf(e) !== 400 && statusOf(e) !== 404) throw e;
    }
    let since = 0;
    for (;;) {
      let r: { changes: Change[]; nextSince: number };
      try {
        r = await this.api.get('/changes', { since, space: this.space, limit: FEED_LIMIT });
      } catch (e) {
        if (statusOf(e) === 404 && since === 0 && (e as Error).message.includes('no route')) {
          this.noFeed = true;
          return 0;
        }
        throw e;
      }
      if (r.changes.length === 0 || r.nextSince === since) return r.nextSince;
      since = r.nextSince;
    }
  }

  async listVersions(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    let cursor: string | null = null;
    do {
      const r: { pages: Array<{ path: string; version: number }>; nextCursor: string | null } = await this.api.get(
        spacePath(this.space, 'pages'),
        { limit: LIST_LIMIT, cursor },
      );
      for (const p of r.pages) out.set(p.path, p.version);
      cursor = r.nextCursor;
    } while (cursor);
    return out;
  }

  /** Every page of the space and their files in one request (the JSON export). */
  async exportPages(): Promise<ServerExport> {
    const res = await this.api.send('GET', spacePath(this.space, 'export'));
    const bundle = (await res.json()) as Partial<ServerExport> & { pages: BundlePage[] };
    return { pages: bundle.pages, attachments: bundle.attachments ?? [], blobs: bundle.blobs ?? {} };
  }

  /**
   * New pages through the bundle import (one write path, its rules), in requests well under the
   * server's import cap: a first run into an empty space sends thousands of pages in seconds.
   * The paths it could not import.
   */
  async importPages(pages: BundlePage[], files: FolderAttachment[] = []): Promise<Array<{ path: string; message: string }>> {
    const failed: Array<{ path: string; message: string }> = [];
    const filesOf = new Map<string, FolderAttachment[]>();
    for (const f of files) filesOf.set(f.path, [...(filesOf.get(f.path) ?? []), f]);
    let batch: BundlePage[] = [];
    let size = 0;
    const send = async (): Promise<void> => {
      if (!batch.length) return;
      const body = toBundleJson({ slug: this.space, name: this.space, description: '' }, batch);
      const attached = batch.flatMap((p) => filesOf.get(p.path) ?? []);
      if (attached.length) {
        // Version 2: the pages' files, each blob once (docs/export-import.md).
        const blobs: Record<string, string> = {};
        body.formatVersion = 2;
        body.attachments = attached.map((f) => {
          const hash = sha256(Buffer.from(f.data));
          blobs[hash] ??= Buffer.from(f.data).toString('base64');
          return { path: f.path, name: f.name, contentType: f.contentType, sha256: hash, ...(f.source ? { source: f.source } : {}) };
        });
        body.blobs = blobs;
      }
      const r = await this.api.json<{ errors: Array<{ path: string; message: string }> }>('POST', spacePath(this.space, 'import'), {
        query: { mode: 'skip' },
        body,
      });
      failed.push(...r.errors);
      batch = [];
      size = 0;
    };
    for (const p of pages) {
      const n =
        Buffer.byteLength(p.content) + 512 + (filesOf.get(p.path) ?? []).reduce((t, f) => t + Math.ceil((f.data.length * 4) / 3), 0);
      if (size + n > IMPORT_BATCH_BYTES) await send();
      batch.push(p);
      size += n;
    }
    await send();
    return failed;
  }

  /** An earlier version of a page, or null when it cannot be read. */
  async getRevision(page: string, version: number): Promise<BundlePage | null> {
    try {
      const r = await this.api.get<BundlePage>(pagePath(this.space, page, `revisions/${version}`));
      return { path: page, title: r.title, content: r.content, metadata: r.metadata, frontmatter: r.frontmatter };
    } catch (e) {
      if (statusOf(e) === 404 || statusOf(e) === 403) return null;
      throw e;
    }
  }

  /** The changes after `since` (one page of the feed). */
  changes(since: number): Promise<{ changes: Change[]; nextSince: number }> {
    return this.api.get('/changes', { since, space: this.space, limit: FEED_LIMIT });
  }

  /** A move on the server; false when it cannot be one (the page or the target is not what it was). */
  async move(from: string, to: string): Promise<boolean> {
    try {
      await this.api.json('POST', spacePath(this.space, 'moves'), { body: { from, to } });
      return true;
    } catch (e) {
      const st = statusOf(e);
      if (st === 404 || st === 409 || st === 400) return false;
      throw e;
    }
  }

  /** The names and hashes of a page's files ([] when the page is gone). */
  async listFiles(page: string): Promise<Array<{ name: string; sha256: string }>> {
    const out: Array<{ name: string; sha256: string }> = [];
    let cursor: string | null = null;
    try {
      do {
        const r: { files: Array<{ name: string; sha256: string }>; nextCursor: string | null } = await this.api.get(
          pagePath(this.space, page, 'files'),
          { limit: LIST_LIMIT, cursor },
        );
        out.push(...r.files.map((f) => ({ name: f.name, sha256: f.sha256 })));
        cursor = r.nextCursor;
      } while (cursor);
    } catch (e) {
      if (statusOf(e) === 404) return [];
      throw e;
    }
    return out;
  }

  private fileUrl(page: string, name: string): string {
    return `/files/${enc(this.space)}/${[...page.split('/'), name].map(enc).join('/')}`;
  }

  /** A file's bytes, or null when it (or its page) is gone. */
  async getFile(page: string, name: string): Promise<Buffer | null> {
    try {
      const res = await this.api.send('GET', this.fileUrl(page, name), { accept: '*/*' });
      return Buffer.from(await res.arrayBuffer());
    } catch (e) {
      if (statusOf(e) === 404) return null;
      throw e;
    }
  }

  /** Attaches (or replaces) a file; false when the page is gone. */
  async putFile(page: string, name: string, bytes: Uint8Array): Promise<boolean> {
    try {
      await this.api.json('PUT', this.fileUrl(page, name), { bytes });
      return true;
    } catch (e) {
      if (statusOf(e) === 404) return false;
      throw e;
    }
  }

  /** Removes a file (gone already is the same). */
  async deleteFile(page: string, name: string): Promise<void> {
    try {
      await this.api.send('DELETE', this.fileUrl(page, name));
    } catch (e) {
      if (statusOf(e) !== 404) throw e;
    }
  }

  /** The page to the trash (gone already is the same). */
  async remove(page: string): Promise<void> {
    try {
      await this.api.json('DELETE', pagePath(this.space, page));
    } catch (e) {
      if (statusOf(e) !== 404) throw e;
    }
  }
}
