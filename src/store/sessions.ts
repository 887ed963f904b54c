import { stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';
import type { PrincipalRow } from './principals.ts';

export type SessionRow = {
  id_hash: string;
  principal_id: string;
  created_at: string;
  expires_at: string;
  last_seen_at: string;
  user_agent: string;
};

export function insertSession(db: Db, s: SessionRow): void {
  stmt(
    db,
    `INSERT INTO sessions (id_hash, principal_id, created_at, expires_at, last_seen_at, user_agent)
            VALUES (@id_hash, @principal_id, @created_at, @expires_at, @last_seen_at, @user_agent)`,
  ).run(s);
}

/** The session and its principal, in one lookup (every cookie-authenticated request). */
export function findSession(db: Db, idHash: string): { session: SessionRow; principal: PrincipalRow } | undefined {
  const row = stmt(
    db,
    `SELECT s.id_hash, s.principal_id, s.created_at AS s_created_at, s.expires_at, s.last_seen_at, s.user_agent,
                               p.org_id, p.name, p.kind, p.org_admin, p.password_hash, p.created_at
                        FROM sessions s JOIN principals p ON p.id = s.principal_id WHERE s.id_hash = ?`,
  ).get(idHash) as (Omit<SessionRow, 'created_at'> & { s_created_at: string } & Omit<PrincipalRow, 'id'>) | undefined;
  if (!row) return undefined;
  return {
    session: {
      id_hash: row.id_hash,
      principal_id: row.principal_id,
      created_at: row.s_created_at,
      expires_at: row.expires_at,
      last_seen_at: row.last_seen_at,
      user_agent: row.user_agent,
    },
    principal: {
      id: row.principal_id,
      org_id: row.org_id,
      name: row.name,
      kind: row.kind,
      org_admin: row.org_admin,
      password_hash: row.password_hash,
      created_at: row.created_at,
    },
  };
}

export function touchSession(db: Db, idHash: string, now: string): void {
  stmt(db, 'UPDATE sessions SET last_seen_at = ? WHERE id_hash = ?').run(now, idHash);
}

export function deleteSession(db: Db, idHash: string): void {
  stmt(db, 'DELETE FROM sessions WHERE id_hash = ?').run(idHash);
}

/** Ends every session of a principal; returns how many there were. */
export function deletePrincipalSessions(db: Db, principalId: string): number {
  return stmt(db, 'DELETE FROM sessions WHERE principal_id = ?').run(principalId).changes;
}

/** Removes sessions past their absolute expiry or idle since before `idleBefore`. */
export function deleteExpiredSessions(db: Db, now: string, idleBefore: string): number {
  return stmt(db, 'DELETE FROM sessions WHERE expires_at <= ? OR last_seen_at < ?').run(now, idleBefore).changes;
}

export function setPasswordHash(db: Db, principalId: string, hash: string): void {
  stmt(db, 'UPDATE principals SET password_hash = ? WHERE id = ?').run(hash, principalId);
}
