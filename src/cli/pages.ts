import fs from 'node:fs';
import type { Command } from 'commander';
// markdown-doc.ts (and YAML with it) loads when a command reads or writes a document: every other
// command, and each start of the CLI, goes without it.
const markdownDoc = () => import('../domain/markdown-doc.ts');
import { addClientOptions, apiOf, collect, enc, wantsJson, type Api } from './client.ts';
import { pagePath } from '../client/paths.ts';
import { ExitError, parsed, usageError } from './exit-error.ts';
import { printJson, printLine, printListOf } from './format.ts';
import { readStdin, stdinIsPiped } from './io.ts';
import { addPagingOptions, fetchList, type PagingOptions } from './paging.ts';
import { parseAssignments } from './values.ts';

type Page = {
  space: string;
  path: string;
  title: string;
  content: string;
  frontmatter: Record<string, unknown>;
  metadata: Record<string, unknown>;
  template: string | null;
  version: number;
  updatedAt: string;
};
type PutOptions = {
  title?: string;
  content?: string;
  file?: string;
  template?: string;
  meta?: string[];
  metadata?: string;
  frontmatter?: string;
  baseVersion?: string;
};

function parseObject(json: string, flag: string): Record<string, unknown> {
  const v: unknown = parsed(() => JSON.parse(json));
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw usageError(`${flag} is a JSON object`);
  return v as Record<string, unknown>;
}

