// `kspace serve` itself: run by its commander command (cli/serve.ts) and, for a plain
// `kspace serve [--data d] [--host h] [--port p]`, by cli/run.ts without commander.
import { stopPretenuring, tightenHeapLimit } from '../heap-limit.ts';
import { startMallocTrim } from '../malloc-trim.ts';
import { ExitError } from './exit-error.ts';

export type ServeFlags = { data?: string; host?: string; port?: string };

// The server stack (h3, SQLite, the domain) loads only for these commands, so client commands
// start without it.
const loadConfigModule = () => import('../config/config.ts');

// The heap-growing and no-pretenuring flags are set, and the limit the first gives taken, once
// the server has started (src/heap-limit.ts says why not at start). The helper thread starts
// 250 ms after the server listens (src/server.ts) and loads its built-ins then; it is asked to
// take the limit for its own heap (the flags are process-wide).
const HEAP_FLAG_DELAY_MS = 1000;

/** Serves until SIGINT or SIGTERM, then closes the server gracefully. */
export async function runServe(opts: ServeFlags): Promise<void> {
  const config = await configOrExit(opts);
  const [{ serve }, { DataDirLockedError }] = await Promise.all([import('../server.ts'), import('../store/files.ts')]);
  const running = await serve(config, { checkpointer: true }).catch((e: unknown) => {
    throw e instanceof DataDirLockedError ? new ExitError(e.message, 1) : e;
  });
  setTimeout(() => {
    stopPretenuring();
    tightenHeapLimit();
    running.helper()?.tightenHeapLimit();
    startMallocTrim();
  }, HEAP_FLAG_DELAY_MS).unref();
  await new Promise<void>((resolve) => {
    const stop = () => {
      running.close().then(resolve, resolve);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

export async function configOrExit(flags: ServeFlags) {
  const [{ loadConfig }, { ConfigError }] = await Promise.all([loadConfigModule(), import('../config/parse.ts')]);
  try {
    return loadConfig(flags);
  } catch (e) {
    if (e instanceof ConfigError) throw new ExitError(e.message, 2);
    throw e;
  }
}

const SERVE_OPTIONS: Record<string, keyof ServeFlags> = { '--data': 'data', '--host': 'host', '--port': 'port' };

/**
 * The flags of `serve` followed by nothing but `--data`, `--host` and `--port` with a value
 * (`--port 8080` or `--port=8080`; the last one wins, as in commander), or null for anything
 * else, which commander parses: help, other options, a missing value or one starting with `-`.
 */
export function plainServeFlags(argv: string[]): ServeFlags | null {
  if (argv[0] !== 'serve') return null;
  const flags: ServeFlags = {};
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    if (!Object.hasOwn(SERVE_OPTIONS, name)) return null;
    const key = SERVE_OPTIONS[name];
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined || value === '' || value.startsWith('-')) return null;
    flags[key] = value;
  }
  return flags;
}
