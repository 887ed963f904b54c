import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { addClientOptions, apiOf, enc, wantsJson } from './client.ts';
import { pagePath } from '../client/paths.ts';
import { ExitError } from './exit-error.ts';
import { formatBytes } from '../text/bytes.ts';
import { printJson, printLine, printListOf } from './format.ts';

type FileInfo = { name: string; size: number; contentType: string; sha256: string };
type FileList = { files: Array<FileInfo & { createdAt: string; url: string }>; nextCursor: string | null };

/** `/files/<space>/<page path>/<name>`, each segment percent-encoded. */
function fileUrl(space: string, page: string, name: string): string {
  return `/files/${enc(space)}/${[...page.split('/'), name].map(enc).join('/')}`;
}

/** `kspace files put|get|ls|rm`: a page's attached files (docs/cli.md). */
export function registerFileCommands(program: Command): void {
  const files = program.command('files').description("a page's attached files: put, get, ls, rm").helpGroup('Pages and metadata:');

  addClientOptions(
    files
      .command('put')
      .argument('<space>')
      .argument('<page>')
      .argument('<file>', 'a local file, or - for stdin')
      .option('--name <name>', 'the attachment name (default: the file name)')
      .option('--type <content-type>', 'the declared content type (the server sniffs the bytes; this is a hint)')
      .description('attach a file to a page (replaces one of the same name)'),
  ).action(async (space: string, page: string, file: string, opts: { name?: string; type?: string }, cmd: Command) => {
    const name = opts.name ?? (file === '-' ? undefined : path.basename(file));
    if (!name) throw new ExitError('give --name when the file comes from stdin', 2);
    let bytes: Buffer;
    try {
      bytes = file === '-' ? await readStdinBytes() : fs.readFileSync(file);
    } catch (e) {
      throw new ExitError(`cannot read ${file}: ${(e as Error).message}`);
    }
    const r = await apiOf(cmd).json<FileInfo>('PUT', fileUrl(space, page, name), {
      bytes,
      headers: opts.type ? { 'content-type': opts.type } : {},
    });
    if (wantsJson(cmd)) return printJson(r);
    printLine(`${r.name}  ${formatBytes(r.size)}  ${r.contentType}  sha256:${r.sha256}`);
  });

  addClientOptions(
    files
      .command('get')
      .argument('<space>')
      .argument('<page>')
      .argument('<name>')
      .option('-o, --output <file>', 'write to this file (default: standard output)')
      .description("download a page's file"),
  ).action(async (space: string, page: string, name: string, opts: { output?: string }, cmd: Command) => {
    const res = await apiOf(cmd).send('GET', fileUrl(space, page, name), { accept: '*/*' });
    const bytes = Buffer.from(await res.arrayBuffer());
    if (opts.output) fs.writeFileSync(opts.output, bytes);
    else process.stdout.write(bytes);
  });

  addClientOptions(files.command('ls').argument('<space>').argument('<page>').description("list a page's files")).action(
    async (space: string, page: string, _opts: unknown, cmd: Command) => {
      const api = apiOf(cmd);
      const all: FileList['files'] = [];
      let cursor: string | undefined;
      do {
        const r = await api.get<FileList>(pagePath(space, page, 'files'), { limit: 200, cursor });
        all.push(...r.files);
        cursor = r.nextCursor ?? undefined;
      } while (cursor);
      printListOf(
        cmd,
        { files: all, nextCursor: null },
        ['NAME', 'SIZE', 'TYPE', 'CREATED'],
        () => all.map((f) => [f.name, formatBytes(f.size), f.contentType, f.createdAt]),
        { empty: 'no files' },
      );
    },
  );

  addClientOptions(
    files.command('rm').argument('<space>').argument('<page>').argument('<name>').description("remove a page's file"),
  ).action(async (space: string, page: string, name: string, _opts: unknown, cmd: Command) => {
    await apiOf(cmd).send('DELETE', fileUrl(space, page, name));
    if (wantsJson(cmd)) return printJson({ deleted: name });
    printLine(`removed ${name}`);
  });
}

async function readStdinBytes(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
