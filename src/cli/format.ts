// Human-readable output: aligned tables, key/value blocks and plain text from API answers.
// `--json` bypasses all of this and prints the API's JSON as it came (printJson; printListOf chooses).

import type { Command } from 'commander';
import { wantsJson } from './client.ts';
import { hintMore } from './paging.ts';

type Out = { write(s: string): unknown; isTTY?: boolean; columns?: number };

const MAX_CELL = 60;

export function printJson(data: unknown, out: Out = process.stdout): void {
  out.write(`${JSON.stringify(data, null, 2)}\n`);
}

export function printLine(line = '', out: Out = process.stdout): void {
  out.write(`${line}\n`);
}

/** One cell's text: lists joined with ", ", nothing as "", long text cut with "…". */
export function cell(value: unknown, max = MAX_CELL): string {
  let s: string;
  if (value === null || value === undefined) s = '';
  else if (Array.isArray(value)) s = value.map((v) => cell(v, Infinity)).join(', ');
  else if (typeof value === 'object') s = JSON.stringify(value);
  else s = String(value);
  s = s.replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/**
 * An aligned table, with a header row unless `headers` is null. Columns are padded to their widest
 * cell; on a terminal each line is cut to the terminal's width. An empty table prints `empty`
 * instead (e.g. "no pages"). `indent` shifts the whole table right (a table under a heading).
 */
export function printTable(headers: string[] | null, rows: unknown[][], opts: { empty?: string; out?: Out; indent?: number } = {}): void {
  const out = opts.out ?? process.stdout;
  const pad = ' '.repeat(opts.indent ?? 0);
  if (rows.length === 0) {
    if (opts.empty) out.write(`${pad}${opts.empty}\n`);
    return;
  }
  // The last column is never cut here: piped output keeps it whole, a terminal cuts the line.
  const cells = rows.map((r) => r.map((v, i) => cell(v, i === r.length - 1 ? Infinity : MAX_CELL)));
  const all = headers ? [headers, ...cells] : cells;
  const widths = all[0].map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const lines = all.map(
    (r) =>
      pad +
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
  );
  const cols = out.isTTY ? (out.columns ?? 0) : 0;
  for (const line of lines) out.write(`${cols > 20 && line.length > cols ? `${line.slice(0, cols - 1)}…` : line}\n`);
}

/**
 * A listing command's output: with `--json` the answer as it came, otherwise a table of its rows
 * and, when `more` is a cursor, the hint for the next page (hintMore).
 */
export function printListOf(
  cmd: Command,
  answer: unknown,
  headers: string[],
  rows: () => unknown[][],
  { more, ...opts }: { empty?: string; out?: Out; indent?: number; more?: string | null } = {},
): void {
  if (wantsJson(cmd)) return printJson(answer);
  printTable(headers, rows(), opts);
  hintMore(more ?? null);
}

/** `key  value` lines, keys aligned (for one object: a space, a webhook, a page's metadata). */
export function printFields(fields: Array<[string, unknown]>, out: Out = process.stdout): void {
  const width = Math.max(0, ...fields.map(([k]) => k.length));
  for (const [k, v] of fields) out.write(`${`${k}:`.padEnd(width + 1)}  ${cell(v, Infinity)}\n`);
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'" };

/** A search snippet (HTML, matches in <mark>) as terminal text: bold matches on a TTY, plain otherwise. */
export function snippetText(html: string, tty: boolean): string {
  const marked = html.replace(/<mark>([\s\S]*?)<\/mark>/g, (_, m: string) => (tty ? `\x1b[1m${m}\x1b[22m` : m));
  return marked
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|apos);/g, (_, e: string) => ENTITIES[e])
    .replace(/\s+/g, ' ')
    .trim();
}
