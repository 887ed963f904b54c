// GET /changes/stream (docs/changes.md): Server-Sent Events of the change feed. One hub per
// server holds the open streams. It wakes when the database holds a new txid (store/txid.ts:
// after a commit of this process, or as a replica's front sees its copy move on), and then reads,
// for each stream behind it, the changes its caller may see, with short statements on the shared
// connection: no read transaction stays open, and a stream whose client reads slowly waits for
// its socket to drain instead of buffering. A stream ends when its key is revoked or its session
// ends (checked when the auth epoch moves, and at each heartbeat for a session's expiry).
import { Readable } from 'node:stream';
import { FastResponse } from 'srvx';
import type { Services } from '../services.ts';
import type { Change } from '../model.ts';
import { changesAfter } from '../domain/changes.ts';
import { AppError } from '../domain/errors.ts';
import { authenticateKey } from '../domain/principals.ts';
import { sessionHolds } from '../domain/sessions.ts';
import { readAuthEpoch } from '../store/principals.ts';
import { onTxid, readTxid } from '../store/txid.ts';
import type { Caller } from '../model.ts';

/** How the stream's caller proved who they are, checked again while it is open. */
export type Credential = { key: string } | { sessionIdHash: string };

type Stream = {
  caller: Caller;
  credential: Credential;
  spaceId: number | null;
  cursor: number;
  out: Readable;
  /** The socket is full: wait for the client to read before writing more. */
  paused: boolean;
  closed: boolean;
};

type Hub = {
  streams: Set<Stream>;
  perPrincipal: Map<string, number>;
  epoch: string;
  scheduled: boolean;
  stopTxid: () => void;
  heartbeat: NodeJS.Timeout;
};

const hubs = new WeakMap<Services, Hub>();
// Changes read per statement while a stream catches up; a turn of the event loop per stream-batch.
const PAGE = 200;
const STREAMS_PER_TURN = 64;

function hubOf(svc: Services): Hub {
  let hub = hubs.get(svc);
  if (hub) return hub;
  const h: Hub = {
    streams: new Set(),
    perPrincipal: new Map(),
    epoch: readAuthEpoch(svc.db),
    scheduled: false,
    stopTxid: () => {},
    heartbeat: setInterval(() => beat(svc, h), Math.max(5, Math.floor(svc.config.changes.heartbeatMs * 0.8))),
  };
  h.heartbeat.unref();
  h.stopTxid = onTxid(svc.db, () => wake(svc, h));
  hubs.set(svc, (hub = h));
  return hub;
}

function wake(svc: Services, hub: Hub): void {
  if (hub.scheduled) return;
  hub.scheduled = true;
  setImmediate(() => {
    hub.scheduled = false;
    const epoch = readAuthEpoch(svc.db);
    const recheck = epoch !== hub.epoch;
    hub.epoch = epoch;
    void pumpAll(svc, hub, recheck);
  });
}

/**
 * Pages of the feed already read in this pass, by who reads them from where: streams of one
 * principal on the same space and cursor (a person's tabs, an agent's workers) share one read
 * and its text. A page read in one turn is used only in that turn (the next may see more).
 */
type Pages = Map<string, Page>;
type Page = { changes: Change[]; nextSince: number; chunks: string[] };

/** Brings every stream up to date, a few dozen a turn so that requests are served in between. */
async function pumpAll(svc: Services, hub: Hub, recheck: boolean): Promise<void> {
  let n = 0;
  let pages: Pages = new Map();
  for (const s of [...hub.streams]) {
    if (s.closed) continue;
    if (recheck && !credentialHolds(svc, s)) {
      end(hub, s);
      continue;
    }
    pump(svc, s, pages);
    if (++n % STREAMS_PER_TURN === 0) {
      await new Promise((r) => setImmediate(r));
      pages = new Map();
    }
  }
}

