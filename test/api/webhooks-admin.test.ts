// Subscriptions: shapes, validation at create and PATCH, org-admin only, 503 without the key, and
// the secret never stored in clear.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAgent, startServer, type Client, type TestServer } from '../support/server.ts';

const KEY = 'admin-test-settings-key-0123456789abcdef';
let srv: TestServer;
let member: Client;
beforeAll(async () => {
  srv = await startServer({ SERVICE_SETTINGS_ENCRYPTION_KEY: KEY });
  expect((await srv.admin.post('/spaces', { slug: 'docs', name: 'Docs' })).status).toBe(201);
  member = await newAgent(srv, 'member');
});
afterAll(() => srv.close());

const HOOK = 'https://hooks.example.com/kspace';

describe('create, read, update, delete', () => {
  it('creates with 201 and the secret once; GET never shows it', async () => {
    const r = await srv.admin.post('/admin/webhooks', {
      url: HOOK,
      events: ['page.created', 'page.updated'],
      spaceSlug: 'docs',
      description: 'CI',
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      url: HOOK,
      events: ['page.created', 'page.updated'],
      spaceSlug: 'docs',
      description: 'CI',
      enabled: true,
    });
    expect(r.body.id).toMatch(/^wh_/);
    expect(r.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(r.body.secret.slice(6), 'base64')).toHaveLength(32);

    const list = await srv.admin.get('/admin/webhooks');
    expect(list.status).toBe(200);
    const mine = list.body.find((w: any) => w.id === r.body.id);
    expect(mine).toMatchObject({ url: HOOK, spaceSlug: 'docs', enabled: true });
    expect(list.text).not.toContain(r.body.secret);
    expect(list.text).not.toContain('secret');
    const one = await srv.admin.get(`/admin/webhooks/${r.body.id}`);
    expect(one.body.secret).toBeUndefined();
  });

  it('omits spaceSlug and description when not set', async () => {
    const r = await srv.admin.post('/admin/webhooks', { url: HOOK, events: ['page.deleted'] });
    expect(r.status).toBe(201);
    expect('spaceSlug' in r.body).toBe(false);
    expect('description' in r.body).toBe(false);
  });

  it('PATCH changes url, events, space filter, enabled and description; null clears', async () => {
    const { body: w } = await srv.admin.post('/admin/webhooks', { url: HOOK, events: ['page.created'], spaceSlug: 'docs' });
    const r = await srv.admin.patch(`/admin/webhooks/${w.id}`, {
      url: 'https://other.example.org/h',
      events: ['page.deleted', 'page.deleted'],
      enabled: false,
      description: 'd',
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: w.id,
      url: 'https://other.example.org/h',
      events: ['page.deleted'],
      spaceSlug: 'docs',
      enabled: false,
      description: 'd',
    });
    expect(r.body.secret).toBeUndefined();
    const cleared = await srv.admin.patch(`/admin/webhooks/${w.id}`, { spaceSlug: null, description: null });
    expect('spaceSlug' in cleared.body).toBe(false);
    expect('description' in cleared.body).toBe(false);
    expect(cleared.body.enabled).toBe(false);
  });

  it('DELETE removes the subscription: 204, then 404', async () => {
    const { body: w } = await srv.admin.post('/admin/webhooks', { url: HOOK, events: ['page.created'] });
    expect((await srv.admin.del(`/admin/webhooks/${w.id}`)).status).toBe(204);
    expect((await srv.admin.get(`/admin/webhooks/${w.id}`)).status).toBe(404);
    expect((await srv.admin.del(`/admin/webhooks/${w.id}`)).status).toBe(404);
    expect((await srv.admin.patch(`/admin/webhooks/${w.id}`, { enabled: true })).status).toBe(404);
    expect((await srv.admin.post(`/admin/webhooks/${w.id}/rotate-secret`)).status).toBe(404);
    expect((await srv.admin.post(`/admin/webhooks/${w.id}/test`)).status).toBe(404);
    expect((await srv.admin.get(`/admin/webhooks/${w.id}/deliveries`)).status).toBe(404);
  });
});

