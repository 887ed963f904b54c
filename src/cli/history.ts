import type { Command } from 'commander';
import { addClientOptions, apiOf, enc, wantsJson } from './client.ts';
import { pagePath } from '../client/paths.ts';
import { usageError } from './exit-error.ts';
import { printJson, printLine, printListOf } from './format.ts';
import { addPagingOptions, fetchList, type PagingOptions } from './paging.ts';

type Moved = {
  moved: Array<{ from: string; to: string }>;
  rewritten: Array<{ space: string; path: string }>;
  notRewritten: Array<{ space: string; path: string }>;
};
type Diff = {
  from: number;
  to: number;
  title?: { from: string; to: string };
  contentDiff: string;
  frontmatterChanged: string[];
  metadataChanged: string[];
};
type Page = { space: string; path: string; version: number };

const version = (v: string, name: string) => {
  if (!/^\d+$/.test(v)) throw usageError(`${name} is a version number`);
  return Number(v);
};

/** `kspace page move`, `kspace revisions diff|restore`, `kspace trash list|restore`. */
export function registerHistoryCommands(program: Command): void {
  const page = program.commands.find((c) => c.name() === 'page')!;
  addClientOptions(
    page
      .command('move')
      .argument('<space>')
      .argument('<from>')
      .argument('<to>')
      .description('move or rename a page (--prefix: every page under a folder); links you may write follow it'),
  )
    .option('--to-space <slug>', 'move into another space')
    .option('--prefix', 'move every page under <from>/ to <to>/')
    .addHelpText('after', '\nExamples:\n  kspace page move wiki drafts/plan plans/2027\n  kspace page move wiki guide manual --prefix\n')
    .action(async (space: string, from: string, to: string, o: { toSpace?: string; prefix?: boolean }, cmd: Command) => {
      const r = await apiOf(cmd).json<Moved>('POST', `/spaces/${enc(space)}/moves`, {
        body: { from, to, toSpace: o.toSpace, prefix: o.prefix },
      });
      if (wantsJson(cmd)) return printJson(r);
      for (const m of r.moved) printLine(`moved ${space}/${m.from} -> ${o.toSpace ?? space}/${m.to}`);
      for (const p of r.rewritten) printLine(`rewrote links in ${p.space}/${p.path}`);
      for (const p of r.notRewritten) printLine(`left links in ${p.space}/${p.path} (they follow the redirect)`);
    });

  const revisions = program.commands.find((c) => c.name() === 'revisions')!;
  addClientOptions(
    revisions
      .command('diff')
      .argument('<space>')
      .argument('<path>')
      .argument('<a>')
      .argument('<b>')
      .description('what changed from revision a to revision b (a unified diff of the content)'),
  ).action(async (space: string, path: string, a: string, b: string, _o: unknown, cmd: Command) => {
    const d = await apiOf(cmd).get<Diff>(pagePath(space, path, `revisions/${version(a, '<a>')}/diff/${version(b, '<b>')}`));
    if (wantsJson(cmd)) return printJson(d);
    if (d.title) printLine(`title: ${d.title.from} -> ${d.title.to}`);
    if (d.frontmatterChanged.length) printLine(`frontmatter changed: ${d.frontmatterChanged.join(', ')}`);
    if (d.metadataChanged.length) printLine(`metadata changed: ${d.metadataChanged.join(', ')}`);
    process.stdout.write(d.contentDiff);
  });
  addClientOptions(
    revisions
      .command('restore')
      .argument('<space>')
      .argument('<path>')
      .argument('<version>')
      .description('write an earlier revision again, as a new revision'),
  ).action(async (space: string, path: string, v: string, _o: unknown, cmd: Command) => {
    const p = await apiOf(cmd).json<Page>('POST', pagePath(space, path, `revisions/${version(v, '<version>')}/restore`));
    if (wantsJson(cmd)) return printJson(p);
    printLine(`restored ${p.space}/${p.path} from version ${v} (now version ${p.version})`);
  });

  const trash = program.command('trash').description("a space's deleted pages").helpGroup('Pages and metadata:');
  addPagingOptions(addClientOptions(trash.command('list').argument('<space>').description('deleted pages you could read')), 'pages').action(
    async (space: string, opts: PagingOptions, cmd: Command) => {
      type Row = { path: string; title: string; version: number; deletedAt: string; deletedBy: { name: string } | null };
      const r = await fetchList<Row>(apiOf(cmd), `/spaces/${enc(space)}/trash`, 'pages', {}, opts);
      printListOf(
        cmd,
        r.body,
        ['PATH', 'TITLE', 'VERSION', 'DELETED', 'BY'],
        () => r.items.map((p) => [p.path, p.title, p.version, p.deletedAt, p.deletedBy?.name]),
        { empty: 'the trash is empty', more: r.nextCursor },
      );
    },
  );
  addClientOptions(
    trash.command('restore').argument('<space>').argument('<path>').description('bring a deleted page back (a new revision)'),
  )
    .option('--to <path>', 'restore at another path')
    .action(async (space: string, path: string, o: { to?: string }, cmd: Command) => {
      const p = await apiOf(cmd).json<Page>('POST', `/spaces/${enc(space)}/trash/restore`, { body: { path, to: o.to } });
      if (wantsJson(cmd)) return printJson(p);
      printLine(`restored ${p.space}/${p.path} (version ${p.version})`);
    });
}
