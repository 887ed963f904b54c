// The address guard at delivery time: a hostname that resolves to a guarded address is blocked,
// logged once as `blocked`, never retried, and no connection is ever made.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { startServer, type TestServer } from '../support/server.ts';

let srv: TestServer;
let rx: Receiver;
beforeAll(async () => {
  srv = await startServer({
    SERVICE_SETTINGS_ENCRYPTION_KEY: 'guard-test-settings-key-0123456789abcdef',
    SERVICE_WEBHOOKS_ALLOW_HTTP: '1', // the guard stays on
    SERVICE_WEBHOOKS_RETRY_DELAYS: '0.05,0.05,0.05',
  });
  rx = await startReceiver();
  await srv.admin.post('/spaces', { slug: 'g', name: 'G' });
});
afterAll(async () => {
  await srv.close();
  await rx.close();
});

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

it('blocks localhost (resolves to 127.0.0.1) at delivery: 1 attempt, no retry, 0 connections', async () => {
  const w = await srv.admin.post('/admin/webhooks', { url: `http://localhost:${rx.port}/hook`, events: ['page.created'] });
  expect(w.status).toBe(201); // a hostname is not resolved at create time
  await srv.admin.put('/pages/g/a', { title: 'A' });
  let log: any[] = [];
  for (let i = 0; i < 500 && log.length === 0; i++) {
    await sleep(20);
    log = (await srv.admin.get(`/admin/webhooks/${w.body.id}/deliveries`)).body.deliveries;
  }
  await sleep(400); // three retry delays would have passed
  log = (await srv.admin.get(`/admin/webhooks/${w.body.id}/deliveries`)).body.deliveries;
  expect(log).toHaveLength(1);
  expect(log[0]).toMatchObject({ event: 'page.created', attempt: 1, outcome: 'blocked' });
  expect(log[0].status).toBeUndefined();
  expect(log[0].error).toMatch(/blocked by the address guard: .* is loopback/);

  const test = await srv.admin.post(`/admin/webhooks/${w.body.id}/test`);
  expect(test.body).toMatchObject({ outcome: 'blocked' });
  expect(rx.connections()).toBe(0);
  expect(rx.received).toHaveLength(0);
});

it('still refuses a guarded literal at create, even with http allowed', async () => {
  const r = await srv.admin.post('/admin/webhooks', { url: `http://127.0.0.1:${rx.port}/hook`, events: ['page.created'] });
  expect(r.status).toBe(400);
  expect(r.body.issues[0]).toMatchObject({ key: 'url', code: 'address' });
});
