// What a `kspace sync` folder keeps beside its notes, as an export does (docs/sync.md "The
// folder"): `.kspace/pages.json`, each note's title when it is not the file's name and the
// frontmatter its properties cannot say (domain/bundles/folder-kept.ts). Held in memory during a
// round and written (whole, renamed over the old, flushed) with each save, after the notes and
// before the state that records them, so that the state never names a note whose entry is lost.
import fs from 'node:fs';
import path from 'node:path';
import { keptPagesText, PAGES_FILE, parseKeptPages, titleOfFile, type KeptPage } from '../../domain/bundles/folder-kept.ts';
import { writeDurably } from './state-file.ts';

export class KeptPages {
  private pages = new Map<string, KeptPage>();
  private dirty = false;
  /** Whether the folder had the file when it was read (a folder synced before it did not: upgrade.ts rewrites it). */
  readonly found: boolean;
  private readonly file: string;

  constructor(dir: string) {
    this.file = path.join(dir, ...PAGES_FILE.split('/'));
    let text: string | null = null;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch {
      /* none yet */
    }
    this.found = text !== null;
    if (text !== null) this.pages = parseKeptPages(text).pages;
  }

  /** The entry of the note at `rel` (`{}`: it keeps nothing). */
  get(rel: string): KeptPage {
    return this.pages.get(rel) ?? {};
  }

  set(rel: string, kept: KeptPage | null): void {
    const before = this.pages.get(rel);
    if (kept === null ? before === undefined : JSON.stringify(before) === JSON.stringify(kept)) return;
    if (kept === null) this.pages.delete(rel);
    else this.pages.set(rel, kept);
    this.dirty = true;
  }

  /**
   * A note renamed (on disk, or by a move on the server): its entry follows it, and its title
   * stays the one it had (an old file name becomes a kept title; a kept title that is the new
   * name is dropped), as the title did when it was written in the file.
   */
  move(from: string, to: string): void {
    const { title, ...rest } = this.get(from);
    const had = title ?? titleOfFile(from);
    this.set(from, null);
    const next: KeptPage = had === titleOfFile(to) ? rest : { title: had, ...rest };
    this.set(to, Object.keys(next).length ? next : null);
  }

  /** Written at the next flush even when unchanged (a new sync folder gets one, even empty). */
  touch(): void {
    this.dirty = true;
  }

  /** Written when changed (RoundContext.save: after the notes, before the state). */
  flush(): void {
    if (!this.dirty) return;
    writeDurably(this.file, keptPagesText(this.pages));
    this.dirty = false;
  }
}
