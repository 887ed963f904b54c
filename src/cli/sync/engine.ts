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
import { firstRun } from './first-run.ts';
import { compileIgnore } from './ignore.ts';
import { pull } from './pull.ts';
import { push } from './push.ts';
import { newReport, RoundContext, type SyncReport } from './round-context.ts';
import { pruneBases } from './state.ts';

export type { SyncReport } from './round-context.ts';

export class Syncer {
  private readonly ctx: RoundContext;

  constructor(api: Api, dir: string, space: string, who: string, log: (line: string) => void = () => undefined) {
    this.ctx = new RoundContext(api, dir, space, who, log);
  }

  /** One round: the first run's matching when there is no state yet, then pull, then push. */
  async round(): Promise<SyncReport> {
    const ctx = this.ctx;
    const report = newReport();
    ctx.ignore = compileIgnore(this.readIgnoreFile());
    if (!ctx.state) ctx.state = ctx.store.load();
    if (ctx.state && ctx.state.space !== ctx.space) {
      throw new ExitError(`${ctx.dir} is synced with space '${ctx.state.space}', not '${ctx.space}'`);
    }
    if (!ctx.state) await firstRun(ctx, report);
    else await pull(ctx, report);
    await push(ctx, report);
    await pushFiles(ctx, report);
    pruneBases(ctx.dir, ctx.s);
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
