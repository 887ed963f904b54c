import { describe, expect, it } from 'vitest';
import { createSendQueue } from '../../src/domain/webhooks/send-queue.ts';

const d = (id: string, webhook_id: string) => ({ id, webhook_id });

describe('createSendQueue', () => {
  it('hands out round-robin across subscriptions', () => {
    const q = createSendQueue({ perSubscription: 10, queuePerSubscription: 10 });
    for (const x of [d('a1', 'A'), d('a2', 'A'), d('a3', 'A'), d('b1', 'B'), d('c1', 'C'), d('b2', 'B')]) q.add(x);
    const order = Array.from({ length: 6 }, () => q.next()!.id);
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
    expect(q.next()).toBeNull();
  });

  it('caps one subscription in flight, so a slow receiver leaves room for the others', () => {
    const q = createSendQueue({ perSubscription: 2, queuePerSubscription: 100 });
    for (let i = 0; i < 50; i++) q.add(d(`slow${i}`, 'S'));
    q.add(d('fast1', 'F'));
    const started = [q.next()!, q.next()!, q.next()!];
    expect(started.map((x) => x.id)).toEqual(['slow0', 'fast1', 'slow1']);
    expect(q.canStart()).toBe(false);
    expect(q.next()).toBeNull(); // S is at its cap, F is empty
    expect(q.inFlight).toBe(3);
    q.finished(started[0]);
    expect(q.canStart()).toBe(true);
    expect(q.next()!.id).toBe('slow2');
  });

  it('keeps a claim until release, refuses duplicates and a full queue', () => {
    const q = createSendQueue({ perSubscription: 1, queuePerSubscription: 2 });
    expect(q.add(d('x', 'A'))).toBe(true);
    expect(q.add(d('x', 'A'))).toBe(false);
    expect(q.add(d('y', 'A'))).toBe(true);
    expect(q.add(d('z', 'A'))).toBe(false);
    expect(q.fullSubscriptions()).toEqual(['A']);
    const x = q.next()!;
    q.finished(x);
    expect(q.isClaimed('x')).toBe(true); // sent, result not yet logged
    expect(q.add(d('x', 'A'))).toBe(false);
    q.release('x');
    expect(q.isClaimed('x')).toBe(false);
    expect(q.claimed).toBe(1);
    expect(q.queued).toBe(1);
    expect(q.fullSubscriptions()).toEqual([]);
  });
});
