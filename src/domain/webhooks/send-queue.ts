// The dispatcher's in-memory work list: deliveries claimed for sending, queued per subscription
// and handed out round-robin with a cap on each subscription's sends in flight, so one slow or
// dead receiver (10 s timeouts) holds a few slots, never all of them. A claim lasts until the
// attempt's result is logged: until then the row is still `pending` in SQLite and must not be
// loaded and sent a second time.

type Claimable = { id: string; webhook_id: string };

type SendQueue<D extends Claimable> = {
  /** Queues `d` unless it is claimed already or its subscription's queue is full. */
  add(d: D): boolean;
  /** The next delivery to send, or null when every subscription with work is at its cap. */
  next(): D | null;
  /** Whether next() would hand out a delivery. */
  canStart(): boolean;
  /** An attempt ended (its claim stays until release). */
  finished(d: D): void;
  release(id: string): void;
  isClaimed(id: string): boolean;
  /** Subscriptions whose queue is full: loading more of their rows would be wasted. */
  fullSubscriptions(): string[];
  /** How many more deliveries a subscription's queue takes. */
  room(webhookId: string): number;
  /** Takes a subscription's queued (not in-flight) deliveries out, claims released. */
  drop(webhookId: string): D[];
  readonly queued: number;
  readonly inFlight: number;
  readonly claimed: number;
};

export function createSendQueue<D extends Claimable>(opts: { perSubscription: number; queuePerSubscription: number }): SendQueue<D> {
  const queues = new Map<string, D[]>(); // insertion order is the round-robin order
  const busy = new Map<string, number>();
  const claims = new Set<string>();
  let queued = 0;
  let inFlight = 0;

  return {
    add(d) {
      if (claims.has(d.id)) return false;
      let q = queues.get(d.webhook_id);
      if (!q) queues.set(d.webhook_id, (q = []));
      if (q.length >= opts.queuePerSubscription) return false;
      q.push(d);
      claims.add(d.id);
      queued++;
      return true;
    },
    next() {
      for (const [hook, q] of queues) {
        if (q.length === 0) {
          if ((busy.get(hook) ?? 0) === 0) queues.delete(hook);
          continue;
        }
        const n = busy.get(hook) ?? 0;
        if (n >= opts.perSubscription) continue;
        // Move this subscription to the back of the round.
        queues.delete(hook);
        queues.set(hook, q);
        busy.set(hook, n + 1);
        queued--;
        inFlight++;
        return q.shift()!;
      }
      return null;
    },
    canStart() {
      for (const [hook, q] of queues) if (q.length > 0 && (busy.get(hook) ?? 0) < opts.perSubscription) return true;
      return false;
    },
    finished(d) {
      const n = (busy.get(d.webhook_id) ?? 1) - 1;
      if (n > 0) busy.set(d.webhook_id, n);
      else busy.delete(d.webhook_id);
      inFlight--;
    },
    release(id) {
      claims.delete(id);
    },
    isClaimed: (id) => claims.has(id),
    room: (hook) => opts.queuePerSubscription - (queues.get(hook)?.length ?? 0),
    drop(hook) {
      const q = queues.get(hook) ?? [];
      queues.set(hook, []);
      queued -= q.length;
      for (const d of q) claims.delete(d.id);
      return q;
    },
    fullSubscriptions() {
      return [...queues].filter(([, q]) => q.length >= opts.queuePerSubscription).map(([hook]) => hook);
    },
    get queued() {
      return queued;
    },
    get inFlight() {
      return inFlight;
    },
    get claimed() {
      return claims.size;
    },
  };
}
