// An event that no subscription can receive writes no outbox row (insertEvent), so a server
// without matching webhooks neither stores nor drains one per write; one that can is pending.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db/types.ts';
import { openDb } from '../../src/store/db/connection.ts';
import { insertEvent } from '../../src/store/events.ts';

let dir: string;
let db: Db;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-outbox-'));
  db = openDb(dir);
  const at = '2026-01-01T00:00:00.000Z';
  db.prepare('INSERT INTO orgs (id, slug, name, created_at) VALUES (1, ?, ?, ?), (2, ?, ?, ?)').run('a', 'A', at, 'b', 'B', at);
  const space = db.prepare('INSERT INTO spaces (id, org_id, slug, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)');
  space.run(10, 1, 's10', 'S10', at, at);
  space.run(11, 1, 's11', 'S11', at, at);
  space.run(20, 2, 's20', 'S20', at, at);
});
afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

type Hook = { org: number; space?: number; events: string[]; disabled?: boolean };
const cases: Array<{ name: string; hooks: Hook[]; event?: string; space?: number; personal?: boolean; written: boolean }> = [
  { name: 'no subscription at all', hooks: [], written: false },
  { name: 'an org-wide subscription to the event', hooks: [{ org: 1, events: ['page.updated'] }], written: true },
  { name: 'one of several event names', hooks: [{ org: 1, events: ['page.deleted', 'page.updated'] }], written: true },
  { name: 'a subscription to other events only', hooks: [{ org: 1, events: ['page.deleted', 'page.created'] }], written: false },
  { name: 'a subscription of another org', hooks: [{ org: 2, events: ['page.updated'] }], written: false },
  { name: 'a subscription filtered to this space', hooks: [{ org: 1, space: 10, events: ['page.updated'] }], written: true },
  { name: 'a subscription filtered to another space', hooks: [{ org: 1, space: 11, events: ['page.updated'] }], written: false },
  { name: 'a disabled subscription', hooks: [{ org: 1, events: ['page.updated'], disabled: true }], written: false },
  {
    name: 'a disabled one next to an enabled one',
    hooks: [
      { org: 1, events: ['page.updated'], disabled: true },
      { org: 1, space: 10, events: ['page.updated'] },
    ],
    written: true,
  },
  {
    name: 'personal-space activity, whatever is subscribed',
    hooks: [{ org: 1, events: ['page.updated'] }],
    personal: true,
    written: false,
  },
  {
    name: 'an event without a space (webhook.test), org-wide subscription',
    hooks: [{ org: 1, events: ['webhook.test'] }],
    event: 'webhook.test',
    space: 0,
    written: true,
  },
  {
    name: 'an event without a space, space-filtered subscription',
    hooks: [{ org: 1, space: 10, events: ['webhook.test'] }],
    event: 'webhook.test',
    space: 0,
    written: false,
  },
];

describe('insertEvent: no row when no enabled subscription can receive the event', () => {
  it.each(cases)('$name', ({ hooks, event = 'page.updated', space = 10, personal = false, written }) => {
    db.prepare('DELETE FROM events').run();
    db.prepare('DELETE FROM webhooks').run();
    const add =
      db.prepare(`INSERT INTO webhooks (id, org_id, url, events, space_id, active_since, disabled_at, secret, created_at, updated_at)
                            VALUES (?, ?, 'https://example.com/h', ?, ?, ?, ?, x'00', ?, ?)`);
    const at = '2026-01-01T00:00:00.000Z';
    hooks.forEach((h, i) => add.run(`wh_${i}`, h.org, JSON.stringify(h.events), h.space ?? null, at, h.disabled ? at : null, at, at));
    const occurredAt = '2026-02-03T04:05:06.789Z';
    const e = { event, occurred_at: occurredAt, org_id: 1, space_id: space || null, personal: personal ? 1 : 0, payload: '{"n":1}' };
    expect(insertEvent(db, e)).toBe(written);
    const rows = db.prepare('SELECT event, occurred_at, org_id, space_id, personal, payload, dispatched_at FROM events').all();
    expect(rows).toEqual(written ? [{ ...e, dispatched_at: null }] : []);
  });
});
