import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { historyStates } from '../../src/store/pages.ts';

/**
 * Before schema version 10 every revision held its whole state: decoded here from the new layout
 * (store/revision-codec.ts), page by page.
 */
function copyRevisions(old: Database.Database, srcDb: string, names: string[]): void {
  const src = new Database(srcDb, { readonly: true });
  const cols = names.map((c) => `"${c}"`).join(', ');
  const ins = old.prepare(`INSERT INTO main.revisions (${cols}) VALUES (${names.map((c) => `@${c}`).join(', ')})`);
  const meta = src.prepare('SELECT * FROM revisions WHERE page_id = ? AND version = ?');
  for (const { id } of src.prepare('SELECT id FROM pages ORDER BY id').all() as Array<{ id: number }>) {
    for (const s of historyStates(src, id).reverse()) {
      const row: Record<string, unknown> = { ...(meta.get(id, s.version) as Record<string, unknown>), ...s };
      row.created_at = new Date(row.created_at as number).toISOString(); // epoch milliseconds since schema version 22
      ins.run(Object.fromEntries(names.map((c) => [c, row[c] ?? null])));
    }
  }
  src.close();
}

/**
 * A database of an older schema version holding the data of `srcDb` (written by today's server):
 * `schemaFile` (that version's schema.sql, kept in test/support) applied whole, then `stepSql`
 * (the migration steps from that file's version to `version`, when no file of `version` is kept),
 * then every column the old tables have copied from the new database. What later versions added is
 * simply absent.
 */
export function makeOldDatabase(srcDb: string, dir: string, schemaFile: string, version: number, stepSql = ''): void {
  const old = new Database(path.join(dir, 'kspace.db'));
  old.pragma('journal_mode = WAL');
  old.exec(fs.readFileSync(new URL(schemaFile, import.meta.url), 'utf8'));
  if (stepSql) old.exec(stepSql);
  old.pragma('foreign_keys = OFF');
  old.prepare('ATTACH DATABASE ? AS src').run(srcDb);
  const tables = old.prepare("SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{
    name: string;
  }>;
  for (const { name } of tables) {
    const names = (old.prepare('SELECT name FROM pragma_table_info(?)').all(name) as Array<{ name: string }>).map((c) => c.name);
    if (name === 'revisions' && names.includes('content')) {
      copyRevisions(old, srcDb, names);
      continue;
    }
    const cols = names.map((c) => `"${c}"`).join(', ');
    old.exec(`INSERT OR REPLACE INTO main."${name}" (${cols}) SELECT ${cols} FROM src."${name}"`); // a schema may insert rows of its own (derived_state)
  }
  old.exec('DETACH DATABASE src');
  old.pragma(`user_version = ${version}`);
  old.close();
}

/**
 * The change feed's events by the number a row stores (schema version 23, store/changes.ts):
 * spelled out here, not imported, so that a test holds the stored format still.
 */
export const STORED_EVENTS = [
  'page.created',
  'page.updated',
  'page.deleted',
  'page.moved',
  'page.restored',
  'page.access',
  'file.put',
  'file.deleted',
];
