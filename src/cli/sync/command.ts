// `kspace sync DIR --space S [--once]` (docs/sync.md).
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { addClientOptions, apiOf, wantsJson } from '../client.ts';
import { ExitError, usageError } from '../exit-error.ts';
import { printJson, printLine } from '../format.ts';
import type { SyncReport } from './engine.ts';

function summary(r: SyncReport): string {
  const parts = [
    [r.pulled, 'to disk'],
    [r.pushed, 'to the server'],
    [r.created, 'new pages'],
    [r.deleted, 'deleted'],
    [r.moved, 'moved'],
    [r.merged, 'merged'],
    [r.conflicts.length, 'conflicts'],
    [r.errors.length, 'errors'],
  ] as const;
  const said = parts.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`);
  return said.length ? said.join(', ') : 'nothing to do';
}

/** While following, a round scans the whole folder this often; the others look at what its events name. */
const FULL_SCAN_MS = 5 * 60_000;
/** More changed paths than this in one round (a checkout, a copy of a folder): the whole folder is scanned. */
const MAX_CHANGED = 2000;

const busy = (r: SyncReport): boolean =>
  r.pulled + r.pushed + r.created + r.deleted + r.moved + r.merged + r.conflicts.length + r.errors.length > 0;

export function registerSyncCommand(program: Command): void {
  addClientOptions(
    program
      .command('sync')
      .argument('<dir>', 'the folder (created when missing): empty, a kspace export, an Obsidian vault…')
      .description('keep a folder of Markdown files and a space the same, both ways'),
  )
    .helpGroup('Export and import:')
    .requiredOption('--space <space>', 'the space to sync with')
    .option('--once', 'one round, then exit (for cron)')
    .option('--interval <ms>', 'how often to look for changes when following (default 1000)', '1000')
    .addHelpText('after', '\nExamples:\n  kspace sync ~/notes --space notes\n  kspace sync ~/notes --space notes --once\n')
    .action(async (dir: string, opts: { space: string; once?: boolean; interval: string }, cmd: Command) => {
      const interval = Number(opts.interval);
      if (!Number.isInteger(interval) || interval < 100 || interval > 3_600_000)
        throw usageError('--interval is a whole number of milliseconds, 100 to 3600000');
      const root = path.resolve(dir);
      try {
        fs.mkdirSync(root, { recursive: true });
      } catch (e) {
        throw new ExitError(`cannot make ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
      const api = apiOf(cmd);
      const me = await api.get<{ name: string }>('/me');
      const { Syncer } = await import('./engine.ts');
      const syncer = new Syncer(api, root, opts.space, me.name, (line) => process.stderr.write(`${line}\n`));
      const json = wantsJson(cmd);
      const tell = (r: SyncReport): void => {
        if (json) printJson(r);
        else {
          printLine(`${new Date().toISOString().slice(11, 19)} ${dir} ⇄ ${opts.space}: ${summary(r)}`);
          for (const e of r.errors) printLine(`  ${e.path}: ${e.message}`);
        }
      };
      if (opts.once) {
        tell(await syncer.round());
        return;
      }
      // Following: a round at once, then one whenever the folder changes or the interval passes.
      // The folder's events name what changed, and a round looks at those paths only; the whole
      // folder is scanned at the start, now and then, and whenever the events cannot be trusted
      // (one without a name, too many, the watcher failing).
      let stop = false;
      let wake: (() => void) | null = null;
      const nudge = (): void => {
        wake?.();
      };
      let changed = new Set<string>();
      let scanAll = true;
      let watching = true;
      const watcher = fs.watch(root, { recursive: true }, (_event, name) => {
        if (name === null) scanAll = true;
        else {
          const rel = name.split(path.sep).join('/');
          // Sync's own state and the files it is writing (renamed into place: that is an event too).
          if (rel.split('/').some((p) => p.startsWith('.')) || rel.endsWith('.kspace-tmp')) return;
          if (changed.size < MAX_CHANGED) changed.add(rel);
          else scanAll = true;
        }
        nudge();
      });
      watcher.on('error', () => {
        watching = false;
      });
      const end = (): void => {
        stop = true;
        nudge();
      };
      process.once('SIGINT', end);
      process.once('SIGTERM', end);
      let first = true;
      let lastScan = 0;
      try {
        while (!stop) {
          const full = scanAll || !watching || Date.now() - lastScan >= FULL_SCAN_MS;
          const paths = changed;
          changed = new Set();
          scanAll = false;
          if (full) lastScan = Date.now();
          const r = await syncer.round(full ? undefined : paths);
          if (first || busy(r)) tell(r);
          first = false;
          if (stop) break;
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, interval);
            wake = () => {
              clearTimeout(t);
              wake = null;
              setTimeout(resolve, 50);
            };
          });
        }
      } finally {
        watcher.close();
      }
    });
}
