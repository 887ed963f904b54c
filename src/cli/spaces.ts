import type { Command } from 'commander';
import { addClientOptions, apiOf, enc, wantsJson } from './client.ts';
import { usageError } from './exit-error.ts';
import { printFields, printJson, printLine, printListOf } from './format.ts';
import { addPagingOptions, fetchList, type PagingOptions } from './paging.ts';

type Space = {
  slug: string;
  name: string;
  description: string;
  defaultAccess: string;
  personal: boolean;
  createdAt: string;
  updatedAt: string;
};
const ACCESS = ['write', 'read', 'none'];

function checkAccess(value: string | undefined): string | undefined {
  if (value !== undefined && !ACCESS.includes(value)) throw usageError(`--default-access is one of ${ACCESS.join(', ')}`);
  return value;
}

function printSpace(s: Space): void {
  printFields([
    ['slug', s.slug],
    ['name', s.name],
    ['description', s.description],
    ['default access', s.defaultAccess],
    ['personal', s.personal],
    ['created', s.createdAt],
    ['updated', s.updatedAt],
  ]);
}

/** `kspace spaces list|create|get|update`. */
export function registerSpaceCommands(program: Command): void {
  const spaces = program.command('spaces').description('list, create, show and update spaces').helpGroup('Spaces and templates:');

  addPagingOptions(
    addClientOptions(spaces.command('list').description('the spaces you can see (your personal space included)')),
    'spaces',
  ).action(async (opts: PagingOptions, cmd: Command) => {
    const r = await fetchList<Space>(apiOf(cmd), '/spaces', 'spaces', {}, opts);
    printListOf(
      cmd,
      r.body,
      ['SLUG', 'NAME', 'ACCESS', 'DESCRIPTION'],
      () => r.items.map((s) => [s.slug, s.name, s.personal ? 'personal' : s.defaultAccess, s.description]),
      { empty: 'no spaces', more: r.nextCursor },
    );
  });

  addClientOptions(spaces.command('create').argument('<slug>', 'lowercase letters, digits and -').description('create a shared space'))
    .option('--name <name>', 'display name (default: the slug)')
    .option('--description <text>', 'what the space is for')
    .option('--default-access <access>', 'what every org member may do: write (default), read or none')
    .action(async (slug: string, opts: { name?: string; description?: string; defaultAccess?: string }, cmd: Command) => {
      const space = await apiOf(cmd).json<Space>('POST', '/spaces', {
        body: { slug, name: opts.name ?? slug, description: opts.description, defaultAccess: checkAccess(opts.defaultAccess) },
      });
      if (wantsJson(cmd)) return printJson(space);
      printLine(`created space ${space.slug}`);
    });

  addClientOptions(spaces.command('get').argument('<slug>').description('show one space')).action(
    async (slug: string, _opts: unknown, cmd: Command) => {
      const space = await apiOf(cmd).get<Space>(`/spaces/${enc(slug)}`);
      if (wantsJson(cmd)) return printJson(space);
      printSpace(space);
    },
  );

  addClientOptions(spaces.command('update').argument('<slug>').description("change a space's name, description or default access"))
    .option('--name <name>', 'display name')
    .option('--description <text>', 'description')
    .option('--default-access <access>', 'write, read or none')
    .action(async (slug: string, opts: { name?: string; description?: string; defaultAccess?: string }, cmd: Command) => {
      const body = { name: opts.name, description: opts.description, defaultAccess: checkAccess(opts.defaultAccess) };
      if (Object.values(body).every((v) => v === undefined))
        throw usageError('nothing to change: give --name, --description or --default-access');
      const space = await apiOf(cmd).json<Space>('PATCH', `/spaces/${enc(slug)}`, { body });
      if (wantsJson(cmd)) return printJson(space);
      printSpace(space);
    });
}
