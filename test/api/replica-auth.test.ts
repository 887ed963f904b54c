import { describe, expect, it } from 'vitest';
import { postSession } from '../support/sessions.ts';
import { client } from '../support/server.ts';
import { useReplicaPair } from '../support/replica.ts';

// Credentials on a replica follow the primary (docs/security.md, "Principals and credentials"):
// a revoked key or an ended session stops working on the replica within the replication lag.
// And the sign-in limiter counts the client's address, as the replica forwards it, not the
// replica's own (SERVICE_TRUST_PROXY=1 on the primary, and on the replica behind its proxy).

const { primary, replica } = useReplicaPair({
  primaryEnv: { SERVICE_TRUST_PROXY: '1', SERVICE_SIGNIN_ADDRESS_BURST: '3', SERVICE_SIGNIN_ADDRESS_PER_MINUTE: '1' },
  async setup(primary) {
    for (const name of ['wendy', 'rita']) {
      expect((await primary.admin.post('/admin/principals', { name, kind: 'user', password: 'correct horse' })).status).toBe(201);
    }
  },
  // The test stands for the proxy in front of the replica: it names the client in X-Forwarded-For.
  replicaEnv: { SERVICE_TRUST_PROXY: '1' },
});

const txidOf = (r: { headers: Headers }) => r.headers.get('x-service-txid')!;

describe('credentials on a replica', () => {
  it('a revoked key stops reading on the replica once its copy holds the revocation', async () => {
    const agent = await primary.admin.post('/admin/principals', { name: 'reader', kind: 'agent' });
    const issued = await primary.admin.post(`/admin/principals/${agent.body.id}/keys`);
    expect(issued.status).toBe(201);
    const reader = client(replica.url, issued.body.key);
    // Read through the replica: its key cache now holds the caller.
    expect((await reader.get('/spaces/eng', { 'x-service-min-txid': txidOf(issued) })).status).toBe(200);
    expect((await reader.get('/spaces/eng')).status).toBe(200);
    const revoked = await primary.admin.del(`/admin/keys/${issued.body.id}`);
    expect(revoked.status).toBe(204);
    const r = await reader.get('/spaces/eng', { 'x-service-min-txid': txidOf(revoked) });
    expect(r.status, r.text).toBe(401);
    expect((await reader.get('/spaces/eng')).status).toBe(401);
    // Without X-Service-Min-Txid too: a second key, revoked, is refused within the replication lag.
    const second = await primary.admin.post(`/admin/principals/${agent.body.id}/keys`);
    const other = client(replica.url, second.body.key);
    expect((await other.get('/spaces/eng', { 'x-service-min-txid': txidOf(second) })).status).toBe(200);
    expect((await primary.admin.del(`/admin/keys/${second.body.id}`)).status).toBe(204);
    // Polled: the shipper copies every 10 ms and the replica looks every 50 ms.
    const t0 = Date.now();
    let status = 200;
    while (status !== 401 && Date.now() - t0 < 3000) {
      status = (await other.get('/spaces/eng')).status;
      if (status !== 401) await new Promise((res) => setTimeout(res, 20));
    }
    expect(status).toBe(401);
  });

  it('a sign-out ends the session on the replica too', async () => {
    const signIn = await postSession(replica.url, 'wendy', 'correct horse');
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('kspace_session='))!
      .split(';')[0];
    const { csrfToken } = await signIn.json();
    const session = () => fetch(`${replica.url}/session`, { headers: { cookie, 'x-service-min-txid': txidOf(signIn) } });
    expect((await session()).status).toBe(200);
    const out = await fetch(`${replica.url}/session`, {
      method: 'DELETE',
      headers: { cookie, 'x-csrf-token': csrfToken, origin: replica.url },
    });
    expect(out.status).toBe(204);
    const after = await fetch(`${replica.url}/session`, { headers: { cookie, 'x-service-min-txid': txidOf(out) } });
    expect(after.status).toBe(401);
  });
});

describe('the sign-in limiter behind a replica', () => {
  const signIn = (base: string, from: string, name: string, password: string) =>
    postSession(base, name, password, { 'x-forwarded-for': from });

  it('failed sign-ins from one address do not lock out another, through the replica and at the primary', async () => {
    for (const [base, bad, good] of [
      [replica.url, '203.0.113.1', '203.0.113.2'],
      [primary.url, '203.0.113.3', '203.0.113.4'],
    ]) {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await signIn(base, bad, `nobody-${i}-${bad}`, 'wrong password')).status);
      expect(statuses).toEqual([401, 401, 401, 429]);
      const r = await signIn(base, good, 'rita', 'correct horse');
      expect(r.status, await r.clone().text()).toBe(200);
      expect((await signIn(base, bad, 'rita', 'correct horse')).status).toBe(429);
    }
  });
});
