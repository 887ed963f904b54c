// The CLI's HTTP client: every client command is a thin adapter over the HTTP API of a running
// server, so the CLI validates, authorizes and fires events exactly as every other caller does.
import fs from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import type { Issue } from '../model.ts';
import type { Query } from '../client/paths.ts';
import type { Problem } from '../client/problem.ts';
import { followChanges, type FollowOptions } from '../client/changes.ts';
import { ApiError, readJson, request, type ClientSettings, type RequestOptions } from '../client/request.ts';
import { ExitError } from './exit-error.ts';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

type Connection = { url: string; key: string | undefined };
export type { RequestOptions } from '../client/request.ts';

/** Commands whose own `--url` is not the server's (webhooks create takes the webhook's URL). */
const ownUrlOption = new WeakSet<Command>();
const clientCommands = new Set<Command>();

/**
 * Marks a client command: it gets `--json`, `--url` and `--key` (added by finishClientOptions,
 * after its own options, so its help lists those first). They may also come before the noun
 * (`kspace --url U page get …`); the command's own win.
 */
export function addClientOptions(cmd: Command, opts: { serverUrl?: boolean } = {}): Command {
  clientCommands.add(cmd);
  if (opts.serverUrl === false) ownUrlOption.add(cmd);
  return cmd;
}

export function finishClientOptions(): void {
  for (const cmd of clientCommands) {
    cmd.addOption(new Option('--json', "print the API's JSON instead of a table"));
    if (!ownUrlOption.has(cmd))
      cmd.addOption(new Option('--url <url>', `server URL (default: $SERVICE_URL or ${DEFAULT_URL})`).helpGroup('Connection:'));
    cmd.addOption(new Option('--key <key>', 'API key (default: $SERVICE_API_KEY)').helpGroup('Connection:'));
  }
  clientCommands.clear();
}

/** For repeatable options: each use adds a value. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];
/** For repeatable options that also take comma-separated lists. */
export const collectList = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
];

function rootOf(cmd: Command): Command {
  let c = cmd;
  while (c.parent) c = c.parent;
  return c;
}

export function wantsJson(cmd: Command): boolean {
  return Boolean(cmd.opts().json || rootOf(cmd).opts().json);
}

export function connectionOf(cmd: Command, env: NodeJS.ProcessEnv = process.env): Connection {
  const own = cmd.opts();
  const root = rootOf(cmd).opts();
  const url = (ownUrlOption.has(cmd) ? undefined : own.url) ?? root.url ?? env.SERVICE_URL ?? DEFAULT_URL;
  const key = own.key ?? root.key ?? env.SERVICE_API_KEY;
  return { url: String(url), key: key ? String(key) : undefined };
}

export const enc = encodeURIComponent;

/**
 * Read-your-writes against a read replica (docs/scale-out.md): the highest X-Service-Txid a write
 * answered, sent as X-Service-Min-Txid with every later request, so a replica answers only once
 * it holds the write (or forwards the read to the primary). Kept for the command that wrote, and
 * for TXID_MEMORY_MS in a small state file per server origin ($XDG_STATE_HOME/kspace/txid.json,
 * else ~/.local/state/kspace/txid.json, mode 0600), so that `kspace pages put …` followed by
 * `kspace pages get …` reads the write too. Any failure to read or write the file is ignored.
 */
const TXID_MEMORY_MS = 60_000;

function txidFile(): string | null {
  const base = process.env.XDG_STATE_HOME || (process.env.HOME ? path.join(process.env.HOME, '.local', 'state') : '');
  return base ? path.join(base, 'kspace', 'txid.json') : null;
}

function readTxids(): Record<string, { txid: number; at: number }> {
  try {
    const file = txidFile();
    return file ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, { txid: number; at: number }>) : {};
  } catch {
    return {};
  }
}

function rememberedTxid(origin: string): number {
  const e = readTxids()[origin];
  return e && typeof e.txid === 'number' && Date.now() - e.at < TXID_MEMORY_MS ? e.txid : 0;
}

