import fc from 'fast-check';
import { SCHEMA_VERSION } from '../../src/store/migrations.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.ts';
import { subscribeOutbox, WEBHOOK_ENV, type OutboxSubscription } from '../support/outbox.ts';

let srv: TestServer;
let outbox: OutboxSubscription;
beforeAll(async () => {
  srv = await startServer(WEBHOOK_ENV);
  outbox = await subscribeOutbox(srv); // every page event of the org: writes record their events
  await srv.admin.post('/spaces', { slug: 'm', name: 'M' });
});
afterAll(async () => {
  await outbox.close();
  await srv.close();
});

const events = (path: string) =>
  (
    srv.svc.db.prepare("SELECT event, payload FROM events WHERE json_extract(payload, '$.page.path') = ? ORDER BY id").all(path) as Array<{
      event: string;
      payload: string;
    }>
  ).map((e) => ({ event: e.event, ...JSON.parse(e.payload) }));

describe('PATCH /pages/:space/:path/metadata', () => {
  it('sets, appends uniquely, removes with null, and reports changedKeys', async () => {
    await srv.admin.put('/pages/m/p', { title: 'P', metadata: { stage: 'todo', tags: ['a'] } });
    const r = await srv.admin.patch('/pages/m/p/metadata', {
      set: { stage: 'doing', points: 3, due: '2026-12-01' },
      appendUnique: { tags: ['a', 'b', 'b'] },
    });
    expect(r.status).toBe(200);
    expect(r.body.metadata).toEqual({ stage: 'doing', points: 3, due: '2026-12-01', tags: ['a', 'b'] });
    expect(r.body.changedKeys).toEqual(['due', 'points', 'stage', 'tags']);
    expect(r.body.version).toBe(2);
    const rm = await srv.admin.patch('/pages/m/p/metadata', { set: { points: null } });
    expect(rm.body.metadata.points).toBeUndefined();
    expect(rm.body.changedKeys).toEqual(['points']);
    const last = events('p').at(-1)!;
    expect(last).toMatchObject({
      event: 'page.metadata.updated',
      changedKeys: ['points'],
      page: { path: 'p', space: 'm', title: 'P', version: 3 },
      actor: { kind: 'agent' },
    });
  });

  it('writes nothing and fires nothing for a patch that changes nothing', async () => {
    await srv.admin.put('/pages/m/same', { title: 'S', metadata: { a: 1, l: ['x'] } });
    const before = events('same').length;
    const r = await srv.admin.patch('/pages/m/same/metadata', { set: { a: 1, gone: null }, appendUnique: { l: ['x'] } });
    expect(r.status).toBe(200);
    expect(r.body.changedKeys).toEqual([]);
    expect(r.body.version).toBe(1);
    expect(events('same').length).toBe(before);
  });

  it.each([
    [{ set: { a: { b: 1 } } }, 'set.a', 'type'],
    [{ set: { a: [1, [2]] } }, 'set.a', 'type'],
    [{ set: { a: Number.MAX_VALUE * 0 } }, null, null],
    [{ set: { 'no spaces': 1 } }, 'set.no spaces', 'format'],
    [{ set: { s: 'x'.repeat(16 * 1024 + 1) } }, 'set.s', 'max'],
    [{ set: { l: Array(1001).fill(1) } }, 'set.l', 'max'],
    [{ appendUnique: { t: 'x' } }, 'appendUnique.t', 'type'],
    [{ appendUnique: { t: [{}] } }, 'appendUnique.t', 'type'],
    [{ set: { template: 'x' } }, 'template', 'format'],
    [{ other: 1 }, 'other', 'undeclared'],
    [{ set: [] }, 'set', 'type'],
  ])('rejects %j naming %s', async (patch, key, code) => {
    await srv.admin.put('/pages/m/bad', { title: 'B', metadata: { keep: 1 } });
    const r = await srv.admin.patch('/pages/m/bad/metadata', patch);
    if (key === null) {
      expect(r.status).toBe(200);
      return;
    }
    expect(r.status).toBe(400);
    expect(r.body.issues).toContainEqual(expect.objectContaining({ key, code }));
    expect((await srv.admin.get('/pages/m/bad')).body.metadata).toEqual({ keep: 1 });
  });

  it('caps the number of keys a page holds', async () => {
    await srv.admin.put('/pages/m/many', { title: 'Many' });
    const set = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`k${i}`, i]));
    const r = await srv.admin.patch('/pages/m/many/metadata', { set });
    expect(r.status).toBe(400);
    expect(r.body.issues[0]).toMatchObject({ key: 'metadata', code: 'max' });
  });

  it('matches a model over 1,000 random patches (property)', async () => {
    await srv.admin.put('/pages/m/prop', { title: 'Prop' });
    const model: Record<string, unknown> = {};
    const key = fc.constantFrom('a', 'b', 'c', 'd');
    const scalar = fc.oneof(fc.constantFrom('x', 'y', 'z'), fc.integer({ min: -3, max: 3 }), fc.boolean(), fc.constant('2026-01-02'));
    const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), fc.constant(null));
    const patch = fc.record({
      set: fc.dictionary(key, value, { maxKeys: 2 }),
      appendUnique: fc.dictionary(key, fc.array(scalar, { maxLength: 3 }), { maxKeys: 2 }),
    });
    let version = 1;
    await fc.assert(
      fc.asyncProperty(patch, async (p) => {
        const expected: Record<string, unknown> = { ...model };
        for (const [k, v] of Object.entries(p.set)) v === null ? delete expected[k] : (expected[k] = v);
        for (const [k, items] of Object.entries(p.appendUnique)) {
          const cur = expected[k];
          const list = cur === undefined ? [] : Array.isArray(cur) ? [...cur] : [cur];
          for (const it of items) if (!list.includes(it)) list.push(it);
          expected[k] = list;
        }
        const changed = [...new Set([...Object.keys(model), ...Object.keys(expected)])]
          .filter((k) => JSON.stringify(model[k]) !== JSON.stringify(expected[k]))
          .sort();
        const r = await srv.admin.patch('/pages/m/prop/metadata', p);
        expect(r.status).toBe(200);
        expect(r.body.metadata).toEqual(expected);
        expect(r.body.changedKeys).toEqual(changed);
        if (changed.length) version++;
        expect(r.body.version).toBe(version);
        for (const k of Object.keys(model)) delete model[k];
        Object.assign(model, expected);
        // The index agrees with the stored object.
        const rows = srv.svc.db
          .prepare(`SELECT key, count(*) AS n FROM page_meta WHERE page_id = (SELECT id FROM pages WHERE path = 'prop') GROUP BY key`)
          .all() as Array<{ key: string; n: number }>;
        const idx = Object.fromEntries(rows.map((x) => [x.key, x.n]));
        const exp = Object.fromEntries(
          Object.entries(expected)
            .map(([k, v]) => [k, Array.isArray(v) ? v.length : 1])
            .filter(([, n]) => n !== 0),
        );
        expect(idx).toEqual(exp);
      }),
      { numRuns: 1000 },
    );
  }, 120_000);
});

