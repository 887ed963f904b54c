import crypto from 'node:crypto';
import type { Services } from '../services.ts';
import { AppError, invalidField, notFound } from './errors.ts';
import { PRINCIPAL_NAME } from './paths.ts';
import { tx } from '../store/db/transactions.ts';
import * as store from '../store/principals.ts';
import { insertPersonalSpace } from './spaces.ts';
import type { Caller } from '../model.ts';

export type Principal = { id: string; name: string; kind: 'agent' | 'user'; orgAdmin: boolean };

export const DEFAULT_ORG = 'default';

export function presentPrincipal(p: store.PrincipalRow): Principal {
  return { id: p.id, name: p.name, kind: p.kind, orgAdmin: p.org_admin === 1 };
}

export function toCaller(p: store.PrincipalRow): Caller {
  return { id: p.id, name: p.name, kind: p.kind, orgId: p.org_id, orgAdmin: p.org_admin === 1 };
}

// The one-shot hash: no Hash object per call (every request with a key hashes it, to find the cached caller).
export const hashKey = (key: string) => crypto.hash('sha256', key, 'hex');
const randomId = (prefix: string) => prefix + crypto.randomBytes(12).toString('base64url');

/** First start: organisation `default`, org-admin agent `admin` and its key (returned once). */
export function bootstrap(svc: Services): { adminKey: string; generated: boolean } | null {
  return tx(svc.db, () => {
    if (store.findOrgBySlug(svc.db, DEFAULT_ORG)) return null;
    const now = svc.now();
    store.insertOrg(svc.db, DEFAULT_ORG, 'Default organisation', now);
    const admin = createPrincipal(svc, { name: 'admin', kind: 'agent', orgAdmin: true });
    const given = svc.config.bootstrapAdminKey;
    const { key } = createKey(svc, admin.id, given);
    return { adminKey: key, generated: given === undefined };
  });
}

export type NewPrincipal = { name: string; kind: 'agent' | 'user'; orgAdmin?: boolean; password?: string };

export function createPrincipal(svc: Services, input: NewPrincipal, orgId?: number): Principal {
  if (!PRINCIPAL_NAME.test(input.name)) {
    throw invalidField('name', 'format', 'names are 1–64 characters of letters, digits, _ . - and start with a letter or digit');
  }
  if (input.password !== undefined && input.kind !== 'user') {
    throw invalidField('password', 'format', 'only users sign in with a password');
  }
  if (input.password !== undefined && input.password.length < 8) {
    throw invalidField('password', 'min', 'a password has at least 8 characters');
  }
  return tx(svc.db, () => {
    const org = orgId ?? store.findOrgBySlug(svc.db, DEFAULT_ORG)?.id;
    if (org === undefined) throw new Error('no organisation: the data directory was never started');
    if (store.findPrincipal(svc.db, input.name)) throw new AppError('conflict', `a principal named '${input.name}' exists`);
    const row: store.PrincipalRow = {
      id: randomId('p_'),
      org_id: org,
      name: input.name,
      kind: input.kind,
      org_admin: input.orgAdmin ? 1 : 0,
      password_hash: input.password === undefined ? null : hashPassword(input.password),
      created_at: svc.now(),
    };
    store.insertPrincipal(svc.db, row);
    insertPersonalSpace(svc, { id: row.id, name: row.name, orgId: org }); // with it: no read ever makes it
    return presentPrincipal(row);
  });
}

/** Issues a new API key for a principal; the key is returned here only, its hash is stored. */
export function createKey(svc: Services, principalIdOrName: string, given?: string): { id: string; key: string; principal: Principal } {
  const key = given ?? 'ks_' + crypto.randomBytes(32).toString('base64url');
  if (key.length < 16) throw invalidField('key', 'min', 'an API key has at least 16 characters');
  return tx(svc.db, () => {
    const p = store.findPrincipal(svc.db, principalIdOrName);
    if (!p) throw notFound(`principal '${principalIdOrName}'`);
    // Every API key acts as an agent (contract: Principals); users sign in to the web app.
    if (p.kind !== 'agent') throw invalidField('principal', 'kind', 'API keys belong to agent principals; users sign in with a password');
    const id = randomId('k_');
    store.insertKey(svc.db, { id, principal_id: p.id, hash: hashKey(key), prefix: key.slice(0, 7), created_at: svc.now() });
    return { id, key, principal: presentPrincipal(p) };
  });
}

