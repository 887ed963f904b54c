import type { Config } from './config/config.ts';
import type { LogFormat, LogLevel } from './config/ops-config.ts';
import { createLineWriter, formatLine, formatRequestLine, levelEnabled, type RequestFields } from './config/log.ts';
import type { Db } from './store/db/types.ts';
import { createFullTextIndex, type FullTextIndex } from './store/fts/sync.ts';
import { createGroupCommit, type GroupCommit } from './store/group-commit.ts';
import type { Caller } from './model.ts';

export type Logger = {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** The per-request line, on a fast path where the logger has one (else info/warn with the fields). */
  request?(fields: RequestFields, slow: boolean): void;
};

/** Background jobs (webhook dispatcher, catalog refresh): started after listen, stopped before close (src/server.ts). */
export type BackgroundJob = { start(svc: Services): void; stop(): Promise<void> | void };

/** Everything a request or a background job needs, created once by serve() or a test. */
export type Services = {
  db: Db;
  config: Config;
  log: Logger;
  /** Called after a transaction that wrote outbox rows has committed (wakes the dispatcher). */
  eventsWritten: Set<() => void>;
  /** Current time as ISO 8601 UTC with milliseconds. */
  now(): string;
  /** Group commit for request writes: `await svc.writes.run(() => putPage(...))`. */
  writes: GroupCommit;
  /** API key hash → principal; cleared whenever a key is revoked (contract: effective at once). */
  authCache: Map<string, Caller>;
  /** The full-text index (kspace-fts.db): its search connection and catching up before a search. */
  fts: FullTextIndex;
};

/** Lines on standard error, as SERVICE_LOG_FORMAT and SERVICE_LOG_LEVEL say (src/config/log.ts). */
export function createLogger(quiet = false, opts: { format?: LogFormat; level?: LogLevel } = {}): Logger {
  const format = opts.format ?? (process.stderr.isTTY ? 'text' : 'json');
  const min: LogLevel = quiet ? 'warn' : (opts.level ?? 'info');
  const out = createLineWriter();
  const write = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (levelEnabled(min, level)) out.write(formatLine(format, level, msg, fields));
  };
  const infoOn = levelEnabled(min, 'info');
  const warnOn = levelEnabled(min, 'warn');
  return {
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    request(fields, slow) {
      if (slow ? warnOn : infoOn) out.write(formatRequestLine(format, slow ? 'warn' : 'info', slow ? 'slow request' : 'request', fields));
    },
  };
}

export function createServices(db: Db, config: Config, log: Logger = createLogger()): Services {
  const writes = createGroupCommit(db, 128, {
    slowMs: config.ops.logSlowQueryMs,
    onSlow: (ms, n) => log.warn('slow write transaction', { ms: Math.round(ms * 10) / 10, writes: n }),
  });
  return {
    db,
    config,
    log,
    eventsWritten: new Set(),
    now: () => new Date().toISOString(),
    writes,
    authCache: new Map(),
    fts: createFullTextIndex(db, (fn) => writes.run(fn), config.dbCacheMb),
  };
}

/** Wakes whoever waits for new outbox rows, once the writing transaction has committed. */
export function notifyEventsWritten(svc: Services): void {
  svc.writes.afterCommit(() => {
    for (const fn of svc.eventsWritten) fn();
  });
}