describe('org admins only', () => {
  it('answers 403 to a member on every route, 401 without a key', async () => {
    const { body: w } = await srv.admin.post('/admin/webhooks', { url: HOOK, events: ['page.created'] });
    const calls: Array<[string, string, unknown?]> = [
      ['GET', '/admin/webhooks'],
      ['POST', '/admin/webhooks', { url: HOOK, events: ['page.created'] }],
      ['POST', '/admin/webhooks', { nonsense: true }],
      ['GET', `/admin/webhooks/${w.id}`],
      ['PATCH', `/admin/webhooks/${w.id}`, { enabled: false }],
      ['DELETE', `/admin/webhooks/${w.id}`],
      ['POST', `/admin/webhooks/${w.id}/rotate-secret`],
      ['POST', `/admin/webhooks/${w.id}/test`],
      ['GET', `/admin/webhooks/${w.id}/deliveries`],
    ];
    for (const [method, p, body] of calls) {
      const r = await member.req(method, p, body);
      expect(r.status, `${method} ${p}`).toBe(403);
      expect(r.body.code).toBe('forbidden');
      const anon = await fetch(srv.url + p, { method });
      expect(anon.status).toBe(401);
    }
    expect((await srv.admin.get(`/admin/webhooks/${w.id}`)).body.enabled).toBe(true);
  });
});

describe('validation: 400 with issues at create and at PATCH', () => {
  const bad: Array<[string, Record<string, unknown>, string, string]> = [
    ['unknown event', { events: ['page.created', 'page.exploded'] }, 'events.1', 'option'],
    ['no events', { events: [] }, 'events', 'min'],
    ['http without opt-in', { url: 'http://hooks.example.com/x' }, 'url', 'scheme'],
    ['not a URL', { url: 'hooks.example.com' }, 'url', 'format'],
    ['ftp', { url: 'ftp://hooks.example.com/' }, 'url', 'format'],
    ['credentials in the URL', { url: 'https://u:p@hooks.example.com/' }, 'url', 'format'],
    ['decimal loopback', { url: 'https://2130706433/' }, 'url', 'address'],
    ['hex short loopback', { url: 'https://0x7f.1/' }, 'url', 'address'],
    ['octal loopback', { url: 'https://0177.0.0.1/' }, 'url', 'address'],
    ['v4-mapped loopback', { url: 'https://[::ffff:127.0.0.1]/' }, 'url', 'address'],
    ['IPv6 loopback', { url: 'https://[::1]/' }, 'url', 'address'],
    ['metadata address', { url: 'https://169.254.169.254/latest' }, 'url', 'address'],
    ['CGNAT', { url: 'https://100.64.0.1/' }, 'url', 'address'],
    ['unspecified', { url: 'https://0.0.0.0/' }, 'url', 'address'],
    ['private 10/8', { url: 'https://10.1.2.3:8443/' }, 'url', 'address'],
    ['IPv6 unique-local', { url: 'https://[fd00::1]/' }, 'url', 'address'],
    ['unknown space', { spaceSlug: 'nope' }, 'spaceSlug', 'option'],
    ['personal space', { spaceSlug: '~admin' }, 'spaceSlug', 'option'],
    ['events not a list', { events: 'page.created' }, 'events', 'type'],
    ['url not a string', { url: 5 }, 'url', 'type'],
  ];

  it.each(bad)('create: %s', async (_name, change, key, code) => {
    const before = (await srv.admin.get('/admin/webhooks')).body.length;
    const r = await srv.admin.post('/admin/webhooks', { url: HOOK, events: ['page.created'], ...change });
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toBe('application/problem+json');
    expect(r.body.issues).toContainEqual(expect.objectContaining({ key, code }));
    expect((await srv.admin.get('/admin/webhooks')).body.length).toBe(before);
  });

  it.each(bad)('PATCH: %s', async (_name, change, key, code) => {
    const { body: w } = await srv.admin.post('/admin/webhooks', { url: HOOK, events: ['page.created'] });
    const r = await srv.admin.patch(`/admin/webhooks/${w.id}`, change);
    expect(r.status).toBe(400);
    expect(r.body.issues).toContainEqual(expect.objectContaining({ key, code }));
    const after = await srv.admin.get(`/admin/webhooks/${w.id}`);
    expect(after.body).toMatchObject({ url: HOOK, events: ['page.created'] });
    expect('spaceSlug' in after.body).toBe(false);
  });

  it('refuses unknown fields and a malformed body', async () => {
    expect((await srv.admin.post('/admin/webhooks', { url: HOOK, events: ['page.created'], secret: 'mine' })).status).toBe(400);
    expect((await srv.admin.req('POST', '/admin/webhooks', '{', { 'content-type': 'application/json' })).status).toBe(400);
    expect((await srv.admin.req('POST', '/admin/webhooks', 'x', { 'content-type': 'text/plain' })).status).toBe(415);
  });

  it('accepts a public IP literal and a hostname (resolved only at delivery)', async () => {
    for (const url of ['https://8.8.8.8/h', 'https://[2606:4700:4700::1111]/h', 'https://localhost.example/h']) {
      expect((await srv.admin.post('/admin/webhooks', { url, events: ['page.created'] })).status).toBe(201);
    }
  });
});

