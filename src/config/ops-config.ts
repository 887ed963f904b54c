import { ConfigError, toInt } from './parse.ts';

type Env = Record<string, string | undefined>;

export type LogFormat = 'json' | 'text';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export const LOG_LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** A token bucket setting: `rate` requests a second, up to `burst` at once; rate 0 is off. */
type RateSetting = { rate: number; burst: number };

export type OpsConfig = {
  logFormat: LogFormat;
  logLevel: LogLevel;
  /** Requests slower than this are logged at warn. */
  logSlowMs: number;
  /** Write transactions (a group-commit batch) slower than this are logged at warn. */
  logSlowQueryMs: number;
  /** Honour X-Request-Id and X-Forwarded-For from a reverse proxy in front. */
  trustProxy: boolean;
  /** /readyz answers 503 once this many page writes wait for the full-text index. */
  readyMaxIndexBacklog: number;
  rateLimitPerKey: RateSetting;
  rateLimitPerIp: RateSetting;
  /** Requests one API key may have in progress at once. */
  maxConcurrentPerKey: number;
  /** node:http: time to receive a request's headers (slowloris), and the whole request. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** A request whose body stops arriving for this long is answered 408 and its connection closed (0: off). */
  bodyTimeoutMs: number;
  /** Connections open at once from one address (0: no cap; off behind a trusted proxy). */
  maxConnectionsPerAddress: number;
  /** A request still unanswered after this is answered 503 and logged. */
  maxRequestMs: number;
  /** SIGTERM: how long in-flight requests may take to finish. */
  shutdownTimeoutMs: number;
  metrics: boolean;
  metricsToken: string | undefined;
  /** POST /admin/backup answers org admins (a copy of every space, personal ones too); off by default. */
  adminBackup: boolean;
};

// Defaults: the limits are for a server on a network, and never met by the benchmarks or the
// tests (16 connections, ~12,000 requests a second from one key on loopback). Per address:
// 1,000 a second (burst 2,000), and loopback callers are exempt unless SERVICE_TRUST_PROXY names
// the client behind a local proxy. Per key: off until set (keys are handed out by an org admin,
// mostly to automation whose rate the operator knows); the concurrency cap per key is on.
export function loadOpsConfig(env: Env): OpsConfig {
  const format = env.SERVICE_LOG_FORMAT || (process.stderr.isTTY ? 'text' : 'json');
  if (format !== 'json' && format !== 'text') throw new ConfigError("SERVICE_LOG_FORMAT must be 'json' or 'text'");
  const level = (env.SERVICE_LOG_LEVEL || 'info').toLowerCase();
  if (!(level in LOG_LEVELS)) throw new ConfigError("SERVICE_LOG_LEVEL must be 'debug', 'info', 'warn' or 'error'");
  const headersTimeoutMs = toInt('SERVICE_HEADERS_TIMEOUT_MS', env.SERVICE_HEADERS_TIMEOUT_MS ?? 10_000, 100, 3_600_000);
  const requestTimeoutMs = toInt('SERVICE_REQUEST_TIMEOUT_MS', env.SERVICE_REQUEST_TIMEOUT_MS ?? 300_000, 0, 86_400_000);
  if (requestTimeoutMs !== 0 && requestTimeoutMs < headersTimeoutMs) {
    throw new ConfigError('SERVICE_REQUEST_TIMEOUT_MS must be 0 (none) or at least SERVICE_HEADERS_TIMEOUT_MS');
  }
  return {
    logFormat: format,
    logLevel: level as LogLevel,
    logSlowMs: toInt('SERVICE_LOG_SLOW_MS', env.SERVICE_LOG_SLOW_MS ?? 500, 0),
    logSlowQueryMs: toInt('SERVICE_LOG_SLOW_QUERY_MS', env.SERVICE_LOG_SLOW_QUERY_MS ?? 100, 0),
    trustProxy: env.SERVICE_TRUST_PROXY === '1',
    readyMaxIndexBacklog: toInt('SERVICE_READY_MAX_INDEX_BACKLOG', env.SERVICE_READY_MAX_INDEX_BACKLOG ?? 50_000, 0),
    rateLimitPerKey: rate('SERVICE_RATE_LIMIT_PER_KEY', env, 0),
    rateLimitPerIp: rate('SERVICE_RATE_LIMIT_PER_IP', env, 1000),
    maxConcurrentPerKey: toInt('SERVICE_MAX_CONCURRENT_PER_KEY', env.SERVICE_MAX_CONCURRENT_PER_KEY ?? 256, 1),
    headersTimeoutMs,
    requestTimeoutMs,
    bodyTimeoutMs: toInt('SERVICE_BODY_TIMEOUT_MS', env.SERVICE_BODY_TIMEOUT_MS ?? 30_000, 0, 3_600_000),
    maxConnectionsPerAddress: toInt('SERVICE_MAX_CONNECTIONS_PER_ADDRESS', env.SERVICE_MAX_CONNECTIONS_PER_ADDRESS ?? 256, 0),
    maxRequestMs: toInt('SERVICE_MAX_REQUEST_MS', env.SERVICE_MAX_REQUEST_MS ?? 120_000, 1),
    shutdownTimeoutMs: toInt('SERVICE_SHUTDOWN_TIMEOUT_MS', env.SERVICE_SHUTDOWN_TIMEOUT_MS ?? 10_000, 0),
    metrics: env.SERVICE_METRICS === '1',
    metricsToken: env.SERVICE_METRICS_TOKEN || undefined,
    adminBackup: env.SERVICE_ADMIN_BACKUP === '1',
  };
}

// `RATE` or `RATE/BURST` requests a second; the burst defaults to twice the rate.
function rate(name: string, env: Env, dflt: number): RateSetting {
  const raw = env[name];
  if (!raw) return { rate: dflt, burst: dflt * 2 };
  const [r, b] = raw.split('/');
  const value = Number(r);
  if (!Number.isFinite(value) || value < 0) throw new ConfigError(`${name}: '${raw}' is not RATE or RATE/BURST (requests a second)`);
  const burst = b === undefined ? Math.max(1, value * 2) : toInt(name + ' burst', b, 1);
  return { rate: value, burst };
}
