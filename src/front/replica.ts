import fs from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { AppError, invalid } from '../domain/errors.ts';
import { problemBody } from '../http/respond.ts';
import type { Services } from '../services.ts';
import { readAuthEpoch } from '../store/principals.ts';
import { announceTxid, readTxid } from '../store/txid.ts';
import { framingOf, forwardedFor, forwardedHeaders, isHopByHop } from './framing.ts';
import { TXID_COOKIE, requestIdOf } from './front.ts';
import { noteDirect } from '../http/request-notes.ts';
import { isForwardMark } from '../http/replica-mark.ts';
import { reportReplicaStatus } from '../ops/replica-status.ts';

// A replica (SERVICE_ROLE=replica, docs/scale-out.md) in front of the h3 app:
// - every request that is not a GET or HEAD, and every /mcp request (the MCP door's tools write
//   through in-process sub-requests, and a tools/call cannot be told from a read before it runs),
//   is forwarded to SERVICE_PRIMARY_URL with the caller's headers (Authorization, Cookie, Origin,
//   Host) and body, streamed both ways; the primary's answer goes back as it is (status, headers,
//   body). Not a redirect: clients drop Authorization on a cross-origin redirect.
// - a GET or HEAD carrying X-Service-Min-Txid (or the web app's kspace_txid cookie) beyond the
//   replicated transaction number waits for the follower to bring it, up to
//   SERVICE_REPLICA_WAIT_MS, and is then forwarded; otherwise it is answered here.
// - a read that turns out to need a write (a personal space made on first use, see router.ts)
//   is forwarded too, before anything of its answer is sent.

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => unknown;
type Out = { writeHead: ServerResponse['writeHead']; write: ServerResponse['write']; end: ServerResponse['end'] };

const POLL_IDLE_MS = 50;
const POLL_WAITING_MS = 2;
const CONNECT_TIMEOUT_MS = 5000;
const RETRY_AFTER_S = 5;
const TOUCH_EVERY_MS = 60_000;
const SESSION_COOKIE = /(?:^|;\s*)((?:__Host-)?kspace_session=[^;\s]+)/;

