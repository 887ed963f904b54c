import type { Command } from 'commander';
import { addClientOptions, apiOf, collect, enc, wantsJson } from './client.ts';
import { parsed } from './exit-error.ts';
import { cell, printJson, printLine, printListOf, printTable } from './format.ts';
import { addPagingOptions, fetchList, hintMore, type PagingOptions } from './paging.ts';
import { parseWhere, type Filter } from './values.ts';

type Field = {
  key: string;
  type: string;
  required?: boolean;
  default?: unknown;
  label?: string;
  description?: string;
  options?: string[];
  min?: number;
  max?: number;
};
type RecordType = { name: string; description: string; defaultPathPrefix: string | null; additionalKeys: string; fields: Field[] };
type Template = { space: string; name: string; path: string; title: string; description: string; recordType: boolean; fields?: Field[] };
export type MetaRow = { space: string; path: string; title: string; version: number; updatedAt: string; metadata: Record<string, unknown> };
export type QueryOptions = PagingOptions & { where?: string[]; orderBy?: string; desc?: boolean };

/** `--where`, `--order-by`, `--desc` (and paging) for metadata queries. */
export function addQueryOptions(cmd: Command): Command {
  return addPagingOptions(cmd, 'rows')
    .option(
      '--where <expr>',
      "a filter (repeatable, AND-ed): key=v, key!=v, key>=3, 'key in a,b', 'key contains x', 'key exists', 'key missing'",
      collect,
    )
    .option('--order-by <key>', 'sort by this metadata key')
    .option('--desc', 'sort descending');
}

/** The query string of a metadata query: filters as JSON, order, paging. */
export function queryParams(opts: QueryOptions, extra: Filter[] = []): Record<string, string | undefined> {
  const filters = [...(opts.where ?? []).map((w) => parsed(() => parseWhere(w))), ...extra];
  return {
    filters: filters.length ? JSON.stringify(filters) : undefined,
    orderBy: opts.orderBy,
    order: opts.orderBy || opts.desc ? (opts.desc ? 'desc' : 'asc') : undefined,
  };
}

/** Rows with a column for each metadata key that matters: those filtered or sorted on, then the most common. */
export function printMetaRows(rows: MetaRow[], keysFirst: string[], withSpace: boolean): void {
  const counts = new Map<string, number>();
  for (const r of rows) for (const k of Object.keys(r.metadata ?? {})) if (k !== 'template') counts.set(k, (counts.get(k) ?? 0) + 1);
  const keys = [...new Set(keysFirst.filter((k) => k !== 'template' && counts.has(k)))];
  for (const [k] of [...counts].sort((a, b) => b[1] - a[1])) if (keys.length < 6 && !keys.includes(k)) keys.push(k);
  printTable(
    [withSpace ? 'PAGE' : 'PATH', 'TITLE', ...keys.map((k) => k.toUpperCase())],
    rows.map((r) => [withSpace ? `${r.space}/${r.path}` : r.path, cell(r.title, 40), ...keys.map((k) => cell(r.metadata?.[k], 30))]),
    { empty: 'no matches' },
  );
}

function fieldDetails(f: Field): string {
  const parts: string[] = [];
  if (f.options?.length) parts.push(`options: ${f.options.join(', ')}`);
  if (f.min !== undefined || f.max !== undefined) parts.push(`range: ${f.min ?? ''}..${f.max ?? ''}`);
  if (f.default !== undefined) parts.push(`default: ${cell(f.default)}`);
  if (f.label) parts.push(`label: ${f.label}`);
  return parts.join('; ');
}

function printFieldsTable(fields: Field[]): void {
  printTable(
    ['KEY', 'TYPE', 'REQUIRED', 'DETAILS'],
    fields.map((f) => [f.key, f.type, f.required ? 'yes' : '', fieldDetails(f)]),
    { empty: '(no fields)', indent: 2 },
  );
}

/** `kspace types`, `kspace records`, `kspace templates`. */
export function registerRecordCommands(program: Command): void {
  addClientOptions(program.command('types').argument('<space>').description("a space's record types with their fields"))
    .helpGroup('Records and templates:')
    .action(async (space: string, _opts: unknown, cmd: Command) => {
      const types = await apiOf(cmd).get<RecordType[]>(`/spaces/${enc(space)}/record-types`);
      if (wantsJson(cmd)) return printJson(types);
      if (types.length === 0)
        return printLine(`no record types in ${space} (a record type is a page templates/<name> with metadataSchema in its frontmatter)`);
      types.forEach((t, i) => {
        if (i > 0) printLine();
        const about = [t.defaultPathPrefix ? `path prefix ${t.defaultPathPrefix}` : '', `additional keys: ${t.additionalKeys}`]
          .filter(Boolean)
          .join(', ');
        printLine(`${t.name}${t.description ? ` — ${t.description}` : ''}  (${about})`);
        printFieldsTable(t.fields);
      });
    });

  addQueryOptions(
    addClientOptions(program.command('records').argument('<space>').argument('<type>').description('the records of one type in a space')),
  )
    .helpGroup('Records and templates:')
    .option('--nonconforming', "only records that no longer satisfy their type's current schema, with their issues")
    .addHelpText(
      'after',
      "\nExamples:\n  kspace records tasks task --where 'stage in todo,doing' --order-by due\n  kspace records tasks task --nonconforming\n",
    )
    .action(async (space: string, type: string, opts: QueryOptions & { nonconforming?: boolean }, cmd: Command) => {
      const api = apiOf(cmd);
      const base = `/spaces/${enc(space)}/records/${enc(type)}`;
      if (opts.nonconforming) {
        const rows = await api.get<Array<{ path: string; issues: Array<{ key: string; code: string; message: string }> }>>(
          `${base}/nonconforming`,
        );
        return printListOf(
          cmd,
          rows,
          ['PATH', 'ISSUES'],
          () => rows.map((r) => [r.path, r.issues.map((i) => `${i.key}: ${i.message} (${i.code})`).join('; ')]),
          { empty: 'every record conforms' },
        );
      }
      const r = await fetchList<MetaRow>(api, base, 'pages', queryParams(opts), opts);
      if (wantsJson(cmd)) return printJson(r.body);
      const keys = [...(opts.where ?? []).map((w) => parseWhere(w).key), ...(opts.orderBy ? [opts.orderBy] : [])];
      printMetaRows(r.items, keys, false);
      hintMore(r.nextCursor);
    });

  addClientOptions(program.command('templates').description('page templates and record types you can read'))
    .helpGroup('Records and templates:')
    .option('--space <slug>', 'only this space')
    .option('--content', "include each template's content (with --json)")
    .action(async (opts: { space?: string; content?: boolean }, cmd: Command) => {
      const list = await apiOf(cmd).get<Template[]>('/templates', { space: opts.space, includeContent: opts.content ? 'true' : undefined });
      printListOf(
        cmd,
        list,
        ['SPACE', 'NAME', 'KIND', 'TITLE', 'DESCRIPTION'],
        () => list.map((t) => [t.space, t.name, t.recordType ? 'record type' : 'template', t.title, t.description]),
        { empty: 'no templates' },
      );
    });
}
