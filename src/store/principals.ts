import { stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';

export type PrincipalRow = {
  id: string;
  org_id: number;
  name: string;
  kind: 'agent' | 'user';
  org_admin: number;
  password_hash: string | null;
  created_at: string;
};

export function insertOrg(db: Db, slug: string, name: string, now: string): number {
  return Number(stmt(db, 'INSERT INTO orgs (slug, name, created_at) VALUES (?, ?, ?)').run(slug, name, now).lastInsertRowid);
}

export function findOrgBySlug(db: Db, slug: string): { id: number; slug: string; name: string } | undefined {
  return stmt(db, 'SELECT id, slug, name FROM orgs WHERE slug = ?').get(slug) as never;
}

export function insertPrincipal(db: Db, p: PrincipalRow): void {
  stmt(
    db,
    `INSERT INTO principals (id, org_id, name, kind, org_admin, password_hash, created_at)
            VALUES (@id, @org_id, @name, @kind, @org_admin, @password_hash, @created_at)`,
  ).run(p);
}

export function findPrincipal(db: Db, idOrName: string): PrincipalRow | undefined {
  return stmt(db, 'SELECT * FROM principals WHERE id = ? OR name = ? ORDER BY id = ? DESC LIMIT 1').get(
    idOrName,
    idOrName,
    idOrName,
  ) as never;
}

export function listPrincipals(db: Db, orgId: number): PrincipalRow[] {
  return stmt(db, 'SELECT * FROM principals WHERE org_id = ? ORDER BY name').all(orgId) as never;
}

export function existingPrincipalIds(db: Db, orgId: number, ids: string[]): Set<string> {
  if (ids.length === 0) return new Set();
  const rows = stmt(db, 'SELECT id FROM principals WHERE org_id = ? AND id IN (SELECT value FROM json_each(?))').all(
    orgId,
    JSON.stringify(ids),
  ) as Array<{ id: string }>;
  return new Set(rows.map((r) => r.id));
}

export type KeyRow = { id: string; principal_id: string; prefix: string; created_at: string; revoked_at: string | null };

export function insertKey(db: Db, k: { id: string; principal_id: string; hash: string; prefix: string; created_at: string }): void {
  stmt(
    db,
    'INSERT INTO api_keys (id, principal_id, hash, prefix, created_at) VALUES (@id, @principal_id, @hash, @prefix, @created_at)',
  ).run(k);
}

export function findPrincipalByKeyHash(db: Db, hash: string): PrincipalRow | undefined {
  return stmt(
    db,
    `SELECT p.* FROM api_keys k JOIN principals p ON p.id = k.principal_id
                   WHERE k.hash = ? AND k.revoked_at IS NULL`,
  ).get(hash) as never;
}

export function findKey(db: Db, id: string): (KeyRow & { org_id: number }) | undefined {
  return stmt(
    db,
    `SELECT k.id, k.principal_id, k.prefix, k.created_at, k.revoked_at, p.org_id
                   FROM api_keys k JOIN principals p ON p.id = k.principal_id WHERE k.id = ?`,
  ).get(id) as never;
}

/**
 * Org admins of `orgId` who could still sign in without the key `exceptKeyId`: a password, or
 * another unrevoked key.
 */
export function adminsWithCredentials(db: Db, orgId: number, exceptKeyId: string): number {
  return (
    stmt(
      db,
      `SELECT COUNT(*) AS n FROM principals p WHERE p.org_id = ? AND p.org_admin = 1
                     AND (p.password_hash IS NOT NULL OR EXISTS (SELECT 1 FROM api_keys k
                          WHERE k.principal_id = p.id AND k.revoked_at IS NULL AND k.id <> ?))`,
    ).get(orgId, exceptKeyId) as { n: number }
  ).n;
}

export function listKeys(db: Db, principalId: string): KeyRow[] {
  return stmt(db, 'SELECT id, principal_id, prefix, created_at, revoked_at FROM api_keys WHERE principal_id = ? ORDER BY created_at').all(
    principalId,
  ) as never;
}

export function revokeKey(db: Db, id: string, now: string): void {
  stmt(db, 'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(now, id);
}

/** The id of the org's principal with this name. */
export function findPrincipalByName(db: Db, orgId: number, name: string): string | undefined {
  return stmt(db, 'SELECT id FROM principals WHERE org_id = ? AND name = ?').pluck().get(orgId, name) as string | undefined;
}

// The auth epoch: a number in derived_state ('auth_epoch') that every change withdrawing or
// altering a credential (a key revoked, sessions ended, a password changed) advances in the same
// transaction. A copy of the database carries it with the change, so a replica that sees it move
// drops its cache of credentials (src/front/replica.ts) within the replication lag.

/** Advances the auth epoch; call inside the transaction of the change. */
export function bumpAuthEpoch(db: Db): void {
  stmt(
    db,
    `INSERT INTO derived_state (name, value) VALUES ('auth_epoch', '1')
            ON CONFLICT (name) DO UPDATE SET value = CAST(value AS INTEGER) + 1`,
  ).run();
}

/** The auth epoch as the database holds it ('0' before the first change). */
export function readAuthEpoch(db: Db): string {
  return (stmt(db, "SELECT value FROM derived_state WHERE name = 'auth_epoch'").pluck().get() as string | undefined) ?? '0';
}
