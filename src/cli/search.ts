import type { Command } from 'commander';
import { addClientOptions, apiOf, wantsJson } from './client.ts';
import { cell, printJson, printTable, snippetText } from './format.ts';
import { addPagingOptions, fetchList, hintMore, type PagingOptions } from './paging.ts';
import { addQueryOptions, printMetaRows, queryParams, type MetaRow, type QueryOptions } from './records.ts';
import { parseWhere, type Filter } from './values.ts';

type Hit = { space: string; path: string; title: string; snippet: string; score: number };

const QUERY_HELP = `
Each --where is one filter; all of them must hold:
  stage=todo            equal (also ==)            stage!=done        not equal
  points>=3             compare (>, >=, <, <=)     due<2025-07-01     ISO dates compare as dates
  'stage in todo,doing' one of a list              'tags contains x'  a list holds x
  'due exists'          has the key                'due missing'      lacks the key
Values are typed by their look: 3 is a number, true a boolean; quote to force text: 'code="42"'.

Examples:
  kspace query --where 'stage in todo,doing' --where 'points>=3' --order-by due
  kspace query --space tasks --type task --where 'tags contains urgent' --json
  kspace query --where 'due missing' --order-by points --desc
`;

/** `kspace search` (full text) and `kspace query` (metadata). */
export function registerSearchCommands(program: Command): void {
  addPagingOptions(
    addClientOptions(
      program
        .command('search')
        .argument('<query>', 'words (pages with every word first, then some), "quoted phrases", prefix*')
        .description('full-text search, one hit a line'),
    ),
    'hits',
  )
    .helpGroup('Search:')
    .option('--space <slug>', 'only this space')
    .addHelpText('after', '\nExamples:\n  kspace search "release notes"\n  kspace search \'deploy* "blue green"\' --space ops\n')
    .action(async (query: string, opts: PagingOptions & { space?: string }, cmd: Command) => {
      const r = await fetchList<Hit>(apiOf(cmd), '/search', 'hits', { q: query, space: opts.space }, opts);
      if (wantsJson(cmd)) return printJson(r.body);
      const tty = Boolean(process.stdout.isTTY);
      printTable(
        null,
        r.items.map((h) => [`${h.space}/${h.path}`, cell(h.title, 40), snippetText(h.snippet ?? '', tty)]),
        { empty: 'no hits' },
      );
      hintMore(r.nextCursor);
    });

  addQueryOptions(addClientOptions(program.command('query').description('metadata search with --where filters')))
    .helpGroup('Search:')
    .option('--space <slug>', 'only this space')
    .option('--type <name>', 'only records of this type (metadata template=<name>)')
    .addHelpText('after', QUERY_HELP)
    .action(async (opts: QueryOptions & { space?: string; type?: string }, cmd: Command) => {
      const extra: Filter[] = opts.type ? [{ key: 'template', op: 'eq', value: opts.type }] : [];
      const params = { ...queryParams(opts, extra), space: opts.space };
      const r = await fetchList<MetaRow>(apiOf(cmd), '/search/metadata', 'pages', params, opts);
      if (wantsJson(cmd)) return printJson(r.body);
      const keys = [...(opts.where ?? []).map((w) => parseWhere(w).key), ...(opts.orderBy ? [opts.orderBy] : [])];
      printMetaRows(r.items, keys, true);
      hintMore(r.nextCursor);
    });
}
