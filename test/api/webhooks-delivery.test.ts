// Deliveries against a real receiver on 127.0.0.1 (guard off for it, http allowed, short retries).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, verifySignatures, type Receiver } from '../support/receiver.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { insertDelivery, pruneDeliveries } from '../../src/store/deliveries.ts';
import { pruneEvents } from '../../src/store/events.ts';

const ENV = {
  SERVICE_SETTINGS_ENCRYPTION_KEY: 'test-settings-key-0123456789abcdef-xyz',
  SERVICE_WEBHOOKS_ALLOW_HTTP: '1',
  SERVICE_WEBHOOKS_ALLOW_PRIVATE_URLS: '1',
  SERVICE_WEBHOOKS_RETRY_DELAYS: '0.05,0.1,0.15',
  SERVICE_WEBHOOKS_TIMEOUT_MS: '300',
};
const PAGE_EVENTS = ['page.created', 'page.updated', 'page.deleted', 'page.metadata.updated'];

let srv: TestServer;
let rx: Receiver;
beforeAll(async () => {
  srv = await startServer(ENV);
  rx = await startReceiver();
  for (const slug of ['ev', 'retry', 'rot', 'fa', 'fb']) {
    expect((await srv.admin.post('/spaces', { slug, name: slug })).status).toBe(201);
  }
});
afterEach(async () => {
  for (const w of (await srv.admin.get('/admin/webhooks')).body) await srv.admin.del(`/admin/webhooks/${w.id}`);
  rx.reply = () => ({ status: 200 });
});
afterAll(async () => {
  await srv.close();
  await rx.close();
});

async function subscribe(path: string, body: Record<string, unknown> = {}) {
  const r = await srv.admin.post('/admin/webhooks', { url: rx.url(path), events: PAGE_EVENTS, ...body });
  expect(r.status).toBe(201);
  return r.body as { id: string; secret: string };
}

async function log(id: string): Promise<any[]> {
  const r = await srv.admin.get(`/admin/webhooks/${id}/deliveries`);
  expect(r.status).toBe(200);
  return r.body.deliveries;
}

/**
 * The delivery log once it holds `n` entries: the receiver sees a request before the server has
 * read the answer and logged the attempt, so a log read right after `rx.waitFor` can be one short.
 */
async function logOf(id: string, n: number): Promise<any[]> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const entries = await log(id);
    if (entries.length >= n || Date.now() > deadline) return entries;
    await sleep(10);
  }
}

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