describe('events outbox', () => {
  it('writes one row per create, update, delete and metadata patch, in the same transaction', async () => {
    await srv.admin.put('/pages/m/ev', { title: 'E1' });
    await srv.admin.put('/pages/m/ev', { title: 'E2' });
    await srv.admin.patch('/pages/m/ev/metadata', { set: { k: 1 } });
    await srv.admin.del('/pages/m/ev');
    await srv.admin.put('/pages/m/ev', { title: 'E3' });
    const ev = events('ev');
    expect(ev.map((e) => e.event)).toEqual(['page.created', 'page.updated', 'page.metadata.updated', 'page.deleted', 'page.created']);
    expect(ev.map((e) => e.page.version)).toEqual([1, 2, 3, 3, 4]);
    expect(ev[0]).toEqual({
      event: 'page.created',
      occurredAt: expect.stringMatching(/Z$/),
      actor: { id: expect.stringMatching(/^p_/), kind: 'agent' },
      page: { path: 'ev', space: 'm', title: 'E1', version: 1 },
    });
    expect(ev[2].changedKeys).toEqual(['k']);
    const personal = srv.svc.db.prepare("SELECT personal FROM events WHERE json_extract(payload, '$.page.space') = 'm' LIMIT 1").get() as {
      personal: number;
    };
    expect(personal.personal).toBe(0);
    // Personal spaces never emit, even to an org-wide subscription: no row at all.
    expect((await srv.admin.put('/pages/~admin/note', { title: 'N' })).status).toBe(201);
    expect(srv.svc.db.prepare("SELECT count(*) FROM events WHERE json_extract(payload, '$.page.space') = '~admin'").pluck().get()).toBe(0);
  });

  it('writes no event for a rejected write', async () => {
    const before = (srv.svc.db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
    await srv.admin.put('/pages/m/x/acl', { title: 'nope' });
    await srv.admin.put('/pages/m/rej', { title: '' });
    await srv.admin.put('/pages/m/rej', { title: 'T', metadata: { a: {} } });
    expect((srv.svc.db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n).toBe(before);
  });
});

describe('storage', () => {
  it('refuses UPDATE and DELETE of revisions at the SQL level', async () => {
    await srv.admin.put('/pages/m/r', { title: 'R' });
    expect(() => srv.svc.db.prepare("UPDATE revisions SET title = 'x'").run()).toThrow(/append-only/);
    expect(() => srv.svc.db.prepare('DELETE FROM revisions').run()).toThrow(/append-only/);
  });

  it('runs in WAL mode with foreign keys on and the current schema version', () => {
    expect(srv.svc.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(srv.svc.db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(srv.svc.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
  });

  it('answers metadata lookups through the index, not a scan', () => {
    const plan = srv.svc.db
      .prepare("EXPLAIN QUERY PLAN SELECT page_id FROM page_meta WHERE key = 'stage' AND t = 's' AND v = 'todo'")
      .all() as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join(' ')).toMatch(/USING (COVERING )?INDEX page_meta_kv/);
  });
});
