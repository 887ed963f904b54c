// The connection and statement types every store module names (better-sqlite3's).
import type Database from 'better-sqlite3';

export type Db = Database.Database;
export type Statement = Database.Statement;
