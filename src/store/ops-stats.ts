import fs from 'node:fs';
import { stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';

// Figures for readiness and metrics: cheap reads (an index each), run per probe or scrape.

export function schemaVersionOf(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Outbox rows not yet turned into deliveries, and the oldest one's time. */
export function outboxDepth(db: Db): { depth: number; oldestAt: string | null } {
  const r = stmt(db, 'SELECT count(*) AS n, min(occurred_at) AS oldest FROM events WHERE dispatched_at IS NULL').get() as {
    n: number;
    oldest: string | null;
  };
  return { depth: r.n, oldestAt: r.oldest };
}

/** Deliveries by status (pending, delivered, failed, blocked). */
export function deliveryCounts(db: Db): Record<string, number> {
  const rows = stmt(db, 'SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status').all() as Array<{
    status: string;
    n: number;
  }>;
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/** Bytes on disk of the database file and its WAL (0 when absent). */
export function fileSizes(db: Db): { db: number; wal: number } {
  const size = (f: string) => {
    try {
      return fs.statSync(f).size;
    } catch {
      return 0;
    }
  };
  return { db: size(db.name), wal: size(db.name + '-wal') };
}
