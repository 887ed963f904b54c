import type { Services } from '../../services.ts';
import { listAttempts, type AttemptOutcome } from '../../store/deliveries.ts';
import { loadWebhook } from './subscriptions.ts';
import type { Caller } from '../../model.ts';

type LogEntry = {
  id: string;
  event: string;
  attempt: number;
  at: string;
  outcome: AttemptOutcome;
  status?: number;
  error?: string;
  durationMs: number;
};

/** A subscription's attempts, newest first; `id` is the delivery id (shared by its attempts). */
export function listDeliveryLog(
  svc: Services,
  caller: Caller,
  webhookId: string,
  q: { before: number; limit: number },
): { entries: LogEntry[]; last: number | null } {
  const w = loadWebhook(svc, caller, webhookId);
  const rows = listAttempts(svc.db, w.id, q.before, q.limit + 1);
  const page = rows.slice(0, q.limit);
  const entries = page.map((r) => ({
    id: r.delivery_id,
    event: r.event,
    attempt: r.attempt,
    at: r.at,
    outcome: r.outcome,
    ...(r.http_status !== null ? { status: r.http_status } : {}),
    ...(r.error !== null ? { error: r.error } : {}),
    durationMs: r.duration_ms,
  }));
  return { entries, last: rows.length > q.limit ? page[page.length - 1].id : null };
}