export function createReplicaHandler(svc: Services, local: NodeHandler): { handler: NodeHandler; stop(): void } {
  const { forward, request: requestPrimary } = createForwarder(svc);
  // The replicated transaction number, read every POLL_IDLE_MS (every POLL_WAITING_MS while a
  // read waits for it): a one-row read on the read-only connection, a few µs. lagMs is how late
  // the newest commit arrived here: when it was first seen minus the primary's clock at its commit.
  let { n: txid, atMs } = readTxid(svc.db);
  let authEpoch = readAuthEpoch(svc.db);
  let seenAt = Date.now();
  // A follower must update kspace.db in place, through SQLite. One that replaces the file (a new
  // file renamed over it) leaves this connection on the old one for good: seen by its inode,
  // checked about once a second, and reported by /readyz (restart the replica).
  const inode = () => {
    try {
      return fs.statSync(svc.db.name).ino;
    } catch {
      return -1;
    }
  };
  const openedInode = inode();
  let replaced = false;
  let inodeCheckedAt = Date.now();
  // Until a commit arrives while this server watches, the best it knows of the copy's lag is the
  // age of its newest commit (a restarted replica, a follower that restores periodically).
  const ageOf = (ms: number) => (ms > 0 ? Math.max(0, Date.now() - ms) : 0);
  let lagMs = ageOf(atMs);
  const waiters = new Set<{ target: number; done: (reached: boolean) => void }>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const poll = () => {
    try {
      const now = readTxid(svc.db);
      if (now.n !== txid) {
        // A revoked key, ended session or changed principal arrives with the auth epoch: the
        // cache of API-key callers is dropped at the first poll that sees the copy holding it.
        const epoch = readAuthEpoch(svc.db);
        if (epoch !== authEpoch) {
          authEpoch = epoch;
          svc.authCache.clear();
        }
        txid = now.n;
        atMs = now.atMs;
        announceTxid(svc.db, txid); // change streams answered here (src/http/change-stream.ts)
        seenAt = Date.now();
        lagMs = Math.max(0, seenAt - atMs);
        for (const w of waiters) if (w.target <= txid) w.done(true);
      }
    } catch {
      // the follower is replacing the file: the next poll reads it
    }
    if (!replaced && Date.now() - inodeCheckedAt >= 1000 && ((inodeCheckedAt = Date.now()), inode() !== openedInode)) {
      replaced = true;
      svc.log.error('replica: kspace.db was replaced by another file; this server still reads the old one: restart it');
    }
    schedule();
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(poll, waiters.size ? POLL_WAITING_MS : POLL_IDLE_MS);
    if (!waiters.size) timer.unref();
  };
  schedule();
  // The full-text index follows within a second of a change, so a search rarely waits for it.
  let indexed = -1;
  const indexTimer = setInterval(() => {
    if (indexed === txid) return;
    indexed = txid;
    svc.fts.synced().catch((e: unknown) => {
      indexed = -1; // try again at the next tick
      svc.log.warn('replica full-text index: catch-up failed', { error: e instanceof Error ? e.message : String(e) });
    });
  }, 1000);
  indexTimer.unref();
  reportReplicaStatus(svc, () => ({ txid, lagMs, sinceChangeMs: atMs > 0 ? ageOf(atMs) : Date.now() - seenAt, replaced }));

  const waitFor = (target: number): Promise<boolean> => {
    if (target <= txid) return Promise.resolve(true);
    return new Promise((resolve) => {
      const w = {
        target,
        done: (reached: boolean) => {
          clearTimeout(t);
          waiters.delete(w);
          resolve(reached);
        },
      };
      const t = setTimeout(() => w.done(false), svc.config.replication.waitMs);
      waiters.add(w);
      clearTimeout(timer);
      poll();
    });
  };

  // A web session's use is recorded by the primary (idle expiry, the device list): a replica
  // never writes it, so for a session that reads here it asks the primary for GET /session
  // with the session cookie, in the background, at most once a minute per session.
  const touched = new Map<string, number>();
  const touchSession = (req: IncomingMessage) => {
    if (req.headers.authorization) return;
    const m = SESSION_COOKIE.exec(req.headers.cookie ?? '');
    if (!m) return;
    const now = Date.now();
    if (now - (touched.get(m[1]) ?? -Infinity) < TOUCH_EVERY_MS) return;
    if (touched.size >= 10_000) touched.clear();
    touched.set(m[1], now);
    const headers: Record<string, string> = { cookie: m[1] };
    if (req.headers['user-agent']) headers['user-agent'] = req.headers['user-agent'];
    const up = requestPrimary({ method: 'GET', path: '/session', headers });
    up.setTimeout(CONNECT_TIMEOUT_MS, () => up.destroy());
    up.on('response', (r) => r.resume()).on('error', () => {});
    up.end();
  };

  const serveHere = (req: IncomingMessage, res: ServerResponse) => {
    touchSession(req);
    const out: Out = { writeHead: res.writeHead, write: res.write, end: res.end };
    let diverted = false;
    res.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
      if (!diverted && isForwardMark(status, rest)) {
        diverted = true;
        forward(req, res, out);
        return this;
      }
      return (out.writeHead as (...a: unknown[]) => ServerResponse).call(this, status, ...rest);
    } as ServerResponse['writeHead'];
    res.write = function (this: ServerResponse, ...a: unknown[]) {
      return diverted ? true : (out.write as (...x: unknown[]) => boolean).apply(this, a);
    } as ServerResponse['write'];
    res.end = function (this: ServerResponse, ...a: unknown[]) {
      return diverted ? this : (out.end as (...x: unknown[]) => ServerResponse).apply(this, a);
    } as ServerResponse['end'];
    return local(req, res);
  };

  const handler: NodeHandler = (req, res) => {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    // Refused before anything else, whether it would be answered here or forwarded.
    if (refusedSockets.has(req.socket)) return; // the socket closes once the refusal is written
    const framing = framingOf(req);
    if (framing instanceof AppError) return refuseFraming(req, res, framing);
    if ((method !== 'GET' && method !== 'HEAD') || url === '/mcp' || url.startsWith('/mcp?') || url.startsWith('/mcp/')) {
      return forward(req, res);
    }
    let min: number;
    try {
      min = minTxidOf(req);
    } catch (e) {
      const err = e as AppError;
      const body = problemBody(err, url.split('?')[0]);
      res.writeHead(err.status, { 'content-type': 'application/problem+json', 'content-length': Buffer.byteLength(body) }).end(body);
      return;
    }
    if (min <= txid) return serveHere(req, res);
    return waitFor(min).then((reached) => (reached ? serveHere(req, res) : forward(req, res)));
  };
  return {
    handler,
    stop() {
      stopped = true;
      clearTimeout(timer);
      clearInterval(indexTimer);
      for (const w of waiters) w.done(false);
    },
  };
}

