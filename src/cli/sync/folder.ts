// The folder side of `kspace sync` (docs/sync.md): its Markdown files, read and scanned.
import fs from 'node:fs';
import path from 'node:path';
import type { Ignore } from './ignore.ts';

export type LocalFile = { rel: string; size: number; mtimeMs: number };

/** A `/`-separated path of the folder as a path of this system. */
export const absolute = (dir: string, rel: string): string => path.join(dir, ...rel.split('/'));

export function readText(dir: string, rel: string): string | null {
  try {
    return fs.readFileSync(absolute(dir, rel), 'utf8');
  } catch {
    return null;
  }
}

export function readBytes(dir: string, rel: string): Buffer | null {
  try {
    return fs.readFileSync(absolute(dir, rel));
  } catch {
    return null;
  }
}

const isMarkdown = (rel: string): boolean => /\.md$/i.test(rel);

/**
 * Where an attached file lies in the layout of a folder export: `<folder>/files/<name>`, or
 * `<folder>/files/<page name>/<name>` (docs/export-import.md, The folder).
 */
export function isAttachmentPlace(rel: string): boolean {
  if (isMarkdown(rel) || rel.endsWith('.kspace-tmp')) return false;
  const parts = rel.split('/');
  return parts.at(-2) === 'files' || parts.at(-3) === 'files';
}

/**
 * The folder's files not ignored that `want` takes (default: the Markdown files), with their size
 * and time; `from`: only those under that folder of it.
 */
export function scanFolder(
  dir: string,
  ignore: Ignore,
  want: (rel: string) => boolean = isMarkdown,
  from = '',
  out = new Map<string, LocalFile>(),
): Map<string, LocalFile> {
  const walk = (rel: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(rel ? absolute(dir, rel) : dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (ignore(child, e.isDirectory())) continue;
      if (e.isDirectory()) walk(child);
      else if (e.isFile() && want(child)) {
        const st = fs.statSync(absolute(dir, child));
        out.set(child, { rel: child, size: st.size, mtimeMs: st.mtimeMs });
      }
    }
  };
  walk(from);
  return out;
}

/**
 * What a round looks at when it follows the folder's events instead of scanning it: the files at
 * the paths that changed (a folder: every file under it) that `want` takes, and whether a path of
 * the state is one of those looked at (itself or a folder above it changed), so that one gone
 * from the disk is seen as gone.
 */
export type Scope = { found: Map<string, LocalFile>; covers: (rel: string) => boolean };

export function scanPaths(dir: string, ignore: Ignore, paths: Iterable<string>, want: (rel: string) => boolean = isMarkdown): Scope {
  const found = new Map<string, LocalFile>();
  const looked = new Set<string>();
  for (const rel of paths) {
    if (looked.has(rel)) continue;
    looked.add(rel);
    let st: fs.Stats;
    try {
      st = fs.statSync(absolute(dir, rel));
    } catch {
      continue; // gone: `covers` says so
    }
    if (ignore(rel, st.isDirectory())) continue;
    if (st.isDirectory()) scanFolder(dir, ignore, want, rel, found);
    else if (st.isFile() && want(rel)) found.set(rel, { rel, size: st.size, mtimeMs: st.mtimeMs });
  }
  const covers = (rel: string): boolean => {
    if (looked.has(rel)) return true;
    for (let i = rel.indexOf('/'); i > 0; i = rel.indexOf('/', i + 1)) if (looked.has(rel.slice(0, i))) return true;
    return false;
  };
  return { found, covers };
}

/** The folders above `rel` that are left empty go (never the synced folder itself). */
export function dropEmptyFolders(dir: string, rel: string): void {
  const parts = rel.split('/').slice(0, -1);
  while (parts.length) {
    try {
      fs.rmdirSync(absolute(dir, parts.join('/')));
    } catch {
      return;
    }
    parts.pop();
  }
}

/** `notes/plan.md` → `notes/plan.conflict-ann-20261129T070102Z.md`. */
export function conflictName(rel: string, who: string, at: Date): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const safeWho = who.replace(/[^A-Za-z0-9_.-]/g, '_');
  return `${rel.slice(0, -3)}.conflict-${safeWho}-${stamp}.md`;
}
