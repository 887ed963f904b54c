// The webhook dispatcher (a background job of serve()). State lives in SQLite: the outbox, and
// webhook_deliveries as the timer table (a pending row waits for next_attempt_at), so a restart
// resumes where the last process stopped. In memory there is only the queue of rows being sent,
// marked `claimed` in the table so that loading more does not read them again.
//
// Page writes never wait for it: a write commits its outbox row and calls eventsWritten, which
// only arms a short timer. Bursts are coalesced: one drain transaction covers many writes, and
// attempt results are logged in batches, so a busy server pays a few small transactions per
// batch instead of several per write. Sends run at most CONCURRENCY at a time (PER_SUBSCRIPTION
// for any one subscription) on keep-alive connections behind the address guard, paced while
// page writes saturate the event loop (pacer.ts).
import { performance } from 'node:perf_hooks';
import type { Services } from '../../services.ts';
import { tx } from '../../store/db/transactions.ts';
import {
  clearClaims,
  dueDeliveries,
  nextDueAfter,
  pruneDeliveries,
  recordAttempt,
  setClaimed,
  type AttemptResult,
  type DueDelivery,
} from '../../store/deliveries.ts';
import { enabledWebhookIds } from '../../store/webhooks.ts';
import { createAgentPool } from '../net/guarded-fetch.ts';
import type { SecretBox } from '../secrets.ts';
import { planAfterAttempt, sendDelivery, type SendResult } from './delivery.ts';
import { drainOutbox } from './outbox-drain.ts';
import { pruneEvents } from '../../store/events.ts';
import { createPacer } from './pacer.ts';
import { everyLoadWindow } from '../../loop-load.ts';
import { createSendQueue } from './send-queue.ts';
import { secretBox } from './secret-box.ts';

const CONCURRENCY = 32;
const PER_SUBSCRIPTION = 8;
const QUEUE_PER_SUBSCRIPTION = 256;
const DRAIN_BATCH = 200;
// While paced: a tick a second reads up to PACED_DRAIN_EVENTS events (those matching no
// subscription cost little) and makes up to twice the paced send rate in deliveries, so the
// queue never runs dry below the floor, and a saturated server does not also pay for delivery
// rows on every write.
const PACED_DRAIN_MS = 1000;
const PACED_DRAIN_EVENTS = 2000;
const LOAD_BATCH = 128;
const COALESCE_MS = 5;
const PACE_WINDOW_MS = 50;
const HEARTBEAT_MS = 30_000;
const PRUNE_EVERY_MS = 60 * 60_000;
// The first pruning waits a minute after start: its statements read the whole outbox and
// delivery log, which would otherwise land on the first requests a restarted server answers.
const FIRST_PRUNE_MS = 60_000;
const PRUNE_BATCH = 2000;

// A secret sealed under another key (the setting changed) fails like a network error would.
const UNREADABLE_SECRET: SendResult = {
  ok: false,
  blocked: false,
  httpStatus: null,
  durationMs: 0,
  error: 'the signing secret cannot be decrypted with the current SERVICE_SETTINGS_ENCRYPTION_KEY',
};

export type WebhookDispatcher = { start(): void; stop(): Promise<void>; subscriptionChanged(webhookId: string): void };

const dispatchers = new WeakMap<Services, WebhookDispatcher>();

/**
 * A subscription was changed (url, secret, enabled, deleted): deliveries already queued in
 * memory go back to the table and are read again with the new settings.
 */
export function notifySubscriptionChanged(svc: Services, webhookId: string): void {
  dispatchers.get(svc)?.subscriptionChanged(webhookId);
}

/** Whether the dispatcher of `svc` is running (readiness). */
export function isDispatcherRunning(svc: Services): boolean {
  return dispatchers.has(svc);
}

