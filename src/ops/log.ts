import { LOG_LEVELS, type LogFormat, type LogLevel } from './config.ts';

// Log lines: JSON (one object a line, for a collector) or text (for a person at a terminal).
// Lines are gathered and written once per turn of the event loop: a write to a pipe is a
// synchronous system call in Node, and one per request cost more than the rest of the logging.

export type LineFields = Record<string, unknown>;

export type LineWriter = { write(line: string): void; flush(): void };

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

export function formatLine(format: LogFormat, level: LogLevel, msg: string, fields?: LineFields): string {
  const time = new Date().toISOString();
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
