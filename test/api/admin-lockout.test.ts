import { afterEach, describe, expect, it } from 'vitest';
import { newAgent, startServer, type Client, type TestServer } from '../support/server.ts';

// The organisation cannot lock itself out: the last credential of its org admins is never revoked.
let srv: TestServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

const keysOf = async (as: Client, id: string) =>
  (await as.get(`/admin/principals/${id}/keys`)).body as Array<{ id: string; revokedAt: string | null }>;

describe('the last credential of the org admins', () => {
  it('refuses with 409 to revoke the only key of the only org admin, and the key keeps working', async () => {
    srv = await startServer();
    const me = (await srv.admin.get('/me')).body;
    const [key] = await keysOf(srv.admin, me.id);
    const r = await srv.admin.del(`/admin/keys/${key.id}`);
    expect(r.status).toBe(409);
    expect(r.headers.get('content-type')).toBe('application/problem+json');
    expect(r.body).toMatchObject({ code: 'conflict', status: 409 });
    expect(r.body.detail).toMatch(/last credential.*lock the organisation out/);
    expect((await srv.admin.get('/me')).status).toBe(200);
    expect((await keysOf(srv.admin, me.id))[0].revokedAt).toBeNull();
  });

  it("revokes it once another org admin holds a key, then refuses that admin's last key; a member's key is never held back", async () => {
    srv = await startServer();
    const me = (await srv.admin.get('/me')).body;
    const other = await newAgent(srv, 'second-admin', true);
    const member = await newAgent(srv, 'plain-member');
    const [key] = await keysOf(srv.admin, me.id);
    expect((await srv.admin.del(`/admin/keys/${key.id}`)).status).toBe(204);
    expect((await srv.admin.get('/me')).status).toBe(401);
    const [own] = await keysOf(other, other.id);
    expect((await other.del(`/admin/keys/${own.id}`)).status).toBe(409);
    expect((await other.get('/me')).status).toBe(200);
    const [mk] = await keysOf(other, member.id);
    expect((await other.del(`/admin/keys/${mk.id}`)).status).toBe(204);
  });

  it("counts an org admin's password as a credential", async () => {
    srv = await startServer();
    const me = (await srv.admin.get('/me')).body;
    expect(
      (await srv.admin.post('/admin/principals', { name: 'admin-user', kind: 'user', password: 'correct horse battery', orgAdmin: true }))
        .status,
    ).toBe(201);
    const [key] = await keysOf(srv.admin, me.id);
    expect((await srv.admin.del(`/admin/keys/${key.id}`)).status).toBe(204);
  });
});
