import type { Db } from './db.ts';
import { readAssetText } from '../assets.ts';

// schema.sql describes the current schema whole; a new database gets it in one go. A database
// made by an older kspace is brought forward by the steps below, one per version, in order.
export const SCHEMA_VERSION = 1;

const STEPS: Array<{ to: number; sql: string }> = [
  // { to: 2, sql: 'ALTER TABLE ...' },
];

export function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current === SCHEMA_VERSION) return;
  if (current > SCHEMA_VERSION) {
    throw new Error(`database schema version ${current} is newer than this kspace (${SCHEMA_VERSION})`);
  }
  db.transaction(() => {
    if (current === 0) {
      db.exec(readAssetText('schema.sql'));
    } else {
      for (const step of STEPS) if (step.to > current) db.exec(step.sql);
    }
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
