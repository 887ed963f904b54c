import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/services.ts';
import { startChildServer } from '../support/child-server.ts';
import { ADMIN_KEY, client, startServer, type TestServer } from '../support/server.ts';
import { stopProcess } from '../../scripts/lib/child-server.ts';
import { useServer } from '../support/fixture.ts';

describe('health and readiness', () => {
  // Over the port: /healthz and /readyz are answered as a load balancer meets them.
  const { srv } = useServer({ env: { SERVICE_READY_MAX_INDEX_BACKLOG: '3' }, transport: 'port' });

  it('/healthz answers 200 without a key and without details', async () => {
    const r = await client(srv.url).get('/healthz');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok' });
  });

  it('/readyz answers 200 with its checks and role primary', async () => {
    const r = await client(srv.url).get('/readyz');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      status: 'ready',
      role: 'primary',
      txid: expect.any(Number),
      checks: { database: 'ok', migrations: 'ok', fullTextIndex: { backlog: 0, max: 3 }, dispatcher: 'ok' },
    });
  });

  it('/readyz turns 503 with a reason while the full-text index is past its bound, and 200 once it catches up', async () => {
    await srv.admin.post('/spaces', { slug: 'r', name: 'R' });
    // The test server has no helper process: nothing indexes until a search asks for it.
    for (let i = 0; i < 5; i++)
      expect((await srv.admin.put(`/pages/r/p${i}`, { title: `P${i}`, content: 'lagging words' })).status).toBe(201);
    const behind = await client(srv.url).get('/readyz');
    expect(behind.status).toBe(503);
    expect(behind.headers.get('content-type')).toBe('application/problem+json');
    expect(behind.body).toMatchObject({
      status: 503,
      code: 'not_ready',
      role: 'primary',
      detail: 'the full-text index is 5 page writes behind (more than 3)',
      checks: { fullTextIndex: { backlog: 5, max: 3 }, database: 'ok' },
    });
    expect((await srv.admin.get('/search?q=lagging')).body.hits ?? []).toBeDefined();
    const caught = await client(srv.url).get('/readyz');
    expect(caught.status).toBe(200);
  });

  it('/readyz turns 503 once the webhook dispatcher has stopped', async () => {
    const other = await startServer();
    const { createWebhookDispatcher } = await import('../../src/domain/webhooks/dispatcher.ts');
    // Stopping a second dispatcher over the same services takes the running one's place in the registry.
    const d = createWebhookDispatcher(other.svc);
    d.start();
    await d.stop();
    const r = await client(other.url).get('/readyz');
    await other.close();
    expect(r.status).toBe(503);
    expect(r.body.detail).toBe('the webhook dispatcher is not running');
  });
});

describe('request log lines', () => {
  let running: TestServer;
  let dataDir: string;
  const lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }> = [];
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-log-'));
    const log: Logger = {
      info: (msg, fields = {}) => lines.push({ level: 'info', msg, fields }),
      warn: (msg, fields = {}) => lines.push({ level: 'warn', msg, fields }),
      error: (msg, fields = {}) => lines.push({ level: 'error', msg, fields }),
    };
    running = await startServer({ SERVICE_LOG_SLOW_MS: '100000' }, { dataDir, keepData: true, log });
  });
  afterAll(async () => {
    await running.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const requests = () => lines.filter((l) => l.msg === 'request' || l.msg === 'slow request');

  it('carry id, principal, method, route pattern, status, duration and bytes; the id is answered as X-Request-Id', async () => {
    const admin = client(running.url, ADMIN_KEY);
    await admin.post('/spaces', { slug: 'logs', name: 'Logs' });
    const put = await admin.put('/pages/logs/deep/name', { title: 'T', content: 'x' });
    const me = await admin.get('/me');
    await new Promise((r) => setTimeout(r, 20));
    const line = requests().find((l) => l.fields.id === put.headers.get('x-request-id'))!;
    expect(line).toMatchObject({
      level: 'info',
      fields: { principal: me.body.id, method: 'PUT', route: '/pages/**', status: 201, bytes: expect.any(Number), ms: expect.any(Number) },
    });
    expect(line.fields.bytes as number).toBeGreaterThan(Number(put.headers.get('content-length')));
    const anonymous = await client(running.url).get('/nothing/here');
    await new Promise((r) => setTimeout(r, 20));
    expect(requests().find((l) => l.fields.id === anonymous.headers.get('x-request-id'))!.fields).toMatchObject({
      principal: null,
      route: '/**',
      status: 404,
    });
  });

  it('ignore a client X-Request-Id unless SERVICE_TRUST_PROXY=1', async () => {
    const r = await client(running.url, ADMIN_KEY).get('/me', { 'x-request-id': 'from-the-client' });
    expect(r.headers.get('x-request-id')).not.toBe('from-the-client');
    const trusted = await startServer({ SERVICE_TRUST_PROXY: '1' });
    const t = await trusted.admin.get('/me', { 'x-request-id': 'proxy-id-42' });
    const bad = await trusted.admin.get('/me', { 'x-request-id': 'has spaces and\ttabs' });
    await trusted.close();
    expect(t.headers.get('x-request-id')).toBe('proxy-id-42');
    expect(bad.headers.get('x-request-id')).not.toContain('spaces');
  });

  it('go to warn with their cost past SERVICE_LOG_SLOW_MS, and so do write transactions past SERVICE_LOG_SLOW_QUERY_MS', async () => {
    const seen: Array<{ msg: string; fields?: Record<string, unknown> }> = [];
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-log-'));
    const log: Logger = { info() {}, warn: (msg, fields) => seen.push({ msg, fields }), error() {} };
    const slow = await startServer({ SERVICE_LOG_SLOW_MS: '0', SERVICE_LOG_SLOW_QUERY_MS: '0' }, { dataDir: dir, keepData: true, log });
    await client(slow.url, ADMIN_KEY).get('/me');
    await client(slow.url, ADMIN_KEY).post('/spaces', { slug: 's', name: 'S' });
    await client(slow.url, ADMIN_KEY).put('/pages/s/a', { title: 'A', content: 'a' });
    await slow.close();
    fs.rmSync(dir, { recursive: true, force: true });
    expect(seen).toContainEqual({
      msg: 'slow request',
      fields: expect.objectContaining({ route: '/me', status: 200, ms: expect.any(Number) }),
    });
    expect(seen).toContainEqual({ msg: 'slow write transaction', fields: { ms: expect.any(Number), writes: 1 } });
  });
});

