import type { Command } from 'commander';
import v8 from 'node:v8';
import { registerBackupCommands } from './backup.ts';
import { ExitError } from './exit-error.ts';

// The server stack (h3, SQLite, the domain) loads only for these commands, so client commands
// start without it.
const loadConfigModule = () => import('../config.ts');

// The old generation grows by 30 % of what survived the last full collection (docs/performance.md,
// Memory). Set here, once the server has started, not in bin/node-flags: any V8 flag that is not
// at its default changes V8's flag hash, and Node's built-in modules come with a code cache that V8
// takes only under the hash it was made with. On the command line it made every start compile
// node:http, undici, child_process, crypto... from source: cold start of the executable to the
// first 200 ~100 ms longer (docs/performance.md, Cold start). The helper thread starts 250 ms after
// the server listens (src/server.ts) and loads its built-ins before this is set.
const HEAP_GROWING_FLAG = '--heap-growing-percent=30';
const HEAP_FLAG_DELAY_MS = 1000;

/** `kspace serve` and the offline `kspace admin` commands: they work on the data dir itself. */
export function registerServeCommands(program: Command): void {
  program
    .command('serve')
    .description('run the server (SERVICE_DATA_DIR, SERVICE_HOST, SERVICE_PORT)')
    .helpGroup('Server:')
    .option('--data <dir>', 'data directory (default ./kspace-data)')
    .option('--host <host>', 'address to listen on (default 127.0.0.1)')
    .option('--port <port>', 'port to listen on (default 8080)')
    .action(async (opts: { data?: string; host?: string; port?: string }) => {
      const config = await configOrExit(opts);
      const [{ serve }, { DataDirLockedError }] = await Promise.all([import('../server.ts'), import('../store/files.ts')]);
      const running = await serve(config, { checkpointer: true }).catch((e: unknown) => {
        throw e instanceof DataDirLockedError ? new ExitError(e.message, 1) : e;
      });
      setTimeout(() => v8.setFlagsFromString(HEAP_GROWING_FLAG), HEAP_FLAG_DELAY_MS).unref();
      await new Promise<void>((resolve) => {
        const stop = () => {
          running.close().then(resolve, resolve);
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
    });

  program
    .command('internal-checkpointer <dbFile>', { hidden: true })
    .description('the checkpoint and full-text helper as a process, over standard input and output (serve runs it as a thread)')
    .option('--restart-pages <n>', 'log length at which the log is restarted (tests)')
    .option('--max-defer-pages <n>', 'full-text backlog at which indexing resumes while the server is busy (tests)')
    .action(async (dbFile: string, opts: { restartPages?: string; maxDeferPages?: string }) => {
      const { processChannel, runCheckpointer } = await import('../store/checkpointer.ts');
      await runCheckpointer(dbFile, processChannel(),
        opts.restartPages ? Number(opts.restartPages) : undefined, opts.maxDeferPages ? Number(opts.maxDeferPages) : undefined);
    });

  registerBackupCommands(program);

  const admin = program.command('admin').description('offline admin of a data directory').helpGroup('Server:');
  admin
    .command('create-principal')
    .description('create a principal and print its id')
    .option('--data <dir>', DATA_HELP)
    .option('--init', INIT_HELP, false)
    .requiredOption('--name <name>', 'principal name')
    .option('--kind <kind>', 'agent or user', 'agent')
    .option('--org-admin', 'make it an org admin', false)
    .option('--password-stdin', 'read a password for a user from standard input', false)
    .action(async (opts: OfflineFlags & { name: string; kind: string; orgAdmin: boolean; passwordStdin: boolean }) => {
      if (opts.kind !== 'agent' && opts.kind !== 'user') throw new ExitError("--kind is 'agent' or 'user'", 2);
      const password = opts.passwordStdin ? (await readStdin()).replace(/\r?\n$/, '') : undefined;
      const svc = await offlineServices(opts);
      const { createPrincipal } = await import('../domain/principals.ts');
      try {
        const p = createPrincipal(svc, { name: opts.name, kind: opts.kind, orgAdmin: opts.orgAdmin, password });
        process.stdout.write(`${p.id}\n`);
      } finally {
        svc.db.close();
      }
    });
  admin
    .command('create-key')
    .description('issue a new API key for an agent principal and print it (shown once)')
    .option('--data <dir>', DATA_HELP)
    .option('--init', INIT_HELP, false)
    .requiredOption('--principal <nameOrId>', 'principal name or id')
    .action(async (opts: OfflineFlags & { principal: string }) => {
      const svc = await offlineServices(opts);
      const { createKey } = await import('../domain/principals.ts');
      try {
        process.stdout.write(`${createKey(svc, opts.principal).key}\n`);
      } finally {
        svc.db.close();
      }
    });
}

async function configOrExit(flags: { data?: string; host?: string; port?: string }) {
  const { ConfigError, loadConfig } = await loadConfigModule();
  try {
    return loadConfig(flags);
  } catch (e) {
    if (e instanceof ConfigError) throw new ExitError(e.message, 2);
    throw e;
  }
}

const DATA_HELP = 'data directory (default $SERVICE_DATA_DIR or ./kspace-data)';
const INIT_HELP = 'create a new data directory if it holds no kspace database';
type OfflineFlags = { data?: string; init?: boolean };

/** The data dir of an offline command: it must hold a kspace database, unless --init. */
export async function offlineDataDir(opts: OfflineFlags): Promise<string> {
  const config = await configOrExit({ data: opts.data });
  const { hasDatabase } = await import('../store/files.ts');
  if (!opts.init && !hasDatabase(config.dataDir)) {
    // A mistyped --data must not quietly create a second organisation with a new admin key.
    throw new ExitError(`${config.dataDir} holds no kspace database (kspace.db); check --data or SERVICE_DATA_DIR, or pass --init to create one there`, 2);
  }
  return config.dataDir;
}

async function offlineServices(opts: OfflineFlags) {
  await offlineDataDir(opts);
  const config = await configOrExit({ data: opts.data });
  if (config.replication.role === 'replica') {
    // A replica's kspace.db is the follower's copy: a write here would be overwritten, or break the copy.
    throw new ExitError('SERVICE_ROLE=replica: this data directory is a read replica; run admin commands against the primary\'s data directory', 2);
  }
  const [{ bootstrap }, { createLogger, createServices }, { openDb }] = await Promise.all([
    import('../domain/principals.ts'), import('../services.ts'), import('../store/db.ts'),
  ]);
  const svc = createServices(openDb(config.dataDir, { synchronous: config.dbSynchronous, cacheMb: config.dbCacheMb }), config, createLogger(true));
  const boot = bootstrap(svc);
  if (boot?.generated) process.stderr.write(`admin API key: ${boot.adminKey}\n`);
  return svc;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
