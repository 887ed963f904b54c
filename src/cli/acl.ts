import type { Command } from 'commander';
import { addClientOptions, apiOf, collectList, wantsJson } from './client.ts';
import { pagePath } from '../client/paths.ts';
import { usageError } from './exit-error.ts';
import { printFields, printJson } from './format.ts';

type Acl = { restricted: boolean; read: string[]; write: string[] };

function printAcl(cmd: Command, acl: Acl): void {
  if (wantsJson(cmd)) return printJson(acl);
  if (!acl.restricted) return printFields([['access', "the space's default (no ACL of its own)"]]);
  printFields([
    ['access', 'restricted to the principals below and org admins'],
    ['read', acl.read.join(', ') || '-'],
    ['write', acl.write.join(', ') || '-'],
  ]);
}

/** `kspace acl get|set|clear`: a page's own access list. */
export function registerAclCommands(program: Command): void {
  const acl = program.command('acl').description("a page's own access list").helpGroup('Pages and metadata:');

  addClientOptions(acl.command('get').argument('<space>').argument('<path>').description("show a page's ACL")).action(
    async (space: string, path: string, _opts: unknown, cmd: Command) => {
      printAcl(cmd, await apiOf(cmd).get<Acl>(pagePath(space, path, 'acl')));
    },
  );

  addClientOptions(
    acl
      .command('set')
      .argument('<space>')
      .argument('<path>')
      .description('restrict a page to the given principals (ids; org admins keep access)'),
  )
    .option('--read <ids>', 'principal ids that may read (repeatable or comma-separated)', collectList)
    .option('--write <ids>', 'principal ids that may read and write (repeatable or comma-separated)', collectList)
    .addHelpText('after', '\nExample:\n  kspace acl set wiki hr/salaries --write p_123 --read p_456,p_789\n')
    .action(async (space: string, path: string, o: { read?: string[]; write?: string[] }, cmd: Command) => {
      const opts = { read: o.read ?? [], write: o.write ?? [] };
      if (opts.read.length + opts.write.length === 0)
        throw usageError('give --read or --write principal ids (acl clear returns the page to the space default)');
      printAcl(cmd, await apiOf(cmd).json<Acl>('PUT', pagePath(space, path, 'acl'), { body: { read: opts.read, write: opts.write } }));
    });

  addClientOptions(
    acl.command('clear').argument('<space>').argument('<path>').description("remove a page's ACL: the space default applies again"),
  ).action(async (space: string, path: string, _opts: unknown, cmd: Command) => {
    printAcl(cmd, await apiOf(cmd).json<Acl>('DELETE', pagePath(space, path, 'acl')));
  });
}
