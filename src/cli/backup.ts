import type { Command } from 'commander';
import path from 'node:path';
import { ExitError } from './exit-error.ts';
import { configOrExit } from './serve-run.ts';
import { offlineDataDir } from './admin.ts';

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
        process.stderr.write(
          `backed up ${dataDir} to ${path.resolve(opts.to)}: ${r.pages} pages in ${Math.round(performance.now() - started)} ms\n`,
        );
      } finally {
        db.close();
      }
    });

  program
    .command('restore')
    .description("replace the database of a stopped server with a backup or a Litestream replica's copy (the old one is kept aside)")
    .helpGroup('Server:')
    .option('--data <dir>', 'data directory (default $SERVICE_DATA_DIR or ./kspace-data)')
    .option('--init', 'restore into a directory that holds no kspace database yet', false)
    .option('--from <file>', 'the backup file')
    .option('--from-litestream <replica-url>', 'restore with `litestream restore` from this replica (file://…, s3://…, or a directory)')
    .option('--timestamp <time>', 'with --from-litestream: the state at this RFC 3339 time (point in time)')
    .option('--litestream <path>', 'with --from-litestream: the litestream executable', 'litestream')
    .action(
      async (opts: { data?: string; init: boolean; from?: string; fromLitestream?: string; timestamp?: string; litestream: string }) => {
        if ((opts.from === undefined) === (opts.fromLitestream === undefined)) {
          throw new ExitError('restore needs exactly one of --from <file> and --from-litestream <replica-url>', 2);
        }
        if (opts.timestamp !== undefined && opts.fromLitestream === undefined)
          throw new ExitError('--timestamp goes with --from-litestream', 2);
        const dataDir = await offlineDataDir({ data: opts.data, init: opts.init });
        const [{ restoreBackup, RestoreError }, { restoreFromLitestream }, { DataDirLockedError }] = await Promise.all([
          import('../ops/restore.ts'),
          import('../ops/litestream-restore.ts'),
          import('../store/files.ts'),
        ]);
        try {
          const source =
            opts.from !== undefined ? path.resolve(opts.from) : `${opts.fromLitestream}${opts.timestamp ? ` as of ${opts.timestamp}` : ''}`;
          const r =
            opts.from !== undefined
              ? restoreBackup(dataDir, path.resolve(opts.from))
              : await restoreFromLitestream(dataDir, { from: opts.fromLitestream!, timestamp: opts.timestamp, bin: opts.litestream });
          process.stderr.write(
            `restored ${source} into ${dataDir} (schema version ${r.version}); ` +
              `${r.kept.length ? `the replaced database is kept as ${r.kept[0]}` : 'there was no database before'}; ` +
              'the full-text index is rebuilt on the next start\n',
          );
        } catch (e) {
          if (e instanceof RestoreError) throw new ExitError(e.message, 2);
          if (e instanceof DataDirLockedError) throw new ExitError(`${e.message}: a restore needs the server stopped`, 1);
          throw e;
        }
      },
    );

  program
    .command('replica-follow')
    .description("keep a read replica's kspace.db a copy of a Litestream replica, restoring it every few seconds (docs/scale-out.md)")
    .helpGroup('Server:')
    .option('--data <dir>', "the replica's data directory (default $SERVICE_DATA_DIR or ./kspace-data)")
    .requiredOption('--from <replica-url>', 'the Litestream replica (file://…, s3://…, or a directory)')
    .option('--every <seconds>', 'pause between two rounds', '1')
    .option('--litestream <path>', 'the litestream executable', 'litestream')
    .action(async (opts: { data?: string; from: string; every: string; litestream: string }) => {
      const every = Number(opts.every);
      if (!Number.isFinite(every) || every < 0.05 || every > 86_400)
        throw new ExitError('--every: a number of seconds from 0.05 to 86400', 2);
      const config = await configOrExit({ data: opts.data });
      const [{ startFollower }, { RestoreError }] = await Promise.all([import('../ops/replica-follow.ts'), import('../ops/restore.ts')]);
      let failing = '';
      let follower: ReturnType<typeof startFollower>;
      try {
        follower = startFollower(config.dataDir, {
          from: opts.from,
          everyMs: every * 1000,
          bin: opts.litestream,
          onRound: (r) => {
            failing = '';
            if (r.copied)
              process.stderr.write(
                `replica-follow: txid ${r.txid} (committed ${Date.now() - r.atMs} ms ago), restore ${r.restoreMs} ms, copy ${r.copyMs} ms\n`,
              );
          },
          onError: (e) => {
            // One line per kind of failure, not one a round.
            if (e.message !== failing) process.stderr.write(`replica-follow: ${e.message}\n`);
            failing = e.message;
          },
        });
      } catch (e) {
        if (e instanceof RestoreError) throw new ExitError(e.message, 2);
        throw e;
      }
      const stop = () => void follower.stop();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      const refused = await follower.done;
      if (refused) throw new ExitError(refused.message, 2);
    });
}
