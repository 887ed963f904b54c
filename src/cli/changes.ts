// `kspace changes`: the change feed in the terminal (docs/changes.md), one change a line, or
// one JSON object a line with --json; --follow keeps the stream open.
import type { Command } from 'commander';
import type { Change } from '../model.ts';
import { addClientOptions, apiOf, wantsJson } from './client.ts';
import { ExitError } from './exit-error.ts';

function line(c: Change): string {
  const from = c.from ? ` (from ${c.from.space}/${c.from.path})` : '';
  const version = c.version !== undefined ? ` v${c.version}` : '';
  return `${c.txid}\t${c.at}\t${c.event}\t${c.space}/${c.path}${from}${version}\t${c.actor.id}`;
}

function whole(value: string, name: string): number {
  if (!/^\d{1,15}$/.test(value)) throw new ExitError(`${name} is a whole number (a txid), not '${value}'`, 2);
  return Number(value);
}

export function registerChangesCommand(program: Command): void {
  addClientOptions(program.command('changes').description('print the change feed: what changed, in commit order'))
    .helpGroup('Search:')
    .option('--since <txid>', 'only the changes after this txid (default: every change kept; with --follow: from now)')
    .option('--space <slug>', 'only this space')
    .option('--follow', 'keep printing changes as they commit (Ctrl-C to stop)')
    .addHelpText(
      'after',
      '\nEach line: txid, time, event, space/path (from …) version, actor. --json: one JSON object a line.\n\nExamples:\n  kspace changes --since 1200\n  kspace changes --follow --space wiki\n  kspace changes --follow --json | jq .path\n',
    )
    .action(async (opts: { since?: string; space?: string; follow?: boolean }, cmd: Command) => {
      const api = apiOf(cmd);
      const json = wantsJson(cmd);
      const print = (c: Change) => void process.stdout.write(`${json ? JSON.stringify(c) : line(c)}\n`);
      let since = opts.since !== undefined ? whole(opts.since, '--since') : undefined;
      if (!opts.follow || since === undefined) {
        // Every change kept after `since`, page by page; without --follow and --since, from the oldest kept.
        let at = since ?? 0;
        for (;;) {
          const page = await api.get<{ changes: Change[]; nextSince: number }>('/changes', {
            since: at,
            space: opts.space,
            limit: 1000,
          });
          if (!opts.follow) page.changes.forEach(print);
          at = page.nextSince;
          if (page.changes.length === 0) break;
        }
        since = at;
      }
      if (opts.follow) await api.follow({ since, space: opts.space, onChange: print });
    });
}
