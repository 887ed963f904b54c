// The change feed from a client (docs/changes.md): the Server-Sent Events reader, and following
// GET /changes/stream with reconnects that resume from the last event's id (Last-Event-ID), so
// no change is lost between two connections. Used by `kspace changes --follow` and `kspace mcp`.
import type { Change } from '../model.ts';
import { ApiError, readJson, request, type ClientSettings } from './request.ts';

/** One Server-Sent Event as dispatched (a comment line has only `comment`). */
export type SseEvent = { id?: string; event?: string; data?: string; comment?: string };

/** The events of an event-stream body, as the bytes arrive (the text/event-stream rules of the HTML standard). */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let current: SseEvent = {};
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      yield* dispatch();
    }
  } finally {
    reader.releaseLock();
  }

  function* dispatch(): Generator<SseEvent> {
    let nl: number;
    while ((nl = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + (buffer.startsWith('\r\n', nl) ? 2 : 1));
      if (line === '') {
        if (current.data !== undefined || current.id !== undefined || current.event !== undefined) yield current;
        current = {};
        continue;
      }
      if (line.startsWith(':')) {
        yield { comment: line.slice(1).trimStart() };
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') current.data = current.data === undefined ? value : `${current.data}\n${value}`;
      else if (field === 'id' || field === 'event') current[field] = value;
    }
  }
}

export type FollowOptions = {
  since?: number;
  space?: string;
  signal?: AbortSignal;
  onChange(change: Change): void | Promise<void>;
  /** A connection ended or failed; `retryMs` later the next one resumes (default: 1 s, then up to 30 s). */
  onGap?(error: unknown, retryMs: number): void;
};

const MAX_BACKOFF_MS = 30_000;

/**
 * Follows GET /changes/stream until `signal` aborts, reconnecting with the last txid received.
 * A 4xx other than 429 (a revoked key, 410 changes_expired, a space that went away) ends it with
 * that ApiError; a network failure, a 5xx or 429 is retried.
 */
export async function followChanges(settings: ClientSettings, opts: FollowOptions): Promise<void> {
  let last = opts.since;
  let backoff = 1000;
  while (!opts.signal?.aborted) {
    try {
      const headers: Record<string, string> = last !== undefined ? { 'last-event-id': String(last) } : {};
      const res = await request(settings, 'GET', '/changes/stream', {
        query: { space: opts.space },
        accept: 'text/event-stream',
        headers,
        signal: opts.signal,
      });
      backoff = 1000;
      for await (const e of readEvents(res.body!)) {
        if (e.event !== 'change' || e.data === undefined) continue;
        const change = JSON.parse(e.data) as Change;
        await opts.onChange(change);
        last = Number(e.id ?? change.txid);
      }
      opts.onGap?.(new Error('the stream ended'), backoff);
    } catch (err) {
      if (opts.signal?.aborted) return;
      if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 429) throw err;
      opts.onGap?.(err, backoff);
    }
    await new Promise((r) => setTimeout(r, backoff));
    backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
  }
}

/** The newest txid the server holds for the caller (where to follow from "now"): the kept changes paged through. */
export async function currentTxid(settings: ClientSettings, signal?: AbortSignal, space?: string): Promise<number> {
  let since = 0;
  for (;;) {
    const res = await request(settings, 'GET', '/changes', { query: { since, space, limit: 1000 }, signal });
    const page = await readJson<{ changes: Change[]; nextSince: number }>(res);
    if (page.changes.length === 0 || page.nextSince === since) return page.nextSince;
    since = page.nextSince;
  }
}
