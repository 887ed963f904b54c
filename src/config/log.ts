import { LOG_LEVELS, type LogFormat, type LogLevel } from './ops-config.ts';

// Log lines: JSON (one object a line, for a collector) or text (for a person at a terminal).
// Lines are gathered and written once per turn of the event loop: a write to a pipe is a
// synchronous system call in Node, and one per request cost more than the rest of the logging.

type LineFields = Record<string, unknown>;

type LineWriter = { write(line: string): void; flush(): void };

/** Writes whole lines to `out` once per event-loop turn (and at exit). */
export function createLineWriter(out: { write(s: string): unknown } = process.stderr): LineWriter {
  let pending: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    out.write(text);
  };
  process.once('exit', flush);
  return {
    write(line) {
      pending.push(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}

// The time string, made again only when the millisecond changes.
let lastMs = 0;
let lastIso = '';
function nowIso(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

const PLAIN = /^[\w\-.:/*@~+()]*$/;
const str = (v: string) => (PLAIN.test(v) ? `"${v}"` : JSON.stringify(v));

/** The fields of a request line; every string is short and most need no escaping. */
export type RequestFields = {
  id: string;
  principal: string | null;
  method: string;
  route: string;
  status: number;
  ms: number;
  bytes: number;
};

/**
 * formatLine for the one line every request writes, without the object spread and the generic
 * JSON.stringify (several times slower a line).
 */
export function formatRequestLine(format: LogFormat, level: LogLevel, msg: string, f: RequestFields): string {
  if (format === 'text') return formatLine(format, level, msg, f);
  return (
    `{"time":"${nowIso()}","level":"${level}","msg":"${msg}","id":${str(f.id)},"principal":${f.principal === null ? 'null' : str(f.principal)},` +
    `"method":${str(f.method)},"route":${str(f.route)},"status":${f.status},"ms":${f.ms},"bytes":${f.bytes}}\n`
  );
}

export function formatLine(format: LogFormat, level: LogLevel, msg: string, fields?: LineFields): string {
  const time = nowIso();
  if (format === 'json') return JSON.stringify(fields ? { time, level, msg, ...fields } : { time, level, msg }) + '\n';
  let line = `${time} ${level.padEnd(5)} ${msg}`;
  if (fields) {
    for (const k in fields) {
      const v = fields[k];
      if (v === undefined) continue;
      line += ` ${k}=${typeof v === 'string' && /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v)}`;
    }
  }
  return line + '\n';
}

/** Whether a line at `level` passes the threshold `min`. */
export function levelEnabled(min: LogLevel, level: LogLevel): boolean {
  return LOG_LEVELS[level] >= LOG_LEVELS[min];
}
