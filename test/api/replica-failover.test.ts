import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stopProcess } from '../../scripts/lib/child-server.ts';
import { createShipper } from '../../scripts/lib/shipper.ts';
import { killHard, startChildServer, type ChildServer } from '../support/child-server.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { ADMIN_KEY, client } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

// Failover (docs/scale-out.md): the primary is SIGKILLed under writes; its replica, stopped and
// started again as the primary on its copy, delivers every webhook event of the commits it holds
// (at least once, under the id the old primary used), and is then the one dispatcher.

const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-failover-'));
  dirs.push(d);
  return d;
};
const children: ChildServer[] = [];
let rx: Receiver | undefined;
afterAll(async () => {
  for (const c of children) await stopProcess(c.proc, 'SIGKILL');
  await rx?.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const env = {
  SERVICE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY,
  SERVICE_WEBHOOKS_ALLOW_HTTP: '1',
  SERVICE_WEBHOOKS_ALLOW_PRIVATE_URLS: '1',
  SERVICE_SETTINGS_ENCRYPTION_KEY: 'test-settings-key-0123456789abcdef-xyz',
  SERVICE_WEBHOOKS_RETRY_DELAYS: '0.05',
  SERVICE_CHECKPOINT_MODE: 'litestream',
};
type Delivery = { id: string; page: { path: string; version: number } };

describe('failover to a promoted replica', () => {
  it('loses no event of a replicated commit, keeps delivery ids, and has one dispatcher afterwards', async () => {
    rx = await startReceiver();
    const pDir = tmp();
    const rDir = tmp();
    const primary = await startChildServer(pDir, env);
    children.push(primary);
    const admin = client(primary.url, ADMIN_KEY);
    expect((await admin.post('/spaces', { slug: 'eng', name: 'Eng' })).status).toBe(201);
    expect((await admin.post('/admin/webhooks', { url: rx!.url('/fo'), events: ['page.created', 'page.updated'] })).status).toBe(201);
    const shipper = createShipper(path.join(pDir, 'kspace.db'), path.join(rDir, 'kspace.db'));
    await shipper.ship();
    shipper.start(5);
    const replica = await startChildServer(rDir, { ...env, SERVICE_ROLE: 'replica', SERVICE_PRIMARY_URL: primary.url });
    children.push(replica);
    const viaReplica = client(replica.url, ADMIN_KEY);

    // Writes through the replica (forwarded), 4 at a time, until the primary is killed.
    let stop = false;
    let acknowledged = 0;
    const writers = [0, 1, 2, 3].map(async (w) => {
      for (let i = 0; !stop; i++) {
        const r = await viaReplica.put(`/pages/eng/w${w}-${i % 5}`, { title: `W${w}`, content: `n ${i}` }).catch(() => null);
        if (r?.status === 200 || r?.status === 201) acknowledged++;
      }
    });
    // The crash comes once 20 writes are acknowledged (700 ms at least): on a loaded machine a
    // fixed time saw only 10.
    await new Promise((r) => setTimeout(r, 700));
    expect(await waitFor(() => acknowledged >= 20, 30_000)).toBe(true);
    await killHard(primary);
    stop = true;
    await Promise.all(writers);
    await shipper.close(); // what it shipped before the crash is all the replica has: no last copy
    expect(acknowledged).toBeGreaterThan(10);

    // The replica goes on answering reads; writes now fail with 503 (the primary is gone).
    expect((await viaReplica.get('/pages/eng/w0-0')).status).toBe(200);
    const refused = await viaReplica.put('/pages/eng/x', { title: 'X', content: 'x' });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).not.toBeNull();
    await stopProcess(replica.proc, 'SIGTERM');

    // What the replica's copy holds: the events of every replicated commit.
    const copy = new Database(path.join(rDir, 'kspace.db'), { readonly: true });
    const events = (
      copy.prepare("SELECT payload FROM events WHERE event IN ('page.created', 'page.updated')").all() as Array<{ payload: string }>
    ).map((e) => JSON.parse(e.payload) as { page: { path: string; version: number } });
    const before = copy.prepare('SELECT id, body FROM webhook_deliveries').all() as Array<{ id: string; body: Buffer }>;
    copy.close();
    expect(events.length).toBeGreaterThan(5);

    // Promoted: the same data directory, role primary.
    const promoted = await startChildServer(rDir, env);
    children.push(promoted);
    const key = (d: { page: { path: string; version: number } }) => `${d.page.path}@${d.page.version}`;
    await rx!.waitFor(() => {
      const got = new Set(rx!.on('/fo').map((r) => key(JSON.parse(r.body.toString()) as Delivery)));
      return events.every((e) => got.has(key(e)));
    }, 20_000);
    // One id per event, whoever sent it: the old primary before the crash, the promoted one after.
    const received = rx!.on('/fo').map((r) => JSON.parse(r.body.toString()) as Delivery);
    const idsOf = new Map<string, Set<string>>();
    for (const d of received) idsOf.set(key(d), (idsOf.get(key(d)) ?? new Set()).add(d.id));
    for (const [, ids] of idsOf) expect(ids.size).toBe(1);
    // Deliveries the old primary had made before the last copy keep their ids in the new one.
    for (const b of before) {
      const ids = idsOf.get(key(JSON.parse(b.body.toString()) as Delivery));
      if (ids) expect([...ids]).toEqual([b.id]);
    }

    // The promoted server takes writes and delivers each new event exactly once: one dispatcher.
    const now = client(promoted.url, ADMIN_KEY);
    const ready = await now.get('/readyz');
    expect(ready.body).toMatchObject({ status: 'ready', role: 'primary', checks: { dispatcher: 'ok' } });
    for (let i = 0; i < 5; i++) expect((await now.put(`/pages/eng/after-${i}`, { title: 'After', content: 'x' })).status).toBe(201);
    await rx!.waitFor(() => rx!.on('/fo').filter((r) => r.body.toString().includes('"after-')).length >= 5);
    await new Promise((r) => setTimeout(r, 400));
    expect(rx!.on('/fo').filter((r) => r.body.toString().includes('"after-')).length).toBe(5);
  }, 60_000);
});