/** X-Service-Min-Txid (a whole number), else the kspace_txid cookie the primary set on a web-app write; 0 without either. */
function minTxidOf(req: IncomingMessage): number {
  const h = req.headers['x-service-min-txid'];
  if (h !== undefined) {
    const v = Array.isArray(h) ? h[0] : h;
    if (!/^\d{1,15}$/.test(v.trim())) {
      throw invalid([
        { key: 'X-Service-Min-Txid', code: 'format', message: 'X-Service-Min-Txid is a whole number (an X-Service-Txid answered before)' },
      ]);
    }
    return Number(v.trim());
  }
  const cookie = req.headers.cookie;
  if (cookie) {
    const m = new RegExp(`(?:^|;\\s*)${TXID_COOKIE}=(\\d{1,15})(?:;|$)`).exec(cookie);
    if (m) return Number(m[1]);
  }
  return 0;
}

/**
 * Forwards a request to SERVICE_PRIMARY_URL and streams the answer back. Unreachable (no
 * connection within CONNECT_TIMEOUT_MS, refused, reset before an answer) or silent for
 * SERVICE_MAX_REQUEST_MS: 503 problem+json `primary_unavailable` with Retry-After.
 *
 * Each client connection has upstream connections of its own (an agent per client socket, closed
 * with it): whatever one client sends can only ever reach the primary on its own connections, never
 * in front of another client's request. An upstream connection that saw an error, or whose answer
 * came before the whole body was sent, is closed rather than used again.
 */
type Forwarder = {
  forward(req: IncomingMessage, res: ServerResponse, out?: Out): void;
  /** A request of the replica's own to the primary (no body, headers set by the replica). */
  request(opts: { method: string; path: string; headers: Record<string, string> }): http.ClientRequest;
};

