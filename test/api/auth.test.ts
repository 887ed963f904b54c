import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, newAgent, startServer, type TestServer } from '../support/server.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(() => srv.close());

describe('API keys and principals', () => {
  it('answers 401 without a key, with a bad key, and with a malformed header', async () => {
    for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: 'Basic abc' }] as Array<Record<string, string>>) {
      const r = await fetch(`${srv.url}/me`, { headers });
      expect(r.status).toBe(401);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      expect((await r.json()).code).toBe('unauthorized');
    }
  });

  it('bootstraps the admin from SERVICE_BOOTSTRAP_ADMIN_KEY', async () => {
    const me = await srv.admin.get('/me');
    expect(me.body).toEqual({ id: expect.stringMatching(/^p_/), name: 'admin', kind: 'agent', orgAdmin: true });
  });

  it('creates principals and keys; a revoked key is refused on the very next request', async () => {
    const bob = await newAgent(srv, 'bob');
    expect((await bob.get('/me')).body).toMatchObject({ name: 'bob', kind: 'agent', orgAdmin: false });
    const keys = await srv.admin.get(`/admin/principals/${bob.id}/keys`);
    expect(keys.body).toHaveLength(1);
    expect(keys.body[0].key).toBeUndefined();
    expect((await srv.admin.del(`/admin/keys/${keys.body[0].id}`)).status).toBe(204);
    expect((await bob.get('/me')).status).toBe(401);
    expect((await bob.get('/spaces')).status).toBe(401);
  });

  it('keeps admin routes for org admins (403 otherwise) and validates input', async () => {
    const carol = await newAgent(srv, 'carol');
    expect((await carol.get('/admin/principals')).status).toBe(403);
    expect((await carol.post('/admin/principals', { name: 'x', kind: 'agent' })).status).toBe(403);
    const bad = await srv.admin.post('/admin/principals', { name: 'bad name!', kind: 'robot' });
    expect(bad.status).toBe(400);
    expect(bad.body.issues.map((i: any) => i.key)).toContain('kind');
    expect((await srv.admin.post('/admin/principals', { name: 'carol', kind: 'agent' })).status).toBe(409);
    const list = await srv.admin.get('/admin/principals');
    expect(list.body.map((p: any) => p.name)).toEqual(expect.arrayContaining(['admin', 'carol']));
    expect(JSON.stringify(list.body)).not.toContain('password');
  });

  it('stores user passwords as scrypt hashes and gives users no API keys', async () => {
    const u = await srv.admin.post('/admin/principals', { name: 'dora', kind: 'user', password: 'correct horse battery' });
    expect(u.status).toBe(201);
    const hash = srv.svc.db.prepare('SELECT password_hash FROM principals WHERE id = ?').get(u.body.id) as { password_hash: string };
    expect(hash.password_hash).toMatch(/^scrypt\$/);
    expect(hash.password_hash).not.toContain('correct horse');
    expect((await srv.admin.post(`/admin/principals/${u.body.id}/keys`)).status).toBe(400);
  });

  it('stores only key hashes', async () => {
    const rows = srv.svc.db.prepare('SELECT hash FROM api_keys').all() as Array<{ hash: string }>;
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.hash).toMatch(/^[0-9a-f]{64}$/);
    const all = JSON.stringify(srv.svc.db.prepare('SELECT * FROM api_keys').all());
    expect(all).not.toContain(srv.admin.key!);
  });
});

describe('kspace admin (offline)', () => {
  it('creates a principal and a key on the data dir that the running server accepts', () => {
    const id = execFileSync('bin/kspace', ['admin', 'create-principal', '--data', srv.dataDir, '--name', 'offline-bot'], {
      encoding: 'utf8',
    }).trim();
    expect(id).toMatch(/^p_/);
    const key = execFileSync('bin/kspace', ['admin', 'create-key', '--data', srv.dataDir, '--principal', 'offline-bot'], {
      encoding: 'utf8',
    }).trim();
    expect(key).toMatch(/^ks_/);
    return client(srv.url, key)
      .get('/me')
      .then((r) => expect(r.body).toMatchObject({ id, name: 'offline-bot' }));
  });

  it('exits 2 for a rejected name and 1 for an unknown principal', () => {
    const run = (args: string[]) => {
      try {
        execFileSync('bin/kspace', args, { encoding: 'utf8', stdio: 'pipe' });
        return 0;
      } catch (e) {
        return (e as { status: number }).status;
      }
    };
    expect(run(['admin', 'create-principal', '--data', srv.dataDir, '--name', 'no spaces'])).toBe(2);
    expect(run(['admin', 'create-key', '--data', srv.dataDir, '--principal', 'nobody'])).toBe(1);
  });
});

describe('password hashes', () => {
  it('verify the password they were made from and nothing else', async () => {
    const { hashPassword, verifyPassword } = await import('../../src/domain/principals.ts');
    const stored = hashPassword('correct horse battery');
    expect(stored).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(hashPassword('correct horse battery')).not.toBe(stored); // salted
    expect(verifyPassword('correct horse battery', stored)).toBe(true);
    expect(verifyPassword('correct horse batterY', stored)).toBe(false);
    expect(verifyPassword('correct horse battery', 'bcrypt$x')).toBe(false);
  });
});
