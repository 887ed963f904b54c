import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { addClientOptions, apiOf, enc, wantsJson } from './client.ts';
import { ExitError, usageError } from './exit-error.ts';
import { formatBytes } from '../text/bytes.ts';
import { printJson, printLine, printTable } from './format.ts';
import { startProgress, type Progress } from './progress.ts';
import type { FolderImportResult } from './folders.ts';
// The folder doors (and the Markdown folder rules, YAML and markdown-it with them) load when used.
const folders = () => import('./folders.ts');

type ImportResult = { created: number; updated: number; skipped: number; errors: Array<{ path: string; code: string; message: string }> };

function counter(progress: Progress): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      progress.add(chunk.length);
      done(null, chunk);
    },
  });
}

/** A file's bytes as a web stream that reports what it hands to the upload. */
function uploadStream(source: Readable, progress: Progress): ReadableStream<Uint8Array> {
  const it = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await it.next();
      if (done) {
        progress.note('uploaded; the server is importing…');
        controller.close();
        return;
      }
      progress.add(value.length);
      controller.enqueue(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
    },
    cancel() {
      source.destroy();
    },
  });
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * The first line `kspace import-dir` prints: the counts, the errors (notes not imported) apart
 * from the warnings and from the files left out by rule, each counted once.
 */
function folderSummary(dir: string, space: string, r: FolderImportResult): string {
  const parts = [`imported ${dir} into ${space}: ${r.created} created, ${r.updated} updated, ${r.skipped} skipped`];
  parts.push(count(r.errors.length, 'error', 'errors'));
  if (r.warnings.length) parts.push(count(r.warnings.length, 'warning', 'warnings'));
  const unused = r.leftOut.filter((e) => e.code === 'not_referenced').length;
  const links = r.leftOut.length - unused;
  if (unused) parts.push(`${count(unused, 'unused file', 'unused files')} not imported`);
  if (links) parts.push(`${count(links, 'symlink', 'symlinks')} not followed`);
  return parts.join('; ');
}