export function createWebhookDispatcher(svc: Services): WebhookDispatcher {
  const agents = createAgentPool();
  const abort = new AbortController();
  const queue = createSendQueue<DueDelivery>({ perSubscription: PER_SUBSCRIPTION, queuePerSubscription: QUEUE_PER_SUBSCRIPTION });
  const sending = new Set<Promise<void>>();
  const opened = new Map<string, { sealed: Buffer; secret: string }>();
  const pacer = createPacer();
  let results: AttemptResult[] = [];
  let active = false;
  let mayHaveDue = true; // any enabled subscription may have unclaimed due rows (not known which)
  const dueHooks = new Set<string>(); // these may have unclaimed due rows
  let writesSeen = false;
  let warnedNoKey = false;
  let prunedAt = Date.now() - PRUNE_EVERY_MS + FIRST_PRUNE_MS;
  const timers: Record<'tick' | 'retry' | 'flush' | 'pace' | 'window', NodeJS.Timeout | null> = {
    tick: null,
    retry: null,
    flush: null,
    pace: null,
    window: null,
  };

  let tickAt = Infinity;
  // After a page write committed: its deliveries come out of the drain, nothing to reload.
  const wake = () => {
    writesSeen = true;
    scheduleTick(pacer.rate === Infinity ? COALESCE_MS : PACED_DRAIN_MS);
  };

  // One pending tick, at the earliest time anyone asked for.
  function scheduleTick(ms: number): void {
    if (!active || Date.now() + ms >= tickAt) return;
    if (timers.tick !== null) clearTimeout(timers.tick);
    tickAt = Date.now() + ms;
    timers.tick = setTimeout(tick, ms);
  }

  function tick(): void {
    timers.tick = null;
    tickAt = Infinity;
    if (!active) return;
    try {
      // Fresh deliveries go straight to the queue; past a subscription's cap they wait in the table.
      const paced = pacer.rate !== Infinity;
      const drained = paced
        ? drainOutbox(svc, PACED_DRAIN_EVENTS, 2 * pacer.rate, queue.room)
        : drainOutbox(svc, DRAIN_BATCH, Infinity, queue.room);
      for (const d of drained.taken) queue.add(d);
      for (const hook of drained.left) dueHooks.add(hook);
      // More waits: continue on a later turn, so requests get served in between.
      if (drained.more) scheduleTick(paced ? PACED_DRAIN_MS : 0);
      fill();
      armRetryTimer();
      if (Date.now() - prunedAt > PRUNE_EVERY_MS) prune();
    } catch (e) {
      svc.log.error('webhook dispatcher: tick failed', { error: String(e) });
      retryLater(1000);
    }
  }

  // Retention: finished deliveries and log entries past SERVICE_WEBHOOKS_LOG_RETENTION_DAYS go,
  // a batch per transaction, a batch per turn, so no request waits long behind it.
  function prune(): void {
    prunedAt = Date.now();
    const cutoff = prunedAt - svc.config.webhooks.logRetentionDays * 86_400_000;
    const before = new Date(cutoff).toISOString();
    // Finished deliveries, old log entries and dispatched outbox rows share the retention period.
    const removed = tx(svc.db, () => pruneDeliveries(svc.db, cutoff, before, PRUNE_BATCH) + pruneEvents(svc.db, before, PRUNE_BATCH));
    if (removed > 0) setTimeout(() => active && prune(), 0);
  }

  function fill(): void {
    const box = secretBox(svc);
    if (!box) {
      if (!warnedNoKey) svc.log.warn('webhook deliveries wait: SERVICE_SETTINGS_ENCRYPTION_KEY is not set');
      warnedNoKey = true;
      return;
    }
    while (active && queue.inFlight < CONCURRENCY) {
      if (!queue.canStart()) {
        load();
        if (!queue.canStart()) break; // nothing due, or every subscription with work is at its cap
      }
      const now = performance.now();
      if (!pacer.take(now)) {
        timers.pace ??= setTimeout(() => {
          timers.pace = null;
          if (active) fill();
        }, pacer.waitMs(now));
        break;
      }
      start(queue.next()!, box);
    }
  }

  // Reads due rows into the queue, per subscription with room, and marks them claimed.
  function load(): void {
    if (mayHaveDue) {
      for (const hook of enabledWebhookIds(svc.db)) dueHooks.add(hook);
      mayHaveDue = false;
    }
    const added: string[] = [];
    const now = Date.now();
    for (const hook of dueHooks) {
      const room = Math.min(queue.room(hook), LOAD_BATCH);
      if (room <= 0) continue; // still due; loaded once its queue has room
      const rows = dueDeliveries(svc.db, hook, now, room);
      for (const r of rows) if (queue.add(r)) added.push(r.id);
      if (rows.length < room) dueHooks.delete(hook);
    }
    setClaimed(svc.db, added, 1);
  }

  function start(d: DueDelivery, box: SecretBox): void {
    const p = attempt(d, box)
      .then((r) => {
        if (r === null) return release(d.id);
        results.push(r);
        timers.flush ??= setTimeout(flush, COALESCE_MS);
      })
      .catch((e: unknown) => {
        release(d.id);
        svc.log.error('webhook dispatcher: attempt failed', { delivery: d.id, error: String(e) });
      })
      .finally(() => {
        queue.finished(d);
        sending.delete(p);
        if (active) fill();
      });
    sending.add(p);
  }

  // Gives a row back unsent (shutting down, or an unexpected error): due again at once.
  function release(id: string): void {
    queue.release(id);
    try {
      setClaimed(svc.db, [id], 0);
    } catch {
      // the database is closing: the next start clears every claim anyway
    }
  }

  async function attempt(d: DueDelivery, box: SecretBox): Promise<AttemptResult | null> {
    const { timeoutMs, allowPrivate, retryDelaysMs, maxRetries } = svc.config.webhooks;
    const secret = openSecret(box, d);
    const r: SendResult =
      secret === null
        ? UNREADABLE_SECRET
        : await sendDelivery(
            { deliveryId: d.id, webhookId: d.webhook_id, event: d.event, url: d.url, secret, body: d.body },
            { timeoutMs, allowPrivate, agents, signal: abort.signal },
          );
    if (abort.signal.aborted) return null; // shutting down: the row stays pending for the next start
    const n = d.attempts + 1;
    const plan = planAfterAttempt(r, n, retryDelaysMs, maxRetries, Date.now());
    return {
      deliveryId: d.id,
      webhookId: d.webhook_id,
      attempt: n,
      at: svc.now(),
      outcome: plan.outcome,
      httpStatus: r.httpStatus,
      error: r.error,
      durationMs: r.durationMs,
      status: plan.status,
      nextAttemptAt: plan.nextAttemptAt,
    };
  }

  // Opened secrets by subscription, reused while the sealed value is unchanged (rotation changes it).
  function openSecret(box: SecretBox, d: DueDelivery): string | null {
    const hit = opened.get(d.webhook_id);
    if (hit && hit.sealed.equals(d.secret)) return hit.secret;
    try {
      const secret = box.open(d.secret);
      opened.set(d.webhook_id, { sealed: d.secret, secret });
      return secret;
    } catch {
      return null;
    }
  }

  function flush(): void {
    timers.flush = null;
    const batch = results;
    results = [];
    if (batch.length === 0) return;
    try {
      tx(svc.db, () => {
        for (const r of batch) recordAttempt(svc.db, r);
      });
    } catch (e) {
      // Not logged means still pending in the database: the rows go out again (at-least-once).
      svc.log.error('webhook dispatcher: logging attempts failed', { error: String(e) });
      for (const r of batch) release(r.deliveryId);
      mayHaveDue = true;
    }
    for (const r of batch) queue.release(r.deliveryId);
    if (active && batch.some((r) => r.nextAttemptAt !== null)) armRetryTimer();
  }

  function armRetryTimer(): void {
    const now = Date.now();
    let next = now + HEARTBEAT_MS;
    for (const hook of enabledWebhookIds(svc.db)) next = Math.min(next, nextDueAfter(svc.db, hook, now) ?? Infinity);
    retryLater(Math.max(0, next - now));
  }

  function retryLater(ms: number): void {
    if (!active) return;
    if (timers.retry !== null) clearTimeout(timers.retry);
    timers.retry = setTimeout(() => {
      timers.retry = null;
      mayHaveDue = true;
      scheduleTick(0);
    }, ms);
    timers.retry.unref();
  }

  // Every window: slow down while page writes saturate the loop, speed up again when they do not.
  function measureWindow(utilisation: number): void {
    const before = pacer.rate;
    pacer.adjust(utilisation, writesSeen, performance.now());
    writesSeen = false;
    if (pacer.rate === Infinity && before !== Infinity) scheduleTick(0); // drain what waited
    if (pacer.rate > before && queue.queued > 0) fill();
  }

  const self: WebhookDispatcher = {
    start() {
      active = true;
      dispatchers.set(svc, self);
      clearClaims(svc.db); // whatever a previous process held (it may have been killed) is due again
      svc.eventsWritten.add(wake);
      timers.window = everyLoadWindow(PACE_WINDOW_MS, measureWindow);
      scheduleTick(0); // resume: drain what the last process left in the outbox and send what is due
    },
    subscriptionChanged(webhookId) {
      if (!active) return;
      const dropped = queue.drop(webhookId).map((d) => d.id);
      setClaimed(svc.db, dropped, 0);
      opened.delete(webhookId);
      dueHooks.add(webhookId);
      scheduleTick(COALESCE_MS);
    },
    async stop() {
      active = false;
      dispatchers.delete(svc);
      svc.eventsWritten.delete(wake);
      for (const t of Object.values(timers)) if (t !== null) clearTimeout(t);
      abort.abort();
      await Promise.allSettled([...sending]);
      flush();
      await agents.close();
    },
  };
  return self;
}
