// The folder side of `kspace sync` (docs/sync.md): its Markdown files, read and scanned.
import fs from 'node:fs';
import path from 'node:path';
import type { Ignore } from './ignore.ts';

export type LocalFile = { rel: string; size: number; mtimeMs: number };

/** A `/`-separated path of the folder as a path of this system. */
export const absolute = (dir: string, rel: string): string => path.join(dir, ...rel.split('/'));

export function readText(dir: string, rel: string): string | null {
  try { return fs.readFileSync(absolute(dir, rel), 'utf8'); } catch { return null; }
}

/** The folder's Markdown files not ignored, with their size and modification time. */
export function scanFolder(dir: string, ignore: Ignore): Map<string, LocalFile> {
  const out = new Map<string, LocalFile>();
  const walk = (rel: string): void => {
    let entries: fs.Dirent[];
    try { entries = fs.readdirSync(rel ? absolute(dir, rel) : dir, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (ignore(child, e.isDirectory())) continue;
      if (e.isDirectory()) walk(child);
      else if (e.isFile() && /\.md$/i.test(e.name)) {
        const st = fs.statSync(absolute(dir, child));
        out.set(child, { rel: child, size: st.size, mtimeMs: st.mtimeMs });
      }
    }
  };
  walk('');
  return out;
}

/** The folders above `rel` that are left empty go (never the synced folder itself). */
export function dropEmptyFolders(dir: string, rel: string): void {
  const parts = rel.split('/').slice(0, -1);
  while (parts.length) {
    try { fs.rmdirSync(absolute(dir, parts.join('/'))); } catch { return; }
    parts.pop();
  }
}

/** `notes/plan.md` → `notes/plan.conflict-ann-20261129T070102Z.md`. */
export function conflictName(rel: string, who: string, at: Date): string {
  const stamp = at.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const safeWho = who.replace(/[^A-Za-z0-9_.-]/g, '_');
  return `${rel.slice(0, -3)}.conflict-${safeWho}-${stamp}.md`;
}
