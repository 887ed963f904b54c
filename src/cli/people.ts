import type { Command } from 'commander';
import { addClientOptions, apiOf, enc, wantsJson } from './client.ts';
import { usageError } from './exit-error.ts';
import { printFields, printJson, printLine, printListOf } from './format.ts';

type Principal = { id: string; name: string; kind: string; orgAdmin: boolean };
type Key = { id: string; prefix: string; createdAt: string; revokedAt: string | null };

/** A principal id from an id or a name (org admins list principals). */
async function principalId(cmd: Command, ref: string): Promise<string> {
  const all = await apiOf(cmd).get<Principal[]>('/admin/principals');
  const hit = all.find((p) => p.id === ref) ?? all.find((p) => p.name === ref);
  if (!hit) throw usageError(`no principal '${ref}'`);
  return hit.id;
}

/** `kspace whoami`, `kspace principals list|create`, `kspace keys list|create|revoke`. */
export function registerPeopleCommands(program: Command): void {
  addClientOptions(program.command('whoami').description('the principal your key belongs to').helpGroup('People and keys:')).action(
    async (_o: unknown, cmd: Command) => {
      const me = await apiOf(cmd).get<Principal>('/me');
      if (wantsJson(cmd)) return printJson(me);
      printFields([
        ['name', me.name],
        ['id', me.id],
        ['kind', me.kind],
        ['org admin', me.orgAdmin],
      ]);
    },
  );

  const principals = program
    .command('principals')
    .description('people and agents of the organisation (org admins)')
    .helpGroup('People and keys:');
  addClientOptions(principals.command('list').description('every principal')).action(async (_o: unknown, cmd: Command) => {
    const all = await apiOf(cmd).get<Principal[]>('/admin/principals');
    printListOf(cmd, all, ['NAME', 'ID', 'KIND', 'ADMIN'], () => all.map((p) => [p.name, p.id, p.kind, p.orgAdmin ? 'yes' : '']), {
      empty: 'no principals',
    });
  });
  addClientOptions(principals.command('create').argument('<name>').description('a new principal'))
    .option('--kind <kind>', 'agent or user', 'agent')
    .option('--org-admin', 'an org admin')
    .option('--password <password>', 'sign-in password (users)')
    .action(async (name: string, o: { kind: string; orgAdmin?: boolean; password?: string }, cmd: Command) => {
      if (o.kind !== 'agent' && o.kind !== 'user') throw usageError('--kind is agent or user');
      const p = await apiOf(cmd).json<Principal>('POST', '/admin/principals', {
        body: { name, kind: o.kind, orgAdmin: o.orgAdmin ?? false, password: o.password },
      });
      if (wantsJson(cmd)) return printJson(p);
      printLine(`created ${p.kind} ${p.name} (${p.id})`);
    });

  const keys = program.command('keys').description('API keys of a principal (org admins)').helpGroup('People and keys:');
  addClientOptions(keys.command('list').argument('<principal>', 'name or id').description("a principal's keys")).action(
    async (ref: string, _o: unknown, cmd: Command) => {
      const list = await apiOf(cmd).get<Key[]>(`/admin/principals/${enc(await principalId(cmd, ref))}/keys`);
      printListOf(cmd, list, ['ID', 'PREFIX', 'CREATED', 'REVOKED'], () => list.map((k) => [k.id, k.prefix, k.createdAt, k.revokedAt]), {
        empty: 'no keys',
      });
    },
  );
  addClientOptions(keys.command('create').argument('<principal>', 'name or id').description('a new key (shown once)')).action(
    async (ref: string, _o: unknown, cmd: Command) => {
      const k = await apiOf(cmd).json<{ id: string; key: string }>('POST', `/admin/principals/${enc(await principalId(cmd, ref))}/keys`);
      if (wantsJson(cmd)) return printJson(k);
      printLine(k.key);
      process.stderr.write(`key ${k.id}: shown only now; keep it\n`);
    },
  );
  addClientOptions(keys.command('revoke').argument('<key-id>').description('revoke a key at once')).action(
    async (id: string, _o: unknown, cmd: Command) => {
      await apiOf(cmd).send('DELETE', `/admin/keys/${enc(id)}`);
      if (wantsJson(cmd)) return printJson({ ok: true });
      printLine(`revoked ${id}`);
    },
  );
}
