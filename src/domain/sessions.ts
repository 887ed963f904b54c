import crypto from 'node:crypto';
import { promisify } from 'node:util';
import type { Services } from '../services.ts';
import { AppError, invalidField, notFound } from './errors.ts';
import {
  hashPassword,
  hashPasswordAsync,
  noteAuthChange,
  presentPrincipal,
  requireOrgAdmin,
  toCaller,
  type Principal,
} from './principals.ts';
import { createRateLimiter, type RateLimiter } from '../rate-limit.ts';
import { findPrincipal } from '../store/principals.ts';
import * as store from '../store/sessions.ts';
import type { Caller } from '../model.ts';

// Web sessions (docs/web.md): a user signs in with name and password and holds a random session
// token in a cookie; the database keeps only its sha256. The CSRF token is derived from the
// session token (one-way), so it needs no column and every tab of a session shares it.

const scrypt = promisify(crypto.scrypt) as (pw: string, salt: Buffer, len: number, opts: crypto.ScryptOptions) => Promise<Buffer>;

type SessionView = { principal: Principal; csrfToken: string };
export type SessionCaller = { caller: Caller; csrfToken: string; idHash: string };

const sha256 = (s: string): string => crypto.createHash('sha256').update(s).digest('hex');

function csrfTokenFor(token: string): string {
  return crypto.createHash('sha256').update(`kspace-csrf:${token}`).digest('base64url');
}

// Failed sign-ins per name and per address; password changes, failed or not, per principal (with
// the per-name limits): each costs two scrypt hashes, so none may be repeated at will.
type Limiters = { byName: RateLimiter; byAddress: RateLimiter; changes: RateLimiter };
const limiters = new WeakMap<Services, Limiters>();
function limitersOf(svc: Services): Limiters {
  let l = limiters.get(svc);
  if (!l) {
    const { signInPerName, signInPerAddress } = svc.config.sessions;
    // At most 10,000 buckets each: a flood of names or addresses costs little memory.
    const make = (s: { burst: number; perMinute: number }) =>
      createRateLimiter({ burst: s.burst, perSecond: s.perMinute / 60 }, { maxKeys: 10_000 });
    l = { byName: make(signInPerName), byAddress: make(signInPerAddress), changes: make(signInPerName) };
    limiters.set(svc, l);
  }
  return l;
}

function checkRate(l: Limiters, name: string, address: string): void {
  const wait = Math.max(l.byName.waitSeconds(name.toLowerCase()), l.byAddress.waitSeconds(address));
  if (wait > 0) throw new AppError('rate_limited', `too many failed sign-ins; try again in ${wait} s`, undefined, { retryAfter: wait });
}

function fail(l: Limiters, name: string, address: string): never {
  l.byName.take(name.toLowerCase());
  l.byAddress.take(address);
  throw new AppError('invalid_credentials', 'the name or the password is wrong');
}

// Unknown names and principals without a password are checked against this hash, so a wrong name
// costs the same scrypt as a wrong password and timing does not tell which names exist.
let dummyHash: string | null = null;

async function passwordMatches(password: string, stored: string | null): Promise<boolean> {
  dummyHash ??= hashPassword(crypto.randomBytes(16).toString('hex'));
  const [scheme, n, r, p, salt, hash] = (stored ?? dummyHash).split('$');
  if (scheme !== 'scrypt') return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return crypto.timingSafeEqual(expected, actual) && stored !== null;
}

type SignIn = { name: string; password: string; address: string; userAgent: string };

/** Checks the password and opens a session; returns the cookie token (shown once) and the view. */
export async function signIn(svc: Services, input: SignIn): Promise<SessionView & { token: string }> {
  const l = limitersOf(svc);
  checkRate(l, input.name, input.address);
  const row = findPrincipal(svc.db, input.name);
  const user = row && row.name === input.name && row.kind === 'user' ? row : undefined;
  if (!(await passwordMatches(input.password, user?.password_hash ?? null)) || !user) fail(l, input.name, input.address);
  const token = crypto.randomBytes(32).toString('base64url');
  const now = new Date(svc.now());
  const { maxDays, idleMinutes } = svc.config.sessions;
  await svc.writes.run(() => {
    store.deleteExpiredSessions(svc.db, now.toISOString(), new Date(now.getTime() - idleMinutes * 60_000).toISOString());
    store.insertSession(svc.db, {
      id_hash: sha256(token),
      principal_id: user.id,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + maxDays * 86_400_000).toISOString(),
      last_seen_at: now.toISOString(),
      user_agent: input.userAgent.slice(0, 256),
    });
  });
  return { token, principal: presentPrincipal(user), csrfToken: csrfTokenFor(token) };
}