/** `kspace export` and `kspace import`: space bundles, streamed, with a progress bar on a terminal. */
export function registerBundleCommands(program: Command): void {
  addClientOptions(program.command('export').argument('<space>').description('export a space as a JSON bundle (the pages you can read)'))
    .helpGroup('Export and import:')
    .option('-o, --output <file>', 'write the bundle here (default: stdout); with --format markdown, a folder')
    .option('--format <format>', 'json: one bundle (default); markdown: a folder of .md files (Obsidian properties)', 'json')
    .addHelpText(
      'after',
      '\nExamples:\n  kspace export wiki -o wiki.json\n  kspace export wiki | gzip > wiki.json.gz\n  kspace export wiki --format markdown -o wiki/\n',
    )
    .action(async (space: string, opts: { output?: string; format: string }, cmd: Command) => {
      if (opts.format !== 'json' && opts.format !== 'markdown') throw usageError("--format is 'json' or 'markdown'");
      if (opts.format === 'markdown') {
        if (!opts.output) throw usageError('--format markdown needs -o <folder>');
        const r = await (await folders()).exportMarkdown(apiOf(cmd), space, opts.output);
        if (wantsJson(cmd)) printJson({ space, folder: opts.output, pages: r.pages, files: r.files, bytes: r.bytes });
        else if (process.stderr.isTTY)
          process.stderr.write(`exported ${space} to ${opts.output}: ${r.pages} pages, ${r.files} files (${formatBytes(r.bytes)})\n`);
        return;
      }
      const res = await apiOf(cmd).send('GET', `/spaces/${enc(space)}/export`);
      const total = Number(res.headers.get('content-length')) || null;
      const progress = startProgress(`export ${space}`, total);
      // Into a side file renamed at the end: an interrupted export never leaves a truncated bundle.
      const tmp = opts.output ? path.join(path.dirname(opts.output), `.${path.basename(opts.output)}.${process.pid}.partial`) : null;
      let dest: Writable;
      try {
        dest = tmp ? fs.createWriteStream(tmp) : process.stdout;
        await pipeline(Readable.fromWeb(res.body as never), counter(progress), dest, { end: Boolean(tmp) });
        if (tmp) fs.renameSync(tmp, opts.output!);
      } catch (e) {
        progress.done();
        if (tmp) fs.rmSync(tmp, { force: true });
        throw new ExitError(`export of ${space} failed: ${(e as Error).message}`);
      }
      progress.done();
      if (opts.output) {
        if (wantsJson(cmd)) printJson({ space, file: opts.output, bytes: progress.bytes });
        else if (process.stderr.isTTY) process.stderr.write(`exported ${space} to ${opts.output} (${formatBytes(progress.bytes)})\n`);
      }
    });

  addClientOptions(
    program
      .command('import-dir')
      .argument('<dir>', 'a folder of Markdown files: a kspace export, an Obsidian vault, a SilverBullet space')
      .description('import a folder of Markdown files into a space'),
  )
    .helpGroup('Export and import:')
    .requiredOption('--space <space>', 'the target space (created when missing)')
    .option('--mode <mode>', 'skip: leave existing pages alone (default); overwrite: write new revisions', 'skip')
    .addHelpText(
      'after',
      '\nExamples:\n  kspace import-dir ~/vault --space notes\n  kspace import-dir wiki/ --space wiki-copy --mode overwrite\n',
    )
    .action(async (dir: string, opts: { space: string; mode: string }, cmd: Command) => {
      if (opts.mode !== 'skip' && opts.mode !== 'overwrite') throw usageError("--mode is 'skip' or 'overwrite'");
      const result = await (await folders()).importFolder(apiOf(cmd), opts.space, dir, opts.mode);
      if (wantsJson(cmd)) return printJson(result);
      printLine(folderSummary(dir, opts.space, result));
      for (const [label, list] of [
        ['errors (not imported)', result.errors],
        ['warnings (imported, not as written)', result.warnings],
        ['left out', result.leftOut],
      ] as const) {
        if (list.length === 0) continue;
        printLine(`\n${label}:`);
        printTable(
          ['PATH', 'CODE', 'MESSAGE'],
          list.map((e) => [e.path, e.code, e.message]),
        );
      }
    });

  addClientOptions(
    program
      .command('import')
      .argument('<space>', 'the target space (created when missing)')
      .argument('<file>', 'a bundle file; - for stdin')
      .description('import a JSON bundle into a space'),
  )
    .helpGroup('Export and import:')
    .option('--mode <mode>', 'skip: leave existing pages alone (default); overwrite: write new revisions', 'skip')
    .addHelpText(
      'after',
      '\nExamples:\n  kspace import wiki-copy wiki.json\n  kspace import wiki wiki.json --mode overwrite\n  gunzip -c wiki.json.gz | kspace import wiki -\n',
    )
    .action(async (space: string, file: string, opts: { mode: string }, cmd: Command) => {
      if (opts.mode !== 'skip' && opts.mode !== 'overwrite') throw usageError("--mode is 'skip' or 'overwrite'");
      let source: Readable;
      let total: number | null = null;
      if (file === '-') source = process.stdin;
      else {
        try {
          total = fs.statSync(file).size;
        } catch (e) {
          throw new ExitError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
        }
        source = fs.createReadStream(file, { highWaterMark: 256 * 1024 });
      }
      const progress = startProgress(`import ${space}`, total);
      let result: ImportResult;
      try {
        result = await apiOf(cmd).json<ImportResult>('POST', `/spaces/${enc(space)}/import`, {
          query: { mode: opts.mode },
          stream: uploadStream(source, progress),
        });
      } finally {
        progress.done();
      }
      if (wantsJson(cmd)) return printJson(result);
      printLine(
        `imported into ${space}: ${result.created} created, ${result.updated} updated, ${result.skipped} skipped, ${result.errors.length} errors`,
      );
      printTable(
        ['PATH', 'CODE', 'MESSAGE'],
        result.errors.map((e) => [e.path, e.code, e.message]),
      );
    });
}
