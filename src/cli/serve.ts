import type { Command } from 'commander';
import { registerAdminCommands } from './admin.ts';
import { registerBackupCommands } from './backup.ts';
import { runServe, type ServeFlags } from './serve-run.ts';

/** `kspace serve`, its helper process, and the commands that work on a data dir itself (admin, backup). */
export function registerServeCommands(program: Command): void {
  program
    .command('serve')
    .description('run the server (SERVICE_DATA_DIR, SERVICE_HOST, SERVICE_PORT)')
    .helpGroup('Server:')
    .option('--data <dir>', 'data directory (default ./kspace-data)')
    .option('--host <host>', 'address to listen on (default 127.0.0.1)')
    .option('--port <port>', 'port to listen on (default 8080)')
    .action((opts: ServeFlags) => runServe(opts));

  program
    .command('internal-checkpointer <dbFile>', { hidden: true })
    .description('the checkpoint and full-text helper as a process, over standard input and output (serve runs it as a thread)')
    .option('--restart-pages <n>', 'log length at which the log is restarted (tests)')
    .option('--max-defer-pages <n>', 'full-text backlog at which indexing resumes while the server is busy (tests)')
    .option('--idle-ms <n>', 'how often an idle helper looks again without being told of a write (tests)')
    .action(async (dbFile: string, opts: { restartPages?: string; maxDeferPages?: string; idleMs?: string }) => {
      const { processChannel, runCheckpointer } = await import('../store/helper/loop.ts');
      await runCheckpointer(
        dbFile,
        processChannel(),
        opts.restartPages ? Number(opts.restartPages) : undefined,
        opts.maxDeferPages ? Number(opts.maxDeferPages) : undefined,
        opts.idleMs ? Number(opts.idleMs) : undefined,
      );
    });

  registerBackupCommands(program);

  registerAdminCommands(program);
}