describe('the log of kspace serve', () => {
  it('is JSON lines off a terminal, and holds no key, secret, password, cookie, page name or page text', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-log-'));
    const child = await startChildServer(dataDir, {
      SERVICE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY,
      SERVICE_SETTINGS_ENCRYPTION_KEY: 'k'.repeat(40),
      SERVICE_LOG_FORMAT: '',
      SERVICE_LOG_LEVEL: '',
    });
    const secrets = [ADMIN_KEY, 'zebracornflakes', 'hushhush-page-name', 'correct horse battery staple', 'sessioncookievalue'];
    try {
      const admin = client(child.url, ADMIN_KEY);
      await admin.post('/spaces', { slug: 'vault', name: 'Vault' });
      await admin.put('/pages/vault/hushhush-page-name', {
        title: 'zebracornflakes title',
        content: 'the zebracornflakes plan',
        metadata: { code: 'zebracornflakes' },
      });
      await admin.get('/pages/vault/hushhush-page-name');
      await admin.get('/search?q=zebracornflakes');
      const p = await admin.post('/admin/principals', { name: 'bot', kind: 'agent' });
      const k = await admin.post(`/admin/principals/${p.body.id}/keys`);
      secrets.push(k.body.key);
      await client(child.url, k.body.key).get('/me');
      await admin.post('/admin/principals', { name: 'alice', kind: 'user', password: 'correct horse battery staple' });
      const w = await admin.post('/admin/webhooks', { url: 'https://hooks.example.org/x', events: ['page.created'] });
      secrets.push(w.body.secret);
      const rotated = await admin.post(`/admin/webhooks/${w.body.id}/rotate-secret`);
      if (rotated.body?.secret) secrets.push(rotated.body.secret);
      await client(child.url, 'ks_wrong_key_zebracornflakes').get('/me');
      await client(child.url).get('/me', { cookie: 'ks_session=sessioncookievalue' });
      await admin.put('/pages/vault/hushhush-page-name', { title: 'bad', content: 5 }); // a 400 naming the field
    } finally {
      const drained = new Promise((r) => child.proc.stderr!.once('close', r));
      await stopProcess(child.proc, 'SIGTERM');
      await drained; // the last lines may arrive after 'exit'
    }
    const log = child.stderr();
    fs.rmSync(dataDir, { recursive: true, force: true });
    const lines = log.trim().split('\n');
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed.filter((l) => l.msg === 'request' || l.msg === 'slow request').map((l) => `${l.method} ${l.route} ${l.status}`)).toEqual([
      'POST /spaces 201',
      'PUT /pages/** 201',
      'GET /pages/** 200',
      'GET /search 200',
      'POST /admin/principals 201',
      'POST /admin/principals/:id/keys 201',
      'GET /me 200',
      'POST /admin/principals 201',
      'POST /admin/webhooks 201',
      'POST /admin/webhooks/:id/rotate-secret 200',
      'GET /me 401',
      'GET /me 401',
      'PUT /pages/** 400',
    ]);
    for (const l of parsed)
      expect(l).toMatchObject({ time: expect.stringMatching(/Z$/), level: expect.any(String), msg: expect.any(String) });
    for (const s of secrets) expect([s, log.includes(s)]).toEqual([s, false]);
    expect(parsed.find((l) => String(l.msg).startsWith('kspace listening on'))!.msg).toBe(
      `kspace listening on ${child.url} with data directory ${dataDir}`,
    );
  }, 60_000);
});
