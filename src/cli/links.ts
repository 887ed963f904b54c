import type { Command } from 'commander';
import { addClientOptions, apiOf, enc, wantsJson, type Api } from './client.ts';
import { pagePath } from '../client/paths.ts';
import { printJson, printLine, printListOf, printTable } from './format.ts';

type Links = {
  outbound: Array<{ space: string; path: string; exists: boolean }>;
  backlinks: Array<{ space: string; path: string; title: string }>;
  nextCursor: string | null;
};
type Broken = Array<{ source: { space: string; path: string }; target: { space: string; path: string } }>;

// Both answers page (docs/search.md); the commands print everything, so they follow the pages
// to the end, the largest page the server gives at a time.
const PAGE = 1000;

/** `kspace links SPACE PATH` and `kspace links broken SPACE`. */
export function registerLinkCommands(program: Command): void {
  const links = addClientOptions(
    program.command('links').argument('<space>').argument('<path>').description("a page's links and backlinks; links broken SPACE"),
  )
    .helpGroup('Links:')
    .action(async (space: string, path: string, _opts: unknown, cmd: Command) => {
      const r = await allLinks(apiOf(cmd), pagePath(space, path, 'links'));
      if (wantsJson(cmd)) return printJson(r);
      printLine(`outbound (${r.outbound.length})`);
      printTable(
        null,
        r.outbound.map((l) => [`${l.space}/${l.path}`, l.exists ? '' : '(missing)']),
        { indent: 2 },
      );
      printLine(`backlinks (${r.backlinks.length})`);
      printTable(
        null,
        r.backlinks.map((l) => [`${l.space}/${l.path}`, l.title]),
        { indent: 2 },
      );
    });

  addClientOptions(links.command('broken').argument('<space>').description('links in a space whose target page does not exist')).action(
    async (space: string, _opts: unknown, cmd: Command) => {
      const r = await allBroken(apiOf(cmd), `/spaces/${enc(space)}/links/broken`);
      printListOf(
        cmd,
        r,
        ['SOURCE', 'TARGET'],
        () => r.map((b) => [`${b.source.space}/${b.source.path}`, `${b.target.space}/${b.target.path}`]),
        { empty: 'no broken links' },
      );
    },
  );
}

/** Every page of /links merged: one answer with nextCursor null. */
async function allLinks(api: Api, path: string): Promise<Links> {
  const all: Links = { outbound: [], backlinks: [], nextCursor: null };
  let cursor: string | undefined;
  do {
    const r = await api.get<Links>(path, { limit: String(PAGE), cursor });
    all.outbound.push(...r.outbound);
    all.backlinks.push(...r.backlinks);
    cursor = r.nextCursor ?? undefined;
  } while (cursor);
  return all;
}

/** Every page of the broken-link array: the next one is named by the Link header. */
async function allBroken(api: Api, path: string): Promise<Broken> {
  const all: Broken = [];
  let cursor: string | undefined;
  do {
    const res = await api.send('GET', path, { query: { limit: String(PAGE), cursor } });
    all.push(...((await res.json()) as Broken));
    const next = /<([^>]*)>\s*;\s*rel="next"/.exec(res.headers.get('link') ?? '');
    cursor = next ? (new URL(next[1], 'http://x').searchParams.get('cursor') ?? undefined) : undefined;
  } while (cursor);
  return all;
}
