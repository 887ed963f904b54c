import type { Command } from 'commander';
import { addClientOptions, apiOf, enc, pageUrl, wantsJson } from './client.ts';
import { printJson, printLine, printTable } from './format.ts';

type Links = { outbound: Array<{ space: string; path: string; exists: boolean }>; backlinks: Array<{ space: string; path: string; title: string }> };
type Broken = Array<{ source: { space: string; path: string }; target: { space: string; path: string } }>;

/** `kspace links SPACE PATH` and `kspace links broken SPACE`. */
export function registerLinkCommands(program: Command): void {
  const links = addClientOptions(program.command('links').argument('<space>').argument('<path>').description("a page's links and backlinks; links broken SPACE"))
    .helpGroup('Links:')
    .action(async (space: string, path: string, _opts: unknown, cmd: Command) => {
      const r = await apiOf(cmd).get<Links>(pageUrl(space, path, 'links'));
      if (wantsJson(cmd)) return printJson(r);
      printLine(`outbound (${r.outbound.length})`);
      printTable(null, r.outbound.map((l) => [`${l.space}/${l.path}`, l.exists ? '' : '(missing)']), { indent: 2 });
      printLine(`backlinks (${r.backlinks.length})`);
      printTable(null, r.backlinks.map((l) => [`${l.space}/${l.path}`, l.title]), { indent: 2 });
    });

  addClientOptions(links.command('broken').argument('<space>').description('links in a space whose target page does not exist'))
    .action(async (space: string, _opts: unknown, cmd: Command) => {
      const r = await apiOf(cmd).get<Broken>(`/spaces/${enc(space)}/links/broken`);
      if (wantsJson(cmd)) return printJson(r);
      printTable(['SOURCE', 'TARGET'], r.map((b) => [`${b.source.space}/${b.source.path}`, `${b.target.space}/${b.target.path}`]), { empty: 'no broken links' });
    });
}