function readPage(svc: Services, s: Stream, pages?: Pages): Page {
  const key = `${s.caller.id}\n${s.caller.orgId}\n${s.caller.orgAdmin ? 1 : 0}\n${s.spaceId ?? ''}\n${s.cursor}`;
  const known = pages?.get(key);
  if (known) return known;
  const r = changesAfter(svc, s.caller, s.cursor, s.spaceId, PAGE);
  // Each txid's changes as one chunk.
  const chunks: string[] = [];
  let chunk = '';
  for (let i = 0; i < r.changes.length; i++) {
    const c = r.changes[i];
    chunk += `id: ${c.txid}\nevent: change\ndata: ${JSON.stringify(c)}\n\n`;
    if (i === r.changes.length - 1 || r.changes[i + 1].txid !== c.txid) {
      chunks.push(chunk);
      chunk = '';
    }
  }
  const page = { ...r, chunks };
  pages?.set(key, page);
  return page;
}

function credentialHolds(svc: Services, s: Stream): boolean {
  if ('key' in s.credential) return authenticateKey(svc, s.credential.key)?.id === s.caller.id;
  return sessionHolds(svc, s.credential.sessionIdHash, s.caller.id);
}

/** Writes the stream's pending changes, each txid's in one piece, until caught up or the socket is full. */
function pump(svc: Services, s: Stream, pages?: Pages): void {
  while (!s.closed && !s.paused) {
    let r: Page;
    try {
      r = readPage(svc, s, pages);
    } catch (e) {
      svc.log.warn('change stream: reading changes failed', { error: e instanceof Error ? e.message : String(e) });
      return;
    }
    for (const chunk of r.chunks) if (!s.out.push(chunk)) s.paused = true;
    s.cursor = r.nextSince;
    if (r.changes.length < PAGE) return;
  }
}

function beat(svc: Services, hub: Hub): void {
  for (const s of hub.streams) {
    if (s.closed) continue;
    // A session also ends by time (idle, absolute): no commit announces that.
    if ('sessionIdHash' in s.credential && !credentialHolds(svc, s)) {
      end(hub, s);
      continue;
    }
    if (!s.paused) s.out.push(':\n\n');
  }
}

function end(hub: Hub, s: Stream): void {
  if (s.closed) return;
  s.closed = true;
  s.out.push(null);
  forget(hub, s);
}

function forget(hub: Hub, s: Stream): void {
  s.closed = true;
  if (!hub.streams.delete(s)) return;
  const n = (hub.perPrincipal.get(s.caller.id) ?? 1) - 1;
  if (n > 0) hub.perPrincipal.set(s.caller.id, n);
  else hub.perPrincipal.delete(s.caller.id);
}

/**
 * Opens a stream of the changes after `since` (checked already) for `caller`: 429 past
 * SERVICE_CHANGES_MAX_STREAMS of theirs. `closed` is called when the client goes away.
 */
export function openChangeStream(
  svc: Services,
  caller: Caller,
  credential: Credential,
  since: number,
  spaceId: number | null,
  onClose: (fn: () => void) => void,
): Response {
  const hub = hubOf(svc);
  const open = hub.perPrincipal.get(caller.id) ?? 0;
  const max = svc.config.changes.maxStreams;
  if (open >= max) {
    throw new AppError(
      'too_many_requests',
      `at most ${max} change streams may be open at once per principal (SERVICE_CHANGES_MAX_STREAMS)`,
      undefined,
      { retryAfter: 5 },
    );
  }
  const s: Stream = {
    caller,
    credential,
    spaceId,
    cursor: since,
    paused: false,
    closed: false,
    out: new Readable({
      read() {
        if (!s.paused) return;
        s.paused = false;
        pump(svc, s);
      },
    }),
  };
  hub.streams.add(s);
  hub.perPrincipal.set(caller.id, open + 1);
  const gone = () => forget(hub, s);
  s.out.once('close', gone);
  onClose(gone);
  // The first bytes go at once: the client sees the answer begin (and how long to wait before reconnecting).
  s.out.push(`retry: 1000\n: txid ${readTxid(svc.db).n}\n\n`);
  pump(svc, s);
  return new FastResponse(s.out as never, {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' },
  });
}
