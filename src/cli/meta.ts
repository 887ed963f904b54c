import type { Command } from 'commander';
import { addClientOptions, apiOf, wantsJson } from './client.ts';
import { pagePath } from '../client/paths.ts';
import { parsed, usageError } from './exit-error.ts';
import { printFields, printJson, printLine } from './format.ts';
import { parseAssignment, parseAssignments, type MetaScalar } from './values.ts';

type Patched = { space: string; path: string; version: number; metadata: Record<string, unknown>; changedKeys: string[] };

const TYPING = `
Values are typed by their look: 3 and 2.5 are numbers, true/false booleans, ["a","b"] a list,
anything else text (dates too: the server recognises ISO dates). Quote to force text: code='"42"'.`;

function report(cmd: Command, r: Patched): void {
  if (wantsJson(cmd)) return printJson(r);
  printLine(r.changedKeys.length ? `changed ${r.changedKeys.join(', ')} (version ${r.version})` : 'nothing changed');
}

/** `kspace meta get|set|append|unset`: metadata patches, one key at a time. */
export function registerMetaCommands(program: Command): void {
  const meta = program.command('meta').description("read and patch a page's metadata").helpGroup('Pages and metadata:');

  addClientOptions(meta.command('get').argument('<space>').argument('<path>').description("print a page's metadata")).action(
    async (space: string, path: string, _opts: unknown, cmd: Command) => {
      const page = await apiOf(cmd).get<{ metadata: Record<string, unknown> }>(pagePath(space, path));
      if (wantsJson(cmd)) return printJson(page.metadata);
      const keys = Object.keys(page.metadata).sort();
      if (keys.length === 0) return printLine('no metadata');
      printFields(keys.map((k) => [k, page.metadata[k]]));
    },
  );

  addClientOptions(
    meta
      .command('set')
      .argument('<space>')
      .argument('<path>')
      .argument('<key=value...>')
      .description('set metadata values; other keys stay'),
  )
    .addHelpText('after', `${TYPING}\n\nExample:\n  kspace meta set tasks tasks/login stage=doing points=5 due=2025-07-01\n`)
    .action(async (space: string, path: string, pairs: string[], _opts: unknown, cmd: Command) => {
      const set = parsed(() => parseAssignments(pairs));
      report(cmd, await apiOf(cmd).json<Patched>('PATCH', pagePath(space, path, 'metadata'), { body: { set } }));
    });

  addClientOptions(
    meta
      .command('append')
      .argument('<space>')
      .argument('<path>')
      .argument('<key=value...>')
      .description('add values to list keys, skipping ones already there'),
  )
    .addHelpText('after', `${TYPING}\n\nExample:\n  kspace meta append tasks tasks/login tags=auth tags=urgent\n`)
    .action(async (space: string, path: string, pairs: string[], _opts: unknown, cmd: Command) => {
      const appendUnique: Record<string, MetaScalar[]> = {};
      for (const p of pairs) {
        const [k, v] = parsed(() => parseAssignment(p));
        (appendUnique[k] ??= []).push(...(Array.isArray(v) ? v : [v]));
      }
      report(cmd, await apiOf(cmd).json<Patched>('PATCH', pagePath(space, path, 'metadata'), { body: { appendUnique } }));
    });

  addClientOptions(
    meta.command('unset').argument('<space>').argument('<path>').argument('<key...>').description('remove metadata keys'),
  ).action(async (space: string, path: string, keys: string[], _opts: unknown, cmd: Command) => {
    if (keys.some((k) => k.includes('='))) throw usageError('unset takes key names, not key=value');
    const set = Object.fromEntries(keys.map((k) => [k, null]));
    report(cmd, await apiOf(cmd).json<Patched>('PATCH', pagePath(space, path, 'metadata'), { body: { set } }));
  });
}