function createForwarder(svc: Services): Forwarder {
  const base = new URL(svc.config.replication.primaryUrl!);
  const lib = base.protocol === 'https:' ? https : http;
  const own = new lib.Agent({ keepAlive: true, maxSockets: 16 });
  const agents = new WeakMap<Socket, http.Agent>();
  const agentOf = (client: Socket): http.Agent => {
    let agent = agents.get(client);
    if (!agent) {
      const made = new lib.Agent({ keepAlive: true });
      agents.set(client, (agent = made));
      client.once('close', () => made.destroy());
    }
    return agent;
  };
  const idleMs = svc.config.ops.maxRequestMs;
  const trustProxy = svc.config.ops.trustProxy;
  const request: Forwarder['request'] = (o) =>
    lib.request({ protocol: base.protocol, hostname: base.hostname, port: base.port || undefined, agent: own, ...o });
  const forward: Forwarder['forward'] = (req, res, out = { writeHead: res.writeHead, write: res.write, end: res.end }) => {
    noteDirect(req, '(forwarded)', null as never);
    const framing = framingOf(req);
    if (framing instanceof AppError) return refuseFraming(req, res, framing, out);
    const headers = forwardedHeaders(req, framing, forwardedFor(req, trustProxy), requestIdOf(res));
    const up = lib.request({
      protocol: base.protocol,
      hostname: base.hostname,
      port: base.port || undefined,
      method: req.method,
      path: req.url,
      headers,
      agent: agentOf(req.socket),
      setHost: false,
    });
    // A body that ends short of its Content-Length is an error here, never a short request upstream.
    (up as unknown as { strictContentLength: boolean }).strictContentLength = true;
    let answered = false;
    const fail = (why: string) => {
      if (answered) return;
      answered = true;
      up.destroy();
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const err = new AppError('primary_unavailable', `the primary at ${base.origin} cannot be reached (${why}); try again shortly`);
      const body = problemBody(err, (req.url ?? '/').split('?')[0]);
      (out.writeHead as (...a: unknown[]) => ServerResponse).call(res, 503, {
        'content-type': 'application/problem+json',
        'content-length': Buffer.byteLength(body),
        'retry-after': String(RETRY_AFTER_S),
      });
      (out.end as (b: string) => ServerResponse).call(res, body);
      req.resume(); // whatever of the body is left is not wanted
    };
    const connectTimer = setTimeout(() => fail('no connection'), CONNECT_TIMEOUT_MS);
    up.on('socket', (s) => {
      if (!s.connecting) clearTimeout(connectTimer);
      else s.once('connect', () => clearTimeout(connectTimer));
    });
    up.setTimeout(idleMs, () => fail(`no answer within ${idleMs} ms`));
    up.on('error', (e) => {
      clearTimeout(connectTimer);
      fail((e as NodeJS.ErrnoException).code ?? e.message);
    });
    up.on('response', (upRes) => {
      clearTimeout(connectTimer);
      answered = true;
      // An answer before the whole body went out: this connection is not used again.
      const early = !up.writableFinished;
      if (early) {
        up.shouldKeepAlive = false;
        req.unpipe(up);
        req.resume();
      }
      const raw: string[] = [];
      for (let i = 0; i < upRes.rawHeaders.length; i += 2) {
        if (!isHopByHop(upRes.rawHeaders[i])) raw.push(upRes.rawHeaders[i], upRes.rawHeaders[i + 1]);
      }
      (out.writeHead as (...a: unknown[]) => ServerResponse).call(res, upRes.statusCode ?? 502, upRes.statusMessage, raw);
      upRes.on('data', (chunk: Buffer) => {
        if (!(out.write as (c: Buffer) => boolean).call(res, chunk)) {
          upRes.pause();
          res.once('drain', () => upRes.resume());
        }
      });
      upRes.on('end', () => {
        if (early) up.destroy();
        (out.end as () => ServerResponse).call(res);
      });
      upRes.on('error', () => {
        up.destroy();
        res.destroy();
      });
    });
    res.on('close', () => {
      if (!res.writableFinished) up.destroy();
    });
    // The client went away before its body was complete: the upstream request goes with it.
    req.once('close', () => {
      if (!req.complete) up.destroy();
    });
    if (framing.kind === 'none') {
      req.resume();
      up.end();
    } else {
      req.pipe(up);
    }
  };
  return { forward, request };
}

// Connections that carried a request refused for its framing: what follows on them cannot be
// told apart from its body, so nothing more of them is read, answered or forwarded.
const refusedSockets = new WeakSet<Socket>();

/** 400 problem+json for a request whose framing is ambiguous; the connection closes after it. */
function refuseFraming(req: IncomingMessage, res: ServerResponse, err: AppError, out: Out = res): void {
  noteDirect(req, '(framing)', null as never);
  const socket = req.socket;
  refusedSockets.add(socket);
  res.once('finish', () => socket.destroySoon());
  res.once('close', () => socket.destroy());
  const body = problemBody(err, (req.url ?? '/').split('?')[0]);
  (out.writeHead as (...a: unknown[]) => ServerResponse).call(res, err.status, {
    'content-type': 'application/problem+json',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  (out.end as (b: string) => ServerResponse).call(res, body);
}
