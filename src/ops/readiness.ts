import type { Services } from '../services.ts';
import { isDispatcherRunning } from '../domain/webhooks/dispatcher.ts';
import { SCHEMA_VERSION } from '../store/migrations.ts';
import { schemaVersionOf } from '../store/ops-stats.ts';
import { committedTxid } from '../store/txid.ts';
import { replicaStatusOf } from './replica-status.ts';

type Readiness = { ready: boolean; reason: string | null; body: Record<string, unknown> };

// A write barrier that cannot take the write lock in this long means writes are stuck.
const WRITE_PROBE_MS = 2000;

/**
 * /readyz: the database is open and takes writes, its schema is this kspace's, the full-text
 * index is within SERVICE_READY_MAX_INDEX_BACKLOG page writes of the database, and the webhook
 * dispatcher runs. The first failing check is the reason.
 */
export async function checkReadiness(svc: Services): Promise<Readiness> {
  const checks: Record<string, unknown> = {};
  const reasons: string[] = [];
  const check = (name: string, ok: boolean, value: unknown, reason: string) => {
    checks[name] = ok ? 'ok' : value;
    if (!ok) reasons.push(reason);
  };
  const replica = replicaStatusOf(svc);
  if (replica) {
    // A replica: its copy is open and of this kspace's schema (it never writes, runs no dispatcher).
    check('database', svc.db.open, 'closed', 'the database is not open');
    if (svc.db.open) {
      const version = schemaVersionOf(svc.db);
      check('migrations', version === SCHEMA_VERSION, version, `schema version ${version}, expected ${SCHEMA_VERSION}`);
    }
    check(
      'file',
      !replica.replaced,
      'replaced',
      'kspace.db was replaced by another file since this replica opened it: restart the replica',
    );
    checks.replication = { sinceChangeMs: replica.sinceChangeMs };
    return verdict(reasons, { role: 'replica', txid: replica.txid, lagMs: replica.lagMs }, checks);
  }
  if (!svc.db.open || svc.db.readonly) check('database', false, 'closed', 'the database is not open for writing');
  else {
    check('database', await writable(svc), 'stuck', `a write could not start within ${WRITE_PROBE_MS} ms`);
    const version = schemaVersionOf(svc.db);
    check('migrations', version === SCHEMA_VERSION, version, `schema version ${version}, expected ${SCHEMA_VERSION}`);
    const backlog = svc.fts.backlog();
    const max = svc.config.ops.readyMaxIndexBacklog;
    checks.fullTextIndex = { backlog, max };
    if (backlog > max) reasons.push(`the full-text index is ${backlog} page writes behind (more than ${max})`);
  }
  check('dispatcher', isDispatcherRunning(svc), 'stopped', 'the webhook dispatcher is not running');
  return verdict(reasons, { role: 'primary', txid: committedTxid(svc.db) }, checks);
}

/** Ready when no check failed; the body: the status, what this server is, the first reason, every check. */
function verdict(reasons: string[], about: Record<string, unknown>, checks: Record<string, unknown>): Readiness {
  const ready = reasons.length === 0;
  return {
    ready,
    reason: reasons[0] ?? null,
    body: { status: ready ? 'ready' : 'not_ready', ...about, ...(ready ? {} : { reason: reasons[0] }), checks },
  };
}

// An empty write through the group commit: it waits for the batches before it and takes
// SQLite's write lock (BEGIN IMMEDIATE), which is what a stuck writer or a held lock prevents.
function writable(svc: Services): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), WRITE_PROBE_MS);
    svc.writes
      .run(() => null)
      .then(
        () => resolve(true),
        () => resolve(false),
      )
      .finally(() => clearTimeout(timer));
  });
}