export function revokeKey(svc: Services, caller: Caller, keyId: string): void {
  const k = store.findKey(svc.db, keyId);
  if (!k || k.org_id !== caller.orgId) throw notFound(`key '${keyId}'`);
  // The organisation never locks itself out: the last credential of its org admins stays.
  if (k.revoked_at === null && store.adminsWithCredentials(svc.db, k.org_id, keyId) === 0) {
    throw new AppError(
      'conflict',
      'this is the last credential of any org admin: revoking it would lock the organisation out; give an org admin another key or a password first',
    );
  }
  store.revokeKey(svc.db, keyId, svc.now());
  noteAuthChange(svc);
}

/**
 * Called in the transaction of every change that withdraws or alters a credential or what a
 * principal may do: clears this process's cache of API-key callers and advances the auth epoch,
 * which replicas follow (docs/security.md, "Principals and credentials").
 */
export function noteAuthChange(svc: Services): void {
  store.bumpAuthEpoch(svc.db);
  svc.authCache.clear();
}

export function authenticateKey(svc: Services, key: string): Caller | null {
  const hash = hashKey(key);
  const cached = svc.authCache.get(hash);
  if (cached) return cached;
  const p = store.findPrincipalByKeyHash(svc.db, hash);
  if (!p) return null;
  if (svc.authCache.size >= 10_000) svc.authCache.clear();
  const caller = toCaller(p);
  svc.authCache.set(hash, caller);
  return caller;
}

const SCRYPT = { N: 16384, r: 8, p: 1 };

/** A password's stored form, hashed on this thread (principal creation: an org admin's or offline). */
export function hashPassword(password: string): string {
  const salt = crypto.randomBytes(16);
  return formatHash(salt, crypto.scryptSync(password, salt, 32, SCRYPT));
}

/** The same, hashed on libuv's thread pool: a request path never holds the event loop for scrypt. */
export async function hashPasswordAsync(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await new Promise<Buffer>((resolve, reject) =>
    crypto.scrypt(password, salt, 32, SCRYPT, (err, key) => (err ? reject(err) : resolve(key))),
  );
  return formatHash(salt, hash);
}

const formatHash = (salt: Buffer, hash: Buffer) =>
  `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}`;

export function verifyPassword(password: string, stored: string): boolean {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt') return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = crypto.scryptSync(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return crypto.timingSafeEqual(expected, actual);
}

/** A principal by id, presented; null when it no longer exists. */
export function principalOf(svc: Services, id: string): Principal | null {
  const row = store.findPrincipal(svc.db, id);
  return row ? presentPrincipal(row) : null;
}

/** The principals of the caller's organisation (org admins only). */
export function listOrgPrincipals(svc: Services, caller: Caller): Principal[] {
  requireOrgAdmin(caller);
  return store.listPrincipals(svc.db, caller.orgId).map(presentPrincipal);
}

export type KeyInfo = { id: string; prefix: string; createdAt: string; revokedAt: string | null };

/** A principal of the caller's organisation, else 404 (another organisation's is absent). */
function orgPrincipal(svc: Services, caller: Caller, id: string): store.PrincipalRow {
  requireOrgAdmin(caller);
  const p = store.findPrincipal(svc.db, id);
  if (!p || p.org_id !== caller.orgId) throw notFound(`principal '${id}'`);
  return p;
}

/** The API keys of a principal of the caller's organisation, without their secrets. */
export function listPrincipalKeys(svc: Services, caller: Caller, principalId: string): KeyInfo[] {
  const p = orgPrincipal(svc, caller, principalId);
  return store.listKeys(svc.db, p.id).map((k) => ({ id: k.id, prefix: k.prefix, createdAt: k.created_at, revokedAt: k.revoked_at }));
}

/** Issues a key for a principal of the caller's organisation (the key is shown once). */
export function issuePrincipalKey(svc: Services, caller: Caller, principalId: string): { id: string; key: string; principalId: string } {
  const p = orgPrincipal(svc, caller, principalId);
  const { id, key } = createKey(svc, p.id);
  return { id, key, principalId: p.id };
}

export function requireOrgAdmin(caller: Caller): void {
  if (!caller.orgAdmin) throw new AppError('forbidden', 'this operation is for org admins');
}
