import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildDeliveryBody, deliveryHeaders, planAfterAttempt } from '../../src/domain/webhooks/delivery.ts';
import { matchSubscriptions } from '../../src/domain/webhooks/outbox-drain.ts';
import { verifyServiceSignature } from '../../src/domain/webhooks/signing.ts';

const DELAYS = [30_000, 300_000, 1_800_000];
const NOW = 1_000_000;

describe('planAfterAttempt', () => {
  it.each([
    // [ok, blocked, attempt, delays, maxRetries, outcome, status, next]
    [true, false, 1, DELAYS, 3, 'delivered', 'delivered', null],
    [true, false, 4, DELAYS, 3, 'delivered', 'delivered', null],
    [false, false, 1, DELAYS, 3, 'retrying', 'pending', NOW + 30_000],
    [false, false, 2, DELAYS, 3, 'retrying', 'pending', NOW + 300_000],
    [false, false, 3, DELAYS, 3, 'retrying', 'pending', NOW + 1_800_000],
    [false, false, 4, DELAYS, 3, 'failed', 'failed', null],
    [false, false, 5, DELAYS, 5, 'retrying', 'pending', NOW + 1_800_000], // the last delay repeats
    [false, false, 1, DELAYS, 0, 'failed', 'failed', null],
    [false, false, 1, [], 2, 'retrying', 'pending', NOW],
    [false, true, 1, DELAYS, 3, 'blocked', 'blocked', null], // never retried
    [false, true, 2, DELAYS, 3, 'blocked', 'blocked', null],
  ] as const)('ok=%s blocked=%s attempt %i → %s', (ok, blocked, attempt, delays, max, outcome, status, next) => {
    expect(planAfterAttempt({ ok, blocked }, attempt, [...delays], max, NOW)).toEqual({ outcome, status, nextAttemptAt: next });
  });
});

describe('buildDeliveryBody', () => {
  it.each([
    ['{"event":"page.created","page":{"path":"a"}}', { id: 'dlv_1', event: 'page.created', page: { path: 'a' } }],
    ['{}', { id: 'dlv_1' }],
    [' { "event" : "x" } ', { id: 'dlv_1', event: 'x' }],
  ])('puts the delivery id first: %s', (payload, expected) => {
    const body = buildDeliveryBody('dlv_1', payload);
    expect(JSON.parse(body.toString('utf8'))).toEqual(expected);
    expect(Object.keys(JSON.parse(body.toString('utf8')))[0]).toBe('id');
  });
});

describe('deliveryHeaders', () => {
  it('signs the exact body both ways and repeats the delivery id', () => {
    const secret = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
    const body = Buffer.from('{"id":"dlv_1","event":"page.created"}');
    const h = deliveryHeaders(
      { deliveryId: 'dlv_1', webhookId: 'wh_1', event: 'page.created', url: 'https://x', secret, body },
      1700000000,
    );
    expect(h).toMatchObject({
      'content-type': 'application/json',
      'x-service-event': 'page.created',
      'x-service-delivery': 'dlv_1',
      'x-service-webhook': 'wh_1',
      'webhook-id': 'dlv_1',
      'webhook-timestamp': '1700000000',
    });
    expect(verifyServiceSignature(secret, body, h['x-service-signature'])).toBe(true);
    const expected = createHmac('sha256', Buffer.alloc(32, 7)).update(`dlv_1.1700000000.${body}`).digest('base64');
    expect(h['webhook-signature']).toBe(`v1,${expected}`);
  });
});

describe('matchSubscriptions', () => {
  const T0 = '2026-01-01T00:00:00.000Z';
  const subs = [
    { id: 'all', orgId: 1, spaceId: null, events: new Set(['page.created', 'page.deleted']), activeSince: T0, disabledAt: null },
    { id: 'space2', orgId: 1, spaceId: 2, events: new Set(['page.created']), activeSince: T0, disabledAt: null },
    { id: 'other-org', orgId: 9, spaceId: null, events: new Set(['page.created']), activeSince: T0, disabledAt: null },
    { id: 'meta', orgId: 1, spaceId: null, events: new Set(['page.metadata.updated']), activeSince: T0, disabledAt: null },
    { id: 'late', orgId: 1, spaceId: null, events: new Set(['page.created']), activeSince: '2026-01-02T00:00:00.000Z', disabledAt: null },
    { id: 'paused', orgId: 1, spaceId: 4, events: new Set(['page.created']), activeSince: T0, disabledAt: '2026-01-02T00:00:00.000Z' },
  ];
  const at = (day: string) => `2026-01-0${day}T00:00:00.000Z`;
  it.each([
    [{ event: 'page.created', org_id: 1, space_id: 2, personal: 0, occurred_at: at('1') }, ['all', 'space2']],
    [{ event: 'page.created', org_id: 1, space_id: 3, personal: 0, occurred_at: at('1') }, ['all']],
    [{ event: 'page.created', org_id: 1, space_id: 2, personal: 1, occurred_at: at('1') }, []],
    [{ event: 'page.updated', org_id: 1, space_id: 2, personal: 0, occurred_at: at('1') }, []],
    [{ event: 'page.metadata.updated', org_id: 1, space_id: 5, personal: 0, occurred_at: at('1') }, ['meta']],
    [{ event: 'page.created', org_id: 9, space_id: 7, personal: 0, occurred_at: at('1') }, ['other-org']],
    [{ event: 'page.created', org_id: 1, space_id: 3, personal: 0, occurred_at: at('2') }, ['all', 'late']],
    [{ event: 'page.created', org_id: 1, space_id: 4, personal: 0, occurred_at: at('1') }, ['all', 'paused']], // before the disable
    [{ event: 'page.created', org_id: 1, space_id: 4, personal: 0, occurred_at: at('2') }, ['all', 'late']], // from the disable on
  ])('%j → %j', (event, ids) => {
    expect(matchSubscriptions(event, subs).map((s) => s.id)).toEqual(ids);
  });
});