/** The document text from --file (or `-`), or from a pipe on stdin; undefined when none. */
async function readDocument(opts: PutOptions): Promise<string | undefined> {
  if (opts.file === '-') return readStdin();
  if (opts.file !== undefined) {
    try {
      return fs.readFileSync(opts.file, 'utf8');
    } catch (e) {
      throw new ExitError(`cannot read ${opts.file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  if (opts.content === undefined && stdinIsPiped()) {
    const text = await readStdin();
    return text === '' ? undefined : text; // an empty pipe gives nothing: the content stays
  }
  return undefined;
}

async function currentTitle(api: Api, space: string, path: string): Promise<string | undefined> {
  try {
    return (await api.get<Page>(pagePath(space, path))).title;
  } catch (e) {
    if (e instanceof ExitError && e.status === 404) return undefined;
    throw e;
  }
}

async function buildPutBody(api: Api, space: string, path: string, opts: PutOptions): Promise<Record<string, unknown>> {
  if (opts.content !== undefined && opts.file !== undefined) throw usageError('give --content or --file, not both');
  let title = opts.title;
  let content = opts.content;
  let frontmatter = opts.frontmatter !== undefined ? parseObject(opts.frontmatter, '--frontmatter') : undefined;
  let docMeta: Record<string, unknown> | undefined;
  const text = await readDocument(opts);
  if (text !== undefined) {
    const { parseMarkdownDocument } = await markdownDoc();
    let doc: ReturnType<typeof parseMarkdownDocument>;
    try {
      doc = parseMarkdownDocument(text);
    } catch (e) {
      throw usageError(`the frontmatter is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
    }
    content = doc.content;
    if (Object.keys(doc.frontmatter).length > 0) {
      const { title: fmTitle, metadata: fmMeta, ...rest } = doc.frontmatter;
      if (title === undefined && typeof fmTitle === 'string') title = fmTitle;
      frontmatter ??= rest;
      // What `page get` prints: the metadata under a `metadata:` key of the frontmatter.
      if (fmMeta !== null && typeof fmMeta === 'object' && !Array.isArray(fmMeta) && opts.metadata === undefined)
        docMeta = fmMeta as Record<string, unknown>;
    }
  }
  let metadata: Record<string, unknown> | undefined = opts.metadata !== undefined ? parseObject(opts.metadata, '--metadata') : docMeta;
  if (opts.meta?.length) metadata = { ...metadata, ...parsed(() => parseAssignments(opts.meta!)) };
  // A new page needs a title (a template can give one); an existing page keeps its own.
  if (title === undefined && opts.template === undefined) {
    title = await currentTitle(api, space, path);
    if (title === undefined) throw usageError("a new page needs --title (or a title in the file's frontmatter)");
  }
  let baseVersion: number | undefined;
  if (opts.baseVersion !== undefined) {
    if (!/^\d+$/.test(opts.baseVersion)) throw usageError('--base-version is a version number');
    baseVersion = Number(opts.baseVersion);
  }
  return { title, content, frontmatter, template: opts.template, metadata, baseVersion };
}

const PUT_HELP = `
Content comes from --content, from --file (Markdown; YAML frontmatter is kept as the page's
frontmatter and its "title" is used when --title is absent; "-" reads stdin), or from a pipe.
--meta and --metadata replace the page's metadata (change single keys with "kspace meta set").
--meta values are typed by their look: 3 and 2.5 are numbers, true/false booleans, ["a","b"] a
list, anything else text (quote it to force text: --meta 'code="42"').

Examples:
  kspace page put wiki welcome --title Welcome --content '# Hello'
  kspace page put wiki notes/today --file today.md
  echo '# Draft' | kspace page put wiki drafts/x --title Draft
  kspace page put tasks tasks/login --template task --title 'Fix login' --meta stage=todo --meta points=3
  kspace page put tasks tasks/login --metadata '{"tags":["auth","bug"]}' --meta stage=doing
`;

/** `kspace page get|put|delete`, `kspace pages`, `kspace revisions`. */
export function registerPageCommands(program: Command): void {
  const page = program.command('page').description('read, write and delete one page').helpGroup('Pages and metadata:');

  addClientOptions(page.command('get').argument('<space>').argument('<path>').description('print a page as Markdown with YAML frontmatter'))
    .option('--rev <version>', 'an earlier revision')
    .action(async (space: string, path: string, opts: { rev?: string }, cmd: Command) => {
      const api = apiOf(cmd);
      if (opts.rev !== undefined) {
        if (!/^\d+$/.test(opts.rev)) throw usageError('--rev is a version number');
        const rev = await api.get<Page>(pagePath(space, path, `revisions/${opts.rev}`));
        if (wantsJson(cmd)) return printJson(rev);
        process.stdout.write((await markdownDoc()).toMarkdownDocument(rev.title, rev.frontmatter ?? {}, rev.content));
        return;
      }
      const p = await api.get<Page>(pagePath(space, path));
      if (wantsJson(cmd)) return printJson(p);
      // A page's metadata shows as a `metadata:` key of the frontmatter (page put reads it back).
      const fm = Object.keys(p.metadata ?? {}).length ? { ...p.frontmatter, metadata: p.metadata } : p.frontmatter;
      const text = (await markdownDoc()).toMarkdownDocument(p.title, fm, p.content);
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    });

  addClientOptions(page.command('put').argument('<space>').argument('<path>').description('create or replace a page'))
    .option('--title <title>', 'the page title (required for a new page unless the file or template has one)')
    .option('--content <markdown>', 'the Markdown body')
    .option('--file <file>', 'read the body (and frontmatter) from a Markdown file; - for stdin')
    .option('--template <name>', 'create from a template or record type (other-space:name for another space)')
    .option('--meta <key=value>', 'a metadata value (repeatable)', collect)
    .option('--metadata <json>', 'the whole metadata object as JSON')
    .option('--frontmatter <json>', 'the frontmatter object as JSON')
    .option('--base-version <n>', 'only write if the page is still at this version (0: only if new)')
    .addHelpText('after', PUT_HELP)
    .action(async (space: string, path: string, opts: PutOptions, cmd: Command) => {
      const api = apiOf(cmd);
      const body = await buildPutBody(api, space, path, opts);
      const res = await api.send('PUT', pagePath(space, path), { body });
      const saved = (await res.json()) as Page;
      if (wantsJson(cmd)) return printJson(saved);
      printLine(`${res.status === 201 ? 'created' : 'saved'} ${saved.space}/${saved.path} (version ${saved.version})`);
    });

  addClientOptions(page.command('delete').argument('<space>').argument('<path>').description('delete a page (its revisions stay)')).action(
    async (space: string, path: string, _opts: unknown, cmd: Command) => {
      await apiOf(cmd).send('DELETE', pagePath(space, path));
      if (wantsJson(cmd)) return printJson({ ok: true });
      printLine(`deleted ${space}/${path}`);
    },
  );

  addPagingOptions(addClientOptions(program.command('pages').argument('<space>').description('list the pages of a space')), 'pages')
    .helpGroup('Pages and metadata:')
    .option('--prefix <prefix>', 'only paths starting with this')
    .action(async (space: string, opts: PagingOptions & { prefix?: string }, cmd: Command) => {
      type Row = { path: string; title: string; version: number; updatedAt: string; template?: string | null };
      const r = await fetchList<Row>(apiOf(cmd), `/spaces/${enc(space)}/pages`, 'pages', { prefix: opts.prefix }, opts);
      printListOf(
        cmd,
        r.body,
        ['PATH', 'TITLE', 'VERSION', 'UPDATED', 'TYPE'],
        () => r.items.map((p) => [p.path, p.title, p.version, p.updatedAt, p.template]),
        { empty: 'no pages', more: r.nextCursor },
      );
    });

  // `kspace revisions SPACE PATH` lists (the default verb); diff and restore: cli/history.ts.
  // No `help` subcommand: `revisions help <path>` lists the revisions of a page in the space `help`
  // (positional arguments win over help words after the first; `kspace help revisions` and --help remain).
  const revisions = program
    .command('revisions')
    .description("a page's revisions: list, diff, restore")
    .helpGroup('Pages and metadata:')
    .helpCommand(false);
  addPagingOptions(
    addClientOptions(
      revisions.command('list', { isDefault: true }).argument('<space>').argument('<path>').description("a page's revisions, newest first"),
    ),
    'revisions',
  ).action(async (space: string, path: string, opts: PagingOptions, cmd: Command) => {
    type Rev = { version: number; title: string; author: { id: string; kind: string; name: string }; createdAt: string };
    const r = await fetchList<Rev>(apiOf(cmd), pagePath(space, path, 'revisions'), 'revisions', {}, opts);
    printListOf(
      cmd,
      r.body,
      ['VERSION', 'TITLE', 'AUTHOR', 'CREATED'],
      () => r.items.map((v) => [v.version, v.title, v.author?.name, v.createdAt]),
      { empty: 'no revisions', more: r.nextCursor },
    );
  });
}
