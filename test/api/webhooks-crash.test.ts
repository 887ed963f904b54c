// Crash safety: SIGKILL the server while deliveries are pending (some attempted and waiting for a
// retry, some perhaps not yet drained from the outbox), restart it on the same data dir, and
// every delivery arrives, each under the one delivery id it had before the crash.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startChildServer, killHard, type ChildServer } from '../support/child-server.ts';
import { startReceiver, verifySignatures, type Receiver } from '../support/receiver.ts';
import { ADMIN_KEY, client } from '../support/server.ts';

const ENV = {
  SERVICE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY,
  SERVICE_SETTINGS_ENCRYPTION_KEY: 'crash-test-settings-key-0123456789abcdef',
  SERVICE_WEBHOOKS_ALLOW_HTTP: '1',
  SERVICE_WEBHOOKS_ALLOW_PRIVATE_URLS: '1',
  SERVICE_WEBHOOKS_RETRY_DELAYS: '0.2',
  SERVICE_WEBHOOKS_MAX_RETRIES: '50',
};
const PAGES = 40;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-crash-'));
let child: ChildServer | null = null;
let rx: Receiver | null = null;
afterAll(async () => {
  if (child) await killHard(child);
  await rx?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it('loses no delivery across a SIGKILL and keeps each delivery id', { timeout: 60_000 }, async () => {
  rx = await startReceiver();
  let up = false; // the receiver fails everything until the server has been killed
  const delivered = new Set<string>();
  rx.reply = (req) => {
    if (!up) return { status: 500 };
    delivered.add(String(req.headers['x-service-delivery']));
    return { status: 200 };
  };

  child = await startChildServer(dataDir, ENV);
  let api = client(child.url, ADMIN_KEY);
  expect((await api.post('/spaces', { slug: 'crash', name: 'Crash' })).status).toBe(201);
  const secrets = new Map<string, string>();
  const hookIds: string[] = [];
  for (const [p, extra] of [
    ['/all', {}],
    ['/crash-only', { spaceSlug: 'crash' }],
  ] as const) {
    const w = await api.post('/admin/webhooks', { url: rx.url(p), events: ['page.created'], ...extra });
    expect(w.status).toBe(201);
    secrets.set(p, w.body.secret);
    hookIds.push(w.body.id);
  }
  await Promise.all(Array.from({ length: PAGES }, (_, i) => api.put(`/pages/crash/p${i}`, { title: `P${i}` })));
  // Kill once some failed attempts are logged (so deliveries wait for a retry in the table)
  // while others are still in flight.
  let loggedBefore: any[] = [];
  for (let i = 0; i < 200 && loggedBefore.length === 0; i++) {
    await new Promise((res) => setTimeout(res, 10));
    loggedBefore = (await api.get(`/admin/webhooks/${hookIds[0]}/deliveries?limit=200`)).body.deliveries;
  }
  expect(loggedBefore.some((e) => e.outcome === 'retrying')).toBe(true);
  const seenBefore = rx.received.length;
  await killHard(child);
  child = null;

  const idsBefore = new Map<string, string>(); // delivery id → "path|page"
  for (const r of rx.received) idsBefore.set(String(r.headers['x-service-delivery']), key(r));

  up = true;
  child = await startChildServer(dataDir, ENV);
  api = client(child.url, ADMIN_KEY);
  await rx.waitFor(() => delivered.size >= PAGES * 2, 30_000);

  // Every (subscription, page) pair delivered, under exactly one delivery id.
  const idsByPair = new Map<string, Set<string>>();
  for (const r of rx.received) {
    const k = key(r);
    if (!idsByPair.has(k)) idsByPair.set(k, new Set());
    idsByPair.get(k)!.add(String(r.headers['x-service-delivery']));
    expect(verifySignatures(secrets.get(r.path)!, r).service).toBe(true);
  }
  expect(idsByPair.size).toBe(PAGES * 2);
  for (const [pair, ids] of idsByPair) expect(ids.size, pair).toBe(1);
  for (const [id, pair] of idsBefore) expect(idsByPair.get(pair)).toEqual(new Set([id]));
  expect(delivered.size).toBe(PAGES * 2);
  expect(seenBefore).toBeGreaterThan(0);

  // The delivery log spans both processes: the attempts logged before the kill are still there.
  await new Promise((res) => setTimeout(res, 100));
  const log = (await api.get(`/admin/webhooks/${hookIds[0]}/deliveries?limit=200`)).body.deliveries as any[];
  for (const e of loggedBefore) expect(log).toContainEqual(e);
  expect(new Set(log.filter((e) => e.outcome === 'delivered').map((e) => e.id)).size).toBe(PAGES);
});

function key(r: { path: string; body: Buffer }): string {
  return `${r.path}|${JSON.parse(r.body.toString()).page.path}`;
}
