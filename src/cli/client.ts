// The CLI's HTTP client: every client command is a thin adapter over the HTTP API of a running
// server, so the CLI validates, authorizes and fires events exactly as every other caller does.
import fs from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { ExitError } from './exit-error.ts';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

export type Connection = { url: string; key: string | undefined };
export type Issue = { key: string; code: string; message: string };
type Query = Record<string, string | number | boolean | null | undefined>;

export type RequestOptions = {
  query?: Query;
  /** A JSON body. */
  body?: unknown;
  /** A streamed body (import uploads), sent as it is read. */
  stream?: ReadableStream<Uint8Array>;
  /** A raw body (attachment uploads), sent with `headers['content-type']`. */
  bytes?: Uint8Array;
  accept?: string;
  headers?: Record<string, string>;
};

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
    if (!ownUrlOption.has(cmd)) cmd.addOption(new Option('--url <url>', `server URL (default: $SERVICE_URL or ${DEFAULT_URL})`).helpGroup('Connection:'));
    cmd.addOption(new Option('--key <key>', 'API key (default: $SERVICE_API_KEY)').helpGroup('Connection:'));
  }
  clientCommands.clear();
}

/** For repeatable options: each use adds a value. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];
/** For repeatable options that also take comma-separated lists. */
export const collectList = (value: string, previous: string[] = []) => [...previous, ...value.split(',').map((s) => s.trim()).filter(Boolean)];

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

/** `/pages/<space>/<path>` with each segment percent-encoded. */
export function pageUrl(space: string, path: string, sub?: string): string {
  const segs = path.split('/').map(encodeURIComponent).join('/');
  return `/pages/${encodeURIComponent(space)}/${segs}${sub ? `/${sub}` : ''}`;
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
  }

  url(path: string, query?: Query): URL {
    const u = new URL(this.base);
    u.pathname = this.base.pathname.replace(/\/+$/, '') + path;
    u.search = '';
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v !== undefined && v !== null && v !== '') u.searchParams.set(k, String(v));
    }
    return u;
  }

  /** Sends a request; a network failure or a non-2xx answer becomes an ExitError. */
  async send(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { accept: opts.accept ?? 'application/json', ...opts.headers };
    if (this.conn.key) headers.authorization = `Bearer ${this.conn.key}`;
    this.minTxid ??= rememberedTxid(this.base.origin);
    if (this.minTxid > 0) headers['x-service-min-txid'] = String(this.minTxid);
    let body: BodyInit | undefined;
    if (opts.bytes) {
      body = opts.bytes as Uint8Array<ArrayBuffer>;
      headers['content-type'] ??= 'application/octet-stream';
    } else if (opts.stream) {
      body = opts.stream;
      headers['content-type'] ??= 'application/json';
    } else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    let res: Response;
    try {
      res = await fetch(this.url(path, opts.query), { method, headers, body, ...(opts.stream ? { duplex: 'half' } : {}) } as RequestInit);
    } catch (err) {
      throw new ExitError(`cannot reach ${this.base.origin} (${describeNetworkError(err)})`);
    }
    if (res.ok) {
      const txid = Number(res.headers.get('x-service-txid'));
      if (Number.isSafeInteger(txid) && txid > (this.minTxid ?? 0)) {
        this.minTxid = txid;
        rememberTxid(this.base.origin, txid);
      }
      return res;
    }
    throw await problemToExit(res, this.conn);
  }

  /** Sends a request and parses the JSON answer (204 → null). */
  async json<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.send(method, path, opts);
    if (res.status === 204) return null as T;
    const text = await res.text();
    try {
      return (text ? JSON.parse(text) : null) as T;
    } catch {
      throw new ExitError(`the server at ${this.base.origin} answered ${res.status} with something that is not JSON`);
    }
  }

  get<T = unknown>(path: string, query?: Query): Promise<T> {
    return this.json<T>('GET', path, { query });
  }
}

export function apiOf(cmd: Command): Api {
  return new Api(connectionOf(cmd));
}

function describeNetworkError(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  switch (cause?.code) {
    case 'ECONNREFUSED': return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN': return 'host not found';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT': return 'connection timed out';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET': return 'connection reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH': return 'network unreachable';
    default: return cause?.message ?? (err instanceof Error ? err.message : String(err));
  }
}

/** One clear line for any error answer; 400 lists each issue and exits 2. */
async function problemToExit(res: Response, conn: Connection): Promise<ExitError> {
  const text = await res.text().catch(() => '');
  let p: { code?: string; title?: string; detail?: string; issues?: Issue[] } = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') p = parsed as typeof p;
  } catch {
    // not problem+json (a proxy's error page, say): the status line is all there is
  }
  const code = p.code ?? (res.statusText.toLowerCase().replaceAll(' ', '_') || 'error');
  if (res.status === 401) {
    const why = conn.key ? 'the API key is missing, unknown or revoked' : 'no API key given (set SERVICE_API_KEY or pass --key)';
    return new ExitError(`401 unauthorized: ${why}`, 1, [], 401);
  }
  const detail = p.detail ?? p.title ?? (text.length && text.length < 200 ? text.trim() : res.statusText);
  if (res.status === 400) {
    const issues = Array.isArray(p.issues) ? p.issues : [];
    if (issues.length === 0) return new ExitError(`400 ${code}: ${detail}`, 2, [], 400);
    return new ExitError(`400 ${code}: the server rejected the input`, 2, issues.map(formatIssue), 400);
  }
  return new ExitError(`${res.status} ${code}: ${detail}`, 1, [], res.status);
}

export function formatIssue(i: Issue): string {
  return `${i.key}: ${i.message} (${i.code})`;
}