function rememberTxid(origin: string, txid: number): void {
  try {
    const file = txidFile();
    if (!file) return;
    const all = readTxids();
    for (const [k, v] of Object.entries(all)) if (Date.now() - v.at >= TXID_MEMORY_MS) delete all[k];
    all[origin] = { txid: Math.max(txid, all[origin]?.txid ?? 0), at: Date.now() };
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}`;
    fs.writeFileSync(tmp, JSON.stringify(all), { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch {
    // read-your-writes across commands is a convenience: never a reason to fail
  }
}

export class Api {
  readonly conn: Connection;
  readonly base: URL;
  private readonly settings: ClientSettings;
  private minTxid: number | null = null;

  constructor(conn: Connection) {
    this.conn = conn;
    try {
      this.base = new URL(conn.url);
    } catch {
      throw new ExitError(`the server URL '${conn.url}' is not a valid URL (set SERVICE_URL or --url)`);
    }
    if (this.base.protocol !== 'http:' && this.base.protocol !== 'https:') {
      throw new ExitError(`the server URL '${conn.url}' is not http(s)`);
    }
    const origin = this.base.origin;
    this.settings = {
      base: this.base.origin + this.base.pathname,
      headers: (): Record<string, string> => (conn.key ? { authorization: `Bearer ${conn.key}` } : {}),
      txid: {
        get: () => (this.minTxid ??= rememberedTxid(origin)),
        seen: (txid) => {
          this.minTxid = txid;
          rememberTxid(origin, txid);
        },
      },
    };
  }

  /** Sends a request; a network failure or a non-2xx answer becomes an ExitError. */
  async send(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    try {
      return await request(this.settings, method, path, opts);
    } catch (err) {
      if (err instanceof ApiError) throw problemToExit(err.problem, this.conn, this.base.origin);
      throw err;
    }
  }

  /** Sends a request and parses the JSON answer (204 → null). */
  async json<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.send(method, path, opts);
    try {
      return await readJson<T>(res);
    } catch (err) {
      if (err instanceof ApiError)
        throw new ExitError(`the server at ${this.base.origin} answered ${res.status} with something that is not JSON`);
      throw err;
    }
  }

  get<T = unknown>(path: string, query?: Query): Promise<T> {
    return this.json<T>('GET', path, { query });
  }

  /** Follows the change feed (src/client/changes.ts) until `signal` aborts; an error answer becomes an ExitError. */
  async follow(opts: Omit<FollowOptions, 'onGap'>): Promise<void> {
    try {
      await followChanges(
        { ...this.settings, txid: undefined },
        {
          ...opts,
          onGap: (err, ms) =>
            process.stderr.write(
              `the change stream was cut (${err instanceof Error ? err.message : String(err)}); reconnecting in ${ms / 1000} s\n`,
            ),
        },
      );
    } catch (err) {
      if (err instanceof ApiError) throw problemToExit(err.problem, this.conn, this.base.origin);
      throw err;
    }
  }
}

export function apiOf(cmd: Command): Api {
  return new Api(connectionOf(cmd));
}

/** One clear line for any error answer; 400 lists each issue and exits 2. */
function problemToExit(p: Problem, conn: Connection, origin: string): ExitError {
  if (p.status === 0) return new ExitError(`cannot reach ${origin} (${String(p.body.cause ?? p.detail)})`);
  if (p.status === 401) {
    const why = conn.key ? 'the API key is missing, unknown or revoked' : 'no API key given (set SERVICE_API_KEY or pass --key)';
    return new ExitError(`401 unauthorized: ${why}`, 1, [], 401);
  }
  const detail = p.detail ?? (typeof p.body.title === 'string' ? p.body.title : String(p.status));
  if (p.status === 400) {
    if (p.issues.length === 0) return new ExitError(`400 ${p.code}: ${detail}`, 2, [], 400);
    return new ExitError(`400 ${p.code}: the server rejected the input`, 2, p.issues.map(formatIssue), 400);
  }
  return new ExitError(`${p.status} ${p.code}: ${detail}`, 1, [], p.status);
}

function formatIssue(i: Issue): string {
  return `${i.key}: ${i.message} (${i.code})`;
}
