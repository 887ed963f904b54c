// The offline `kspace admin` commands (principals and keys of a data directory, without a running
// server), and what every command that works on a data dir itself uses to find and open it.
import type { Command } from 'commander';
import { ExitError } from './exit-error.ts';
import { configOrExit } from './serve-run.ts';

export function registerAdminCommands(program: Command): void {
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

const DATA_HELP = 'data directory (default $SERVICE_DATA_DIR or ./kspace-data)';
const INIT_HELP = 'create a new data directory if it holds no kspace database';
type OfflineFlags = { data?: string; init?: boolean };

/** The data dir of an offline command: it must hold a kspace database, unless --init. */
export async function offlineDataDir(opts: OfflineFlags): Promise<string> {
  const config = await configOrExit({ data: opts.data });
  const { hasDatabase } = await import('../store/files.ts');
  if (!opts.init && !hasDatabase(config.dataDir)) {
    // A mistyped --data must not quietly create a second organisation with a new admin key.
    throw new ExitError(
      `${config.dataDir} holds no kspace database (kspace.db); check --data or SERVICE_DATA_DIR, or pass --init to create one there`,
      2,
    );
  }
  return config.dataDir;
}

async function offlineServices(opts: OfflineFlags) {
  await offlineDataDir(opts);
  const config = await configOrExit({ data: opts.data });
  if (config.replication.role === 'replica') {
    // A replica's kspace.db is the follower's copy: a write here would be overwritten, or break the copy.
    throw new ExitError(
      "SERVICE_ROLE=replica: this data directory is a read replica; run admin commands against the primary's data directory",
      2,
    );
  }
  const [{ bootstrap }, { createLogger, createServices }, { openDb }] = await Promise.all([
    import('../domain/principals.ts'),
    import('../services.ts'),
    import('../store/db/connection.ts'),
  ]);
  const svc = createServices(
    openDb(config.dataDir, { synchronous: config.dbSynchronous, cacheMb: config.dbCacheMb }),
    config,
    createLogger(true),
  );
  const boot = bootstrap(svc);
  if (boot?.generated) process.stderr.write(`admin API key: ${boot.adminKey}\n`);
  return svc;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