describe('payload and headers', () => {
  it('delivers each page event, signed twice over the bytes received', async () => {
    const wh = await subscribe('/ev', { spaceSlug: 'ev' });
    expect((await srv.admin.put('/pages/ev/a/b', { title: 'AB', content: 'x' })).status).toBe(201);
    expect((await srv.admin.put('/pages/ev/a/b', { title: 'AB2', content: 'y' })).status).toBe(200);
    expect((await srv.admin.patch('/pages/ev/a/b/metadata', { set: { stage: 'done', n: 3 } })).status).toBe(200);
    expect((await srv.admin.del('/pages/ev/a/b')).status).toBe(204);
    await rx.waitFor(() => rx.on('/ev').length === 4);

    const me = (await srv.admin.get('/me')).body;
    const byEvent = new Map(rx.on('/ev').map((r) => [r.headers['x-service-event'], r]));
    expect([...byEvent.keys()].sort()).toEqual([...PAGE_EVENTS].sort());
    const expected: Record<string, { title: string; version: number }> = {
      'page.created': { title: 'AB', version: 1 },
      'page.updated': { title: 'AB2', version: 2 },
      'page.metadata.updated': { title: 'AB2', version: 3 },
      'page.deleted': { title: 'AB2', version: 3 },
    };
    for (const [event, rec] of byEvent) {
      const body = JSON.parse(rec.body.toString('utf8'));
      expect(Object.keys(body)).toEqual([
        'id',
        'event',
        'occurredAt',
        'actor',
        'page',
        ...(event === 'page.metadata.updated' ? ['changedKeys'] : []),
      ]);
      expect(body).toMatchObject({
        event,
        actor: { id: me.id, kind: 'agent' },
        page: { path: 'a/b', space: 'ev', ...expected[String(event)] },
      });
      expect(body.occurredAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      if (event === 'page.metadata.updated') expect(body.changedKeys.sort()).toEqual(['n', 'stage']);
      expect(rec.headers['content-type']).toBe('application/json');
      expect(rec.headers['x-service-delivery']).toBe(body.id);
      expect(rec.headers['webhook-id']).toBe(body.id);
      expect(rec.headers['x-service-webhook']).toBe(wh.id);
      expect(rec.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(rec.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(Math.abs(Number(rec.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      expect(verifySignatures(wh.secret, rec)).toEqual({ service: true, standard: true });
      // A changed byte no longer verifies.
      const tampered = { ...rec, body: Buffer.concat([rec.body, Buffer.from(' ')]) };
      expect(verifySignatures(wh.secret, tampered)).toEqual({ service: false, standard: false });
    }
    const entries = await logOf(wh.id, 4);
    expect(entries).toHaveLength(4);
    for (const e of entries) expect(e).toMatchObject({ attempt: 1, outcome: 'delivered', status: 200 });
  });
});

describe('retries', () => {
  it('500, 500, 500, 200: one delivery id, four attempts logged, on the retry schedule', async () => {
    rx.reply = (_req, n) => ({ status: n < 3 ? 500 : 200 });
    const wh = await subscribe('/r1', { spaceSlug: 'retry' });
    await srv.admin.put('/pages/retry/one', { title: 'One' });
    await rx.waitFor(() => rx.on('/r1').length === 4);
    const got = rx.on('/r1');
    expect(new Set(got.map((r) => r.headers['x-service-delivery'])).size).toBe(1);
    expect(new Set(got.map((r) => r.body.toString())).size).toBe(1); // the same bytes every time
    for (const r of got) expect(verifySignatures(wh.secret, r).service).toBe(true);
    const gaps = got.slice(1).map((r, i) => r.at - got[i].at);
    expect(gaps[0]).toBeGreaterThanOrEqual(45);
    expect(gaps[1]).toBeGreaterThanOrEqual(95);
    expect(gaps[2]).toBeGreaterThanOrEqual(145);
    const entries = await logOf(wh.id, 4);
    expect(entries.map((e) => [e.attempt, e.outcome, e.status])).toEqual([
      [4, 'delivered', 200],
      [3, 'retrying', 500],
      [2, 'retrying', 500],
      [1, 'retrying', 500],
    ]);
    expect(new Set(entries.map((e) => e.id))).toEqual(new Set([got[0].headers['x-service-delivery']]));
    expect(entries[1].error).toBe('HTTP 500');
    for (const e of entries) expect(e.event).toBe('page.created');
  });

  it('4 x 500: exhausted after 1 + 3 retries, no 5th attempt', async () => {
    rx.reply = () => ({ status: 500 });
    const wh = await subscribe('/r2', { spaceSlug: 'retry' });
    await srv.admin.put('/pages/retry/two', { title: 'Two' });
    await rx.waitFor(() => rx.on('/r2').length === 4);
    await sleep(600);
    expect(rx.on('/r2')).toHaveLength(4);
    const entries = await log(wh.id);
    expect(entries.map((e) => [e.attempt, e.outcome])).toEqual([
      [4, 'failed'],
      [3, 'retrying'],
      [2, 'retrying'],
      [1, 'retrying'],
    ]);
  });

  it('a timeout is a failure and is retried', async () => {
    rx.reply = (_req, n) => ({ status: 200, delayMs: n === 0 ? 1500 : 0 });
    const wh = await subscribe('/r3', { spaceSlug: 'retry' });
    await srv.admin.put('/pages/retry/three', { title: 'Three' });
    await rx.waitFor(() => rx.on('/r3').length === 2);
    const entries = await logOf(wh.id, 2);
    expect(entries.map((e) => [e.attempt, e.outcome])).toEqual([
      [2, 'delivered'],
      [1, 'retrying'],
    ]);
    expect(entries[1].status).toBeUndefined();
    expect(entries[1].error).toMatch(/timed out after 300 ms/);
    expect(entries[1].durationMs).toBeGreaterThanOrEqual(290);
  });

  it('a redirect is a failure and is not followed', async () => {
    rx.reply = (req) =>
      req.path === '/r4' && rx.on('/r4').length === 1 ? { status: 302, headers: { location: rx.url('/elsewhere') } } : { status: 200 };
    const wh = await subscribe('/r4', { spaceSlug: 'retry' });
    await srv.admin.put('/pages/retry/four', { title: 'Four' });
    await rx.waitFor(() => rx.on('/r4').length === 2);
    const entries = await logOf(wh.id, 2);
    expect(rx.on('/elsewhere')).toHaveLength(0);
    expect(entries.map((e) => [e.attempt, e.outcome, e.status])).toEqual([
      [2, 'delivered', 200],
      [1, 'retrying', 302],
    ]);
  });

  it('a refused connection is a failure with the socket error', async () => {
    const gone = await startReceiver();
    const url = gone.url('/gone');
    await gone.close();
    const r = await srv.admin.post('/admin/webhooks', { url, events: ['page.created'], spaceSlug: 'retry' });
    await srv.admin.put('/pages/retry/five', { title: 'Five' });
    for (let i = 0; i < 300 && (await log(r.body.id)).length < 4; i++) await sleep(50);
    const entries = await log(r.body.id);
    expect(entries.map((e) => e.outcome)).toEqual(['failed', 'retrying', 'retrying', 'retrying']);
    expect(entries[0].error).toMatch(/ECONNREFUSED/);
  });
});

describe('secrets and the test endpoint', () => {
  it('rotate-secret switches the signing key, for later attempts of pending deliveries too', async () => {
    rx.reply = (_req, n) => ({ status: n === 0 ? 500 : 200, delayMs: n === 0 ? 0 : 0 });
    const wh = await subscribe('/rot', { spaceSlug: 'rot', events: ['page.created'] });
    await srv.admin.put('/pages/rot/a', { title: 'A' });
    await rx.waitFor(() => rx.on('/rot').length === 2);
    expect(verifySignatures(wh.secret, rx.on('/rot')[1]).service).toBe(true);

    const rot = await srv.admin.post(`/admin/webhooks/${wh.id}/rotate-secret`);
    expect(rot.status).toBe(200);
    expect(rot.body).toMatchObject({ id: wh.id, events: ['page.created'], enabled: true });
    expect(rot.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rot.body.secret).not.toBe(wh.secret);
    await srv.admin.put('/pages/rot/b', { title: 'B' });
    await rx.waitFor(() => rx.on('/rot').length === 3);
    const last = rx.on('/rot')[2];
    expect(verifySignatures(rot.body.secret, last)).toEqual({ service: true, standard: true });
    expect(verifySignatures(wh.secret, last)).toEqual({ service: false, standard: false });
  });

  it('deliveries already queued follow a rotation, a disable and a delete', async () => {
    rx.reply = () => ({ status: 200, delayMs: 150 }); // 8 in flight per subscription, the rest queued
    const wh = await subscribe('/q', { spaceSlug: 'rot', events: ['page.updated'] });
    for (let i = 0; i < 20; i++) await srv.admin.put('/pages/rot/a', { title: `A${i}` });
    await rx.waitFor(() => rx.on('/q').length >= 1);
    const rot = await srv.admin.post(`/admin/webhooks/${wh.id}/rotate-secret`);
    await rx.waitFor(() => rx.on('/q').length === 20);
    const signedNew = rx.on('/q').filter((r) => verifySignatures(rot.body.secret, r).service).length;
    const signedOld = rx.on('/q').filter((r) => verifySignatures(wh.secret, r).service).length;
    expect(signedNew + signedOld).toBe(20);
    expect(signedOld).toBeLessThanOrEqual(8); // only those already in flight
    expect(signedNew).toBeGreaterThanOrEqual(12);

    for (let i = 0; i < 20; i++) await srv.admin.put('/pages/rot/a', { title: `B${i}` });
    await rx.waitFor(() => rx.on('/q').length >= 21);
    expect((await srv.admin.patch(`/admin/webhooks/${wh.id}`, { enabled: false })).status).toBe(200);
    await sleep(600);
    const afterDisable = rx.on('/q').length;
    expect(afterDisable).toBeLessThanOrEqual(20 + 8 + 8); // in flight when disabled, at most
    expect(afterDisable).toBeLessThan(40);
    await sleep(300);
    expect(rx.on('/q').length).toBe(afterDisable);
    // Enabled again: the deliveries that waited go out, each once.
    expect((await srv.admin.patch(`/admin/webhooks/${wh.id}`, { enabled: true })).status).toBe(200);
    await rx.waitFor(() => new Set(rx.on('/q').map((r) => r.headers['x-service-delivery'])).size === 40);

    for (let i = 0; i < 20; i++) await srv.admin.put('/pages/rot/a', { title: `C${i}` });
    await rx.waitFor(() => rx.on('/q').length >= 41);
    expect((await srv.admin.del(`/admin/webhooks/${wh.id}`)).status).toBe(204);
    await sleep(600);
    expect(rx.on('/q').length).toBeLessThanOrEqual(40 + 8 + 8);
  });

  it('POST /test sends webhook.test now and reports the outcome; it is logged and never retried', async () => {
    const wh = await subscribe('/t', { events: ['page.deleted'] });
    const ok = await srv.admin.post(`/admin/webhooks/${wh.id}/test`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ outcome: 'delivered', status: 200 });
    expect(ok.body.durationMs).toBeGreaterThanOrEqual(0);
    expect(rx.on('/t')).toHaveLength(1);
    const rec = rx.on('/t')[0];
    expect(rec.headers['x-service-event']).toBe('webhook.test');
    expect(verifySignatures(wh.secret, rec)).toEqual({ service: true, standard: true });
    expect(JSON.parse(rec.body.toString())).toMatchObject({
      id: rec.headers['x-service-delivery'],
      event: 'webhook.test',
      actor: { kind: 'agent' },
    });

    rx.reply = () => ({ status: 503 });
    const bad = await srv.admin.post(`/admin/webhooks/${wh.id}/test`);
    expect(bad.body).toMatchObject({ outcome: 'failed', status: 503, error: 'HTTP 503' });
    await sleep(400);
    expect(rx.on('/t')).toHaveLength(2);
    expect((await log(wh.id)).map((e) => [e.event, e.outcome, e.attempt])).toEqual([
      ['webhook.test', 'failed', 1],
      ['webhook.test', 'delivered', 1],
    ]);
  });

  it('pages the delivery log with limit and cursor, newest first', async () => {
    const wh = await subscribe('/pg', { events: ['page.deleted'] });
    for (let i = 0; i < 5; i++) await srv.admin.post(`/admin/webhooks/${wh.id}/test`);
    const ids = rx
      .on('/pg')
      .map((r) => r.headers['x-service-delivery'])
      .reverse();
    const seen: string[] = [];
    let cursor = '';
    for (let page = 0; page < 3; page++) {
      const r = await srv.admin.get(`/admin/webhooks/${wh.id}/deliveries?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      seen.push(...r.body.deliveries.map((e: any) => e.id));
      cursor = r.body.nextCursor;
      if (page < 2) expect(cursor).toEqual(expect.any(String));
    }
    expect(cursor).toBeNull();
    expect(seen).toEqual(ids);
    expect((await srv.admin.get(`/admin/webhooks/${wh.id}/deliveries?cursor=nope`)).status).toBe(400);
    expect((await srv.admin.get(`/admin/webhooks/${wh.id}/deliveries?limit=0`)).status).toBe(400);
  });
});

describe('retention', () => {
  it('prunes finished deliveries and old log entries, never a pending delivery', async () => {
    const wh = await subscribe('/ret', { events: ['page.deleted'] });
    for (let i = 0; i < 3; i++) await srv.admin.post(`/admin/webhooks/${wh.id}/test`);
    const db = srv.svc.db;
    insertDelivery(db, {
      id: 'dlv_000000000001pending',
      webhook_id: wh.id,
      event_id: null,
      event: 'page.deleted',
      body: Buffer.from('{}'),
      status: 'pending',
      attempts: 0,
      next_attempt_at: Date.now() + 3_600_000,
      claimed: 0,
      created_at: '2020-01-01T00:00:00.000Z',
    });
    expect(pruneDeliveries(db, Date.now() - 60_000, new Date(Date.now() - 60_000).toISOString(), 100)).toBe(0); // all recent
    expect(await log(wh.id)).toHaveLength(3);
    const later = Date.now() + 1000;
    expect(pruneDeliveries(db, later, new Date(later).toISOString(), 100)).toBe(6);
    expect(await log(wh.id)).toHaveLength(0);
    const left = db.prepare('SELECT id FROM webhook_deliveries WHERE webhook_id = ?').pluck().all(wh.id);
    expect(left).toEqual(['dlv_000000000001pending']);
  });

  it('prunes dispatched outbox events past the retention, never pending ones', async () => {
    const db = srv.svc.db;
    const ins = db.prepare(
      "INSERT INTO events (event, occurred_at, org_id, payload, dispatched_at) VALUES ('page.created', ?, 1, '{}', ?)",
    );
    const old = ins.run('2020-01-01T00:00:00.000Z', '2020-01-01T00:00:01.000Z').lastInsertRowid;
    const pending = ins.run('2020-01-01T00:00:00.000Z', null).lastInsertRowid;
    const recent = ins.run('2020-01-01T00:00:00.000Z', new Date().toISOString()).lastInsertRowid;
    expect(pruneEvents(db, '2021-01-01T00:00:00.000Z', 1000)).toBeGreaterThanOrEqual(1);
    const ids = db.prepare('SELECT id FROM events WHERE id IN (?, ?, ?)').pluck().all(old, pending, recent);
    expect(ids).toEqual([pending, recent]);
  });
});

describe('filters', () => {
  it('personal spaces never emit; spaceSlug, events and enabled filter', async () => {
    const all = await subscribe('/all');
    const onlyA = await subscribe('/only-a', { spaceSlug: 'fa' });
    const deletes = await subscribe('/deletes', { events: ['page.deleted'] });
    const off = await subscribe('/off', { enabled: false });
    expect((await srv.admin.get(`/admin/webhooks/${off.id}`)).body.enabled).toBe(false);

    await srv.admin.put('/pages/~admin/private', { title: 'Mine' });
    await srv.admin.put('/pages/fb/x', { title: 'X' });
    await srv.admin.put('/pages/fa/y', { title: 'Y' });
    await rx.waitFor(() => rx.on('/all').length === 2 && rx.on('/only-a').length === 1);
    await sleep(200);
    expect(
      rx
        .on('/all')
        .map((r) => JSON.parse(r.body.toString()).page.space)
        .sort(),
    ).toEqual(['fa', 'fb']);
    expect(JSON.parse(rx.on('/only-a')[0].body.toString()).page).toMatchObject({ space: 'fa', path: 'y' });
    expect(rx.on('/deletes')).toHaveLength(0);
    expect(rx.on('/off')).toHaveLength(0);
    expect(rx.received.some((r) => r.body.toString().includes('~admin'))).toBe(false);

    // Disabled means nothing is queued; enabling again delivers what happens from then on.
    expect((await srv.admin.patch(`/admin/webhooks/${off.id}`, { enabled: true })).body.enabled).toBe(true);
    await srv.admin.del('/pages/fb/x');
    await rx.waitFor(() => rx.on('/off').length === 1 && rx.on('/deletes').length === 1);
    expect(rx.on('/off')[0].headers['x-service-event']).toBe('page.deleted');
    expect(all.id && onlyA.id && deletes.id).toBeTruthy();
  });
});

describe('the outbox', () => {
  // A write records an outbox row only while an enabled subscription can receive its event.
  const rowsOf = (space: string, path: string) =>
    srv.svc.db
      .prepare(`SELECT event, dispatched_at FROM events
    WHERE json_extract(payload, '$.page.space') = ? AND json_extract(payload, '$.page.path') = ?`)
      .all(space, path);
  it.each([
    ['no subscription at all', async () => {}, 'fa'],
    ['personal-space activity, with an org-wide subscription', async () => subscribe('/o-all'), '~admin'],
    ['a subscription of another space', async () => subscribe('/o-fb', { spaceSlug: 'fb' }), 'fa'],
    ['a subscription to another event', async () => subscribe('/o-del', { events: ['page.deleted'] }), 'fa'],
    ['a disabled subscription', async () => subscribe('/o-off', { enabled: false }), 'fa'],
  ] as const)('writes no row for an event no subscription can receive: %s', async (_label, setUp, space) => {
    await setUp();
    const path = `outbox/${Math.random().toString(36).slice(2)}`;
    expect((await srv.admin.put(`/pages/${space}/${path}`, { title: 'O' })).status).toBe(201);
    expect((await srv.admin.get(`/pages/${space}/${path}`)).status).toBe(200);
    expect(rowsOf(space, path)).toEqual([]);
  });

  it('writes a row for one that can; the drain turns it into its delivery and marks it dispatched', async () => {
    await subscribe('/o-fa', { spaceSlug: 'fa', events: ['page.created'] });
    expect((await srv.admin.put('/pages/fa/outbox/yes', { title: 'O' })).status).toBe(201);
    const rows = rowsOf('fa', 'outbox/yes') as Array<{ event: string; dispatched_at: string | null }>;
    expect(rows.map((r) => r.event)).toEqual(['page.created']);
    await rx.waitFor(() => rx.on('/o-fa').length === 1);
    expect(JSON.parse(rx.on('/o-fa')[0].body.toString()).page).toMatchObject({ space: 'fa', path: 'outbox/yes' });
    expect((rowsOf('fa', 'outbox/yes') as Array<{ dispatched_at: string | null }>)[0].dispatched_at).not.toBeNull();
  });
});