/** The caller behind a session token, or null when it is unknown, expired or idle too long. */
export function authenticateSession(svc: Services, token: string): SessionCaller | null {
  const idHash = sha256(token);
  const found = store.findSession(svc.db, idHash);
  if (!found) return null;
  const now = Date.parse(svc.now());
  const idleMs = svc.config.sessions.idleMinutes * 60_000;
  const lastSeen = Date.parse(found.session.last_seen_at || found.session.created_at);
  // A replica never writes: an ended session is removed, and use recorded, by the primary
  // (the session requests a person makes there, sign-in and writes, are forwarded to it).
  const writable = svc.config.replication.role === 'primary';
  if (now >= Date.parse(found.session.expires_at) || now - lastSeen >= idleMs) {
    if (writable) void svc.writes.run(() => store.deleteSession(svc.db, idHash)).catch(() => {});
    return null;
  }
  // Record use at most every minute (or a quarter of the idle time): one write per session per minute.
  if (writable && now - lastSeen >= Math.min(60_000, idleMs / 4)) {
    void svc.writes.run(() => store.touchSession(svc.db, idHash, new Date(now).toISOString())).catch(() => {});
  }
  return { caller: toCaller(found.principal), csrfToken: csrfTokenFor(token), idHash };
}

/**
 * Whether the session `idHash` still holds for `principalId` (not ended, expired or idle past its
 * limit), without recording use: a long-lived answer (a change stream) checks it now and then,
 * and an open stream alone does not keep a session alive.
 */
export function sessionHolds(svc: Services, idHash: string, principalId: string): boolean {
  const found = store.findSession(svc.db, idHash);
  if (!found || found.principal.id !== principalId) return false;
  const now = Date.parse(svc.now());
  const lastSeen = Date.parse(found.session.last_seen_at || found.session.created_at);
  return now < Date.parse(found.session.expires_at) && now - lastSeen < svc.config.sessions.idleMinutes * 60_000;
}

export async function endSession(svc: Services, token: string): Promise<void> {
  await svc.writes.run(() => {
    store.deleteSession(svc.db, sha256(token));
    noteAuthChange(svc);
  });
}

/** An org admin ends every session of a principal of their organisation. */
export async function endPrincipalSessions(svc: Services, caller: Caller, principalId: string): Promise<number> {
  requireOrgAdmin(caller);
  const p = findPrincipal(svc.db, principalId);
  if (!p || p.org_id !== caller.orgId) throw notFound(`principal '${principalId}'`);
  return svc.writes.run(() => {
    noteAuthChange(svc);
    return store.deletePrincipalSessions(svc.db, p.id);
  });
}

/**
 * A user changes their password. Every other session of theirs ends; the session that made the
 * change (if any) stays, so the person is not signed out of the tab they are using.
 */
export async function changePassword(
  svc: Services,
  caller: Caller,
  keepSession: string | null,
  current: string,
  next: string,
  address: string,
): Promise<void> {
  const row = findPrincipal(svc.db, caller.id);
  if (!row || row.kind !== 'user' || !row.password_hash) throw new AppError('forbidden', 'only users with a password change it here');
  if (typeof next !== 'string' || next.length < 8) throw invalidField('newPassword', 'min', 'a password has at least 8 characters');
  const l = limitersOf(svc);
  checkRate(l, row.name, address);
  const wait = l.changes.waitSeconds(row.id);
  if (wait > 0) throw new AppError('rate_limited', `too many password changes; try again in ${wait} s`, undefined, { retryAfter: wait });
  l.changes.take(row.id);
  if (!(await passwordMatches(current, row.password_hash))) {
    l.byName.take(row.name.toLowerCase());
    l.byAddress.take(address);
    throw new AppError('invalid_credentials', 'the current password is wrong', [
      { key: 'currentPassword', code: 'wrong', message: 'the current password is wrong' },
    ]);
  }
  const hash = await hashPasswordAsync(next);
  await svc.writes.run(() => {
    store.setPasswordHash(svc.db, row.id, hash);
    const kept = keepSession ? store.findSession(svc.db, keepSession)?.session : undefined;
    store.deletePrincipalSessions(svc.db, row.id);
    if (kept) store.insertSession(svc.db, kept);
    noteAuthChange(svc);
  });
}