describe('secret at rest', () => {
  it('never writes the secret in clear to the database file or its WAL', async () => {
    const created = await srv.admin.post('/admin/webhooks', { url: HOOK, events: ['page.created'] });
    const rotated = await srv.admin.post(`/admin/webhooks/${created.body.id}/rotate-secret`);
    for (const secret of [created.body.secret, rotated.body.secret]) {
      const raw = Buffer.from(secret.slice('whsec_'.length), 'base64');
      const b64 = secret.slice('whsec_'.length);
      for (const file of ['kspace.db', 'kspace.db-wal']) {
        const bytes = fs.readFileSync(path.join(srv.dataDir, file));
        expect(bytes.length).toBeGreaterThan(0);
        expect(bytes.includes(Buffer.from(secret)), file).toBe(false);
        expect(bytes.includes(Buffer.from(b64)), file).toBe(false);
        expect(bytes.includes(raw), file).toBe(false);
      }
    }
    // The sealed value is there (the check above looked at the right files).
    const row = srv.svc.db.prepare('SELECT secret FROM webhooks WHERE id = ?').get(created.body.id) as { secret: Buffer };
    const files = Buffer.concat(['kspace.db', 'kspace.db-wal'].map((f) => fs.readFileSync(path.join(srv.dataDir, f))));
    expect(Buffer.isBuffer(row.secret)).toBe(true);
    expect(files.includes(row.secret)).toBe(true);
  });
});

describe('without SERVICE_SETTINGS_ENCRYPTION_KEY', () => {
  it('answers 503 not_configured to create and rotate, and stores nothing', async () => {
    const bare = await startServer();
    try {
      const r = await bare.admin.post('/admin/webhooks', { url: HOOK, events: ['page.created'] });
      expect(r.status).toBe(503);
      expect(r.body.code).toBe('not_configured');
      expect(r.body.detail).toContain('SERVICE_SETTINGS_ENCRYPTION_KEY');
      expect((await bare.admin.get('/admin/webhooks')).body).toEqual([]);
      const count = bare.svc.db.prepare('SELECT COUNT(*) AS n FROM webhooks').get() as { n: number };
      expect(count.n).toBe(0);
      // A subscription made while the key was set cannot be rotated once it is gone.
      bare.svc.config.encryptionKey = KEY;
      const made = await bare.admin.post('/admin/webhooks', { url: HOOK, events: ['page.created'] });
      expect(made.status).toBe(201);
      bare.svc.config.encryptionKey = undefined;
      const rot = await bare.admin.post(`/admin/webhooks/${made.body.id}/rotate-secret`);
      expect(rot.status).toBe(503);
      expect(rot.body.code).toBe('not_configured');
      expect((await bare.admin.patch(`/admin/webhooks/${made.body.id}`, { enabled: false })).status).toBe(200);
    } finally {
      await bare.close();
    }
  });
});
