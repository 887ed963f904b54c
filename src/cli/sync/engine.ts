// `kspace sync`: a folder of Markdown files and a space kept the same, both ways (docs/sync.md).
// The folder has the layout of `kspace export --format markdown` (one `<path>.md` a page, the
// shared pure conversion of domain/bundles/markdown-folder.ts). Each round pulls what the change
// feed says changed on the server, then pushes what changed on disk. A page changed on both sides
// since the last round is merged line by line when the changes do not overlap; otherwise the
// server keeps its version and the folder's goes beside it as `<name>.conflict-<who>-<time>.md`,
// which the next push makes a page too. Nothing is lost either way.
import fs from 'node:fs';
import path from 'node:path';
import type { Api } from '../client.ts';
import { ExitError } from '../exit-error.ts';
import { pushFiles } from './attachments.ts';
import { upgradeLayout } from './upgrade.ts';
import { firstRun } from './first-run.ts';
import { scanPaths } from './folder.ts';
import { compileIgnore } from './ignore.ts';
import { pull } from './pull.ts';
import { push } from './push.ts';
import { newReport, RoundContext, type SyncReport } from './round-context.ts';

export type { SyncReport } from './round-context.ts';

export class Syncer {
  private readonly ctx: RoundContext;
  private ignoreText: string | null = null;
  private upgraded = false;

  constructor(api: Api, dir: string, space: string, who: string, log: (line: string) => void = () => undefined) {
    this.ctx = new RoundContext(api, dir, space, who, log);
  }

  /**
   * One round: the first run's matching when there is no state yet, then pull, then push.
   * `changed`: the paths of the folder that changed since the last round (a folder: all under
   * it), as its events say; the push looks at those only. Without it, or when `.kspaceignore`
   * changed, the push scans the whole folder.
   */
  async round(changed?: Iterable<string>): Promise<SyncReport> {
    const ctx = this.ctx;
    const report = newReport();
    const ignoreText = this.readIgnoreFile();
    let full = changed === undefined;
    if (ignoreText !== this.ignoreText) {
      ctx.ignore = compileIgnore(ignoreText);
      this.ignoreText = ignoreText;
      full = true;
    }
    if (!ctx.state) ctx.state = ctx.store.load();
    if (ctx.state && ctx.state.space !== ctx.space) {
      throw new ExitError(`${ctx.dir} is synced with space '${ctx.state.space}', not '${ctx.space}'`);
    }
    if (!ctx.state) {
      await firstRun(ctx, report);
      full = true;
    } else {
      if (!ctx.kept.found && !this.upgraded) upgradeLayout(ctx); // synced before pages.json
      await pull(ctx, report);
    }
    this.upgraded = true;
    const paths = full ? undefined : [...changed!];
    await push(ctx, report, paths && scanPaths(ctx.dir, ctx.ignore, paths));
    await pushFiles(ctx, report, paths);
    if (full) {
      const used = new Set<string>();
      let bytes = 0;
      for (const f of Object.values(ctx.s.files)) {
        used.add(f.hash);
        if (f.pushing) used.add(f.pushing);
        bytes += Math.max(f.size, 0) + 80;
      }
      ctx.bases.prune(used, bytes);
    }
    return report;
  }

  private readIgnoreFile(): string {
    try {
      return fs.readFileSync(path.join(this.ctx.dir, '.kspaceignore'), 'utf8');
    } catch {
      return '';
    }
  }
}
