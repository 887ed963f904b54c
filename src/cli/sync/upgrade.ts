// A folder synced before `.kspace/pages.json` (docs/sync.md "The folder"): its notes start with a
// `title:` property (and a `kspace:` one for frontmatter), the layout exports had then. The first
// round of a newer kspace rewrites each synced note, and the merge base it is compared with, in
// today's layout (no added properties; the title in pages.json when it is not the file's name),
// so that no title and no property changes on the server. A note changed on disk since the last
// round is rewritten too, and its change is pushed as usual. A round cut short here does it again:
// a note already rewritten equals its rewritten base and is taken as done.
import { fileToPage } from '../../domain/bundles/markdown-folder.ts';
import { readText } from './folder.ts';
import type { RoundContext } from './round-context.ts';

export function upgradeLayout(ctx: RoundContext): void {
  const files = ctx.s.files;
  const legacy = (rel: string, text: string) => {
    const p = fileToPage({ path: rel, text }); // no kept entry: the earlier rules
    return 'code' in p ? null : p;
  };
  for (const [rel, entry] of Object.entries(files)) {
    const base = ctx.bases.read(entry.hash);
    const basePage = base === null ? null : legacy(rel, base);
    if (basePage === null) continue; // nothing known to compare with: the note is read as it is
    const newBase = ctx.noteOf(rel, basePage);
    const pushing = entry.pushing ? ctx.bases.read(entry.pushing) : null;
    const pushingPage = pushing === null ? null : legacy(rel, pushing);
    const next = { ...entry, hash: ctx.bases.keep(newBase.text) };
    if (pushingPage) next.pushing = ctx.bases.keep(ctx.noteOf(rel, pushingPage).text);
    else delete next.pushing;
    let kept = newBase.kept;
    const disk = readText(ctx.dir, rel);
    if (disk === base || disk === newBase.text) {
      // Unchanged since the last round (or rewritten by a round cut short): today's text.
      const st = disk === newBase.text ? null : ctx.write(rel, newBase.text);
      files[rel] = st ? { ...next, size: st.size, mtimeMs: st.mtimeMs } : { ...next, size: -1, mtimeMs: -1 };
    } else {
      // Changed here: rewritten with its change, which the push then sends.
      const diskPage = disk === null ? null : legacy(rel, disk);
      if (diskPage) {
        const n = ctx.noteOf(rel, diskPage);
        ctx.write(rel, n.text);
        kept = n.kept;
      }
      files[rel] = { ...next, size: -1, mtimeMs: -1 };
    }
    ctx.kept.set(rel, Object.keys(kept).length ? kept : null);
  }
  ctx.kept.touch();
  ctx.save();
}
