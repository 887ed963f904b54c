import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A database of an older schema version holding the data of `srcDb` (written by today's server):
 * `schemaFile` (that version's schema.sql, kept in test/support) applied whole, then every column
 * the old tables have copied from the new database. What later versions added is simply absent.
 */
export function makeOldDatabase(srcDb: string, dir: string, schemaFile: string, version: number): void {
  const old = new Database(path.join(dir, 'kspace.db'));
  old.pragma('journal_mode = WAL');
  old.exec(fs.readFileSync(new URL(schemaFile, import.meta.url), 'utf8'));
  old.pragma('foreign_keys = OFF');
  old.prepare('ATTACH DATABASE ? AS src').run(srcDb);
  const tables = old.prepare("SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{ name: string }>;
  for (const { name } of tables) {
    const cols = (old.prepare('SELECT name FROM pragma_table_info(?)').all(name) as Array<{ name: string }>).map((c) => `"${c.name}"`).join(', ');
    old.exec(`INSERT INTO main."${name}" (${cols}) SELECT ${cols} FROM src."${name}"`);
  }
  old.exec('DETACH DATABASE src');
  old.pragma(`user_version = ${version}`);
  old.close();
}
