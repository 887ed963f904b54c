import type { Command } from 'commander';
import path from 'node:path';
import { ExitError } from './exit-error.ts';
import { offlineDataDir } from './serve.ts';

/** `kspace backup` and `kspace restore`: work on the data directory itself (docs/operations.md). */
export function registerBackupCommands(program: Command): void {
  program
    .command('backup')
    .description('copy the database of a data directory to a file, while the server runs or not')
    .helpGroup('Server:')
    .option('--data <dir>', 'data directory (default $SERVICE_DATA_DIR or ./kspace-data)')
    .requiredOption('--to <file>', 'the backup file to write (replaced if it exists)')
    .action(async (opts: { data?: string; to: string }) => {
      const dataDir = await offlineDataDir({ data: opts.data });
      const { backupDatabase, openForBackup } = await import('../store/backup.ts');
      const started = performance.now();
      const db = openForBackup(path.join(dataDir, 'kspace.db'));
      try {
        // One step, one read transaction: the server's writes go on meanwhile (WAL), and none
        // of them restarts the copy.
        const r = await backupDatabase(db, path.resolve(opts.to), Infinity);
        process.stderr.write(`backed up ${dataDir} to ${path.resolve(opts.to)}: ${r.pages} pages in ${Math.round(performance.now() - started)} ms\n`);
      } finally {
        db.close();
      }
    });

  program
    .command('restore')
    .description('replace the database of a stopped server with a backup (the old one is kept aside)')
    .helpGroup('Server:')
    .option('--data <dir>', 'data directory (default $SERVICE_DATA_DIR or ./kspace-data)')
    .option('--init', 'restore into a directory that holds no kspace database yet', false)
    .requiredOption('--from <file>', 'the backup file')
    .action(async (opts: { data?: string; init: boolean; from: string }) => {
      const dataDir = await offlineDataDir({ data: opts.data, init: opts.init });
      const [{ restoreBackup, RestoreError }, { DataDirLockedError }] = await Promise.all([import('../ops/restore.ts'), import('../store/files.ts')]);
      try {
        const r = restoreBackup(dataDir, path.resolve(opts.from));
        process.stderr.write(`restored ${path.resolve(opts.from)} into ${dataDir} (schema version ${r.version}); `
          + `${r.kept.length ? `the replaced database is kept as ${r.kept[0]}` : 'there was no database before'}; `
          + 'the full-text index is rebuilt on the next start\n');
      } catch (e) {
        if (e instanceof RestoreError) throw new ExitError(e.message, 2);
        if (e instanceof DataDirLockedError) throw new ExitError(`${e.message}: a restore needs the server stopped`, 1);
        throw e;
      }
    });
}
