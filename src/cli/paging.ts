import type { Command } from 'commander';
import type { Api } from './client.ts';
import { usageError } from './exit-error.ts';

export type PagingOptions = { limit?: string; cursor?: string; all?: boolean };

const pagingCommands = new Map<Command, string>();

/** `--limit`, `--cursor` and `--all` for a list that pages with nextCursor (added after the command's own options). */
export function addPagingOptions(cmd: Command, what: string): Command {
  pagingCommands.set(cmd, what);
  return cmd;
}

export function finishPagingOptions(): void {
  for (const [cmd, what] of pagingCommands) {
    cmd
      .option('--limit <n>', `${what} per request, 1–200 (default 50)`)
      .option('--cursor <cursor>', 'continue from the nextCursor of an earlier answer')
      .option('--all', 'follow nextCursor until the end');
  }
  pagingCommands.clear();
}

type ListAnswer<T> = { items: T[]; nextCursor: string | null; body: Record<string, unknown> };

/**
 * GETs a list answer `{<field>: [...], nextCursor}`; with --all, follows the cursor and merges.
 * `body` is the API's JSON as it came (merged for --all) so `--json` prints it unchanged.
 */
export async function fetchList<T>(
  api: Api,
  path: string,
  field: string,
  query: Record<string, string | undefined>,
  opts: PagingOptions,
): Promise<ListAnswer<T>> {
  const limit = opts.limit;
  if (limit !== undefined && !/^\d+$/.test(limit)) throw usageError(`--limit is a whole number, not '${limit}'`);
  let cursor = opts.cursor;
  const items: T[] = [];
  for (;;) {
    const body = await api.get<Record<string, unknown>>(path, { ...query, limit, cursor });
    const page = Array.isArray(body) ? (body as T[]) : ((body[field] as T[] | undefined) ?? []);
    items.push(...page);
    const next = Array.isArray(body) ? null : ((body.nextCursor as string | null | undefined) ?? null);
    if (!opts.all) return { items, nextCursor: next, body: body as Record<string, unknown> };
    if (!next) return { items, nextCursor: null, body: Array.isArray(body) ? body : { ...body, [field]: items, nextCursor: null } };
    cursor = next;
  }
}

/** On stderr, so a pipe reading stdout sees only the rows. */
export function hintMore(nextCursor: string | null): void {
  if (nextCursor) process.stderr.write(`(more: --cursor ${nextCursor}, or --all)\n`);
}
