// Files pasted or dropped into the editor become attachments of the page (PUT /files/…,
// docs/api.md "Attachments") linked as `files/<name>`. A name already taken gets `-2`, `-3` …
// before its extension, so a second pasted "image.png" never replaces the first.
import { ApiError, get, pageApi, putBytes } from '../api/client.ts';
import type { FileList } from '../api/types.ts';
import { formatBytes } from '../../text/bytes.ts';

/** `name`, or `stem-2.ext`, `stem-3.ext` … : the first not in `taken`. */
export function uniqueName(name: string, taken: ReadonlySet<string>): string {
  const clean =
    name
      .normalize('NFC')
      .replace(/[/\\\p{Cc}\p{Default_Ignorable_Code_Point}]/gu, '-')
      .trim() || 'file';
  const safe = clean === '.' || clean === '..' ? 'file' : clean;
  if (!taken.has(safe)) return safe;
  const dot = safe.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [safe.slice(0, dot), safe.slice(dot)] : [safe, ''];
  for (let i = 2; ; i++) if (!taken.has(`${stem}-${i}${ext}`)) return `${stem}-${i}${ext}`;
}

/** The relative address a page's Markdown links its file `name` by; encoded so that spaces and parentheses keep the link whole. */
export function fileHref(name: string): string {
  return `files/${encodeURIComponent(name).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

function fileAddress(space: string, path: string, name: string): string {
  return `/files/${encodeURIComponent(space)}/${[...path.split('/'), name].map(encodeURIComponent).join('/')}`;
}

/** A sentence saying why `name` was not attached. */
function attachError(name: string, err: unknown): string {
  if (err instanceof ApiError) {
    if (err.status === 413) {
      const body = err.problem.body;
      const limit = typeof body.limit === 'number' ? formatBytes(body.limit) : null;
      if (body.setting === 'SERVICE_SPACE_QUOTA_BYTES')
        return `${name} was not attached: the space's files would pass its quota${limit ? ` of ${limit}` : ''}.`;
      return `${name} was not attached: it is too big${limit ? ` (a file may have up to ${limit})` : ''}.`;
    }
    if (err.status === 415 || err.status === 400) return `${name} was not attached: ${err.message}`;
    if (err.status === 403 || err.status === 404) return `${name} was not attached: you may not change this page.`;
    return `${name} was not attached: ${err.message}`;
  }
  return `${name} was not attached: ${err instanceof Error ? err.message : 'the upload failed'}.`;
}

/** The names of a page's files (every page of the list). */
async function fileNames(space: string, path: string): Promise<Set<string>> {
  const names = new Set<string>();
  let cursor: string | null = null;
  for (let i = 0; i < 20; i++) {
    const list: FileList = await get<FileList>(
      `${pageApi(space, path)}/files?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    for (const f of list.files) names.add(f.name);
    cursor = list.nextCursor;
    if (!cursor) break;
  }
  return names;
}

export interface AttachEvents {
  /** A file was attached (or, `queued`, will be once the page exists). */
  done: (name: string, queued?: boolean) => void;
  failed: (message: string) => void;
}

/** Uploads each file to the saved page `space/path` under a free name; resolves to its `files/…` address. */
export function uploader(space: string, path: string, on: AttachEvents): (file: File) => Promise<string> {
  let taken: Promise<Set<string>> | null = null;
  return async (file) => {
    try {
      taken ??= fileNames(space, path).catch(() => new Set<string>());
      const names = await taken;
      const name = uniqueName(file.name, names);
      names.add(name); // before the upload: two files pasted together get two names
      try {
        await putBytes(fileAddress(space, path, name), file);
      } catch (err) {
        names.delete(name);
        throw err;
      }
      on.done(name);
      return fileHref(name);
    } catch (err) {
      on.failed(attachError(file.name, err));
      throw err;
    }
  };
}

/**
 * For a page not yet created (New Page): files wait here, linked at once by the name they will
 * have, and `uploadAll` attaches those the text still links once the page exists.
 */
export class FileQueue {
  private readonly files = new Map<string, File>();
  private on: AttachEvents = { done: () => {}, failed: () => {} };
  /** The editor's attach function, telling `on` what happened. */
  attachWith(on: AttachEvents): (file: File) => Promise<string> {
    this.on = on;
    return this.attach;
  }
  readonly attach = (file: File): Promise<string> => {
    const name = uniqueName(file.name, new Set(this.files.keys()));
    this.files.set(name, file);
    this.on.done(name, true);
    return Promise.resolve(fileHref(name));
  };
  get size(): number {
    return this.files.size;
  }
  /** Uploads the queued files that `content` links; the messages of those that failed. */
  async uploadAll(space: string, path: string, content: string): Promise<string[]> {
    const failed: string[] = [];
    for (const [name, file] of this.files) {
      if (!content.includes(fileHref(name))) continue; // its link was deleted: nothing to attach
      try {
        await putBytes(fileAddress(space, path, name), file);
        this.files.delete(name);
      } catch (err) {
        failed.push(attachError(name, err));
      }
    }
    return failed;
  }
}
