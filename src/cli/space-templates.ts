import type { Command } from 'commander';
import { addClientOptions, apiOf, enc, wantsJson } from './client.ts';
import { printJson, printLine, printListOf } from './format.ts';

type Entry = { source: string; id: string; name: string; description: string; pages: number };
type Created = { space: { slug: string; name: string }; import: { created: number; updated: number; skipped: number; errors: unknown[] } };

/** `kspace space-templates list|create|save|delete`: the gallery of whole-space templates. */
export function registerSpaceTemplateCommands(program: Command): void {
  const st = program.command('space-templates').description('whole-space templates: list, use, save').helpGroup('Spaces and templates:');

  addClientOptions(st.command('list').description('the gallery')).action(async (_opts: unknown, cmd: Command) => {
    const list = await apiOf(cmd).get<Entry[]>('/space-templates');
    printListOf(
      cmd,
      list,
      ['SOURCE', 'ID', 'NAME', 'PAGES', 'DESCRIPTION'],
      () => list.map((e) => [e.source, e.id, e.name, e.pages, e.description]),
      { empty: 'no space templates' },
    );
  });

  addClientOptions(
    st.command('create').argument('<source>', 'built-in, remote or org').argument('<id>').description('create a new space from a template'),
  )
    .requiredOption('--slug <slug>', "the new space's slug")
    .option('--name <name>', "its name (default: the template's)")
    .option('--description <text>', 'its description')
    .addHelpText('after', '\nExample:\n  kspace space-templates create built-in issue-tracker --slug bugs --name Bugs\n')
    .action(async (source: string, id: string, opts: { slug: string; name?: string; description?: string }, cmd: Command) => {
      const r = await apiOf(cmd).json<Created>('POST', `/space-templates/${enc(source)}/${enc(id)}/spaces`, {
        body: { slug: opts.slug, name: opts.name, description: opts.description },
      });
      if (wantsJson(cmd)) return printJson(r);
      printLine(
        `created space ${r.space.slug} from ${source}/${id}: ${r.import.created} pages${r.import.errors.length ? `, ${r.import.errors.length} errors` : ''}`,
      );
    });

  addClientOptions(st.command('save').argument('<space>').description('save a space as an organisation template (org admin)'))
    .requiredOption('--name <name>', "the template's name")
    .option('--id <id>', 'its id (default: made from the name); an id already taken is refused')
    .option('--description <text>', 'what it is for')
    .action(async (space: string, opts: { name: string; id?: string; description?: string }, cmd: Command) => {
      const r = await apiOf(cmd).json<Entry>('POST', '/space-templates/org', {
        body: { space, id: opts.id, name: opts.name, description: opts.description },
      });
      if (wantsJson(cmd)) return printJson(r);
      printLine(`saved org template ${r.id} (${r.pages} pages)`);
    });

  addClientOptions(st.command('delete').argument('<id>').description('remove an organisation template (org admin)')).action(
    async (id: string, _opts: unknown, cmd: Command) => {
      await apiOf(cmd).send('DELETE', `/space-templates/org/${enc(id)}`);
      if (wantsJson(cmd)) return printJson({ ok: true });
      printLine(`deleted org template ${id}`);
    },
  );
}
