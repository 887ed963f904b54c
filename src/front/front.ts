import { ServerResponse, type IncomingMessage } from 'node:http';
import { hash, randomBytes } from 'node:crypto';
import type { Services } from '../services.ts';
import type { RequestFields } from '../config/log.ts';
import { createRateLimiter } from '../rate-limit.ts';
import { committedTxid } from '../store/txid.ts';
import { AppError, type ErrorCode } from '../domain/errors.ts';
import { problemBody } from '../http/respond.ts';
import { clientAddress, eventOf, onLongLived } from '../http/request-notes.ts';
import { overCap } from './connections.ts';
import type { Done } from '../ops/metrics.ts';

// Every request passes here first, on the Node side of h3: its id, the limits for a server on a
// network (rate per address and per key, requests in progress per key, a longest request time),
// and one log line when it is done. The route pattern and the principal come from the h3 event
// (src/http/request-notes.ts); nothing of the URL's path, the headers or the body is logged,
// so no page name, key, cookie or page text ever reaches a log line.

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** The id the front gave a request (its X-Request-Id), from its response. */
export function requestIdOf(res: ServerResponse): string | undefined {
  return (res as IdRes)[kId];
}

export type Front = {
  handler: NodeHandler;
  /** Requests being served now. */
  inFlight(): number;
  /** Called with each finished request (metrics). */
  onDone: Array<(d: Done) => void>;
  /** Shutting down: every answer from now on closes its connection. */
  drain(): void;
  stop(): void;
};

// `body`: for a request whose body is still arriving, the connection's bytes read and when they last grew.
type Live = { started: number; res: ServerResponse; id: string; req: IncomingMessage; body: { read: number; at: number } | null };

const ID_PATTERN = /^[A-Za-z0-9._:@/+=-]{1,128}$/;
const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

export function createFront(svc: Services, inner: NodeHandler): Front {
  const ops = svc.config.ops;
  const prefix = randomBytes(4).toString('hex');
  let counter = 0;
  const perIp =
    ops.rateLimitPerIp.rate > 0 ? createRateLimiter({ burst: ops.rateLimitPerIp.burst, perSecond: ops.rateLimitPerIp.rate }) : null;
  const perKey =
    ops.rateLimitPerKey.rate > 0 ? createRateLimiter({ burst: ops.rateLimitPerKey.burst, perSecond: ops.rateLimitPerKey.rate }) : null;
  const busyKeys = new Map<string, number>();
  const live = new Set<Live>();
  const onDone: Front['onDone'] = [];
  let draining = false;
  const stampTxid = svc.config.replication.role === 'primary';

  // Once a second: a request past SERVICE_MAX_REQUEST_MS is answered 503 (or its connection
  // closed, when its answer has begun) and logged. Work it started in the database goes on to
  // its end: a transaction is all-or-nothing and is never cut half-way. A request whose body has
  // not grown for SERVICE_BODY_TIMEOUT_MS while the server waits for it is answered 408 and its
  // connection closed (a body the server is not reading yet, its buffer full, is not counted).
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const l of live) {
      if (l.body && ops.bodyTimeoutMs > 0) {
        const req = l.req;
        const read = req.socket?.bytesRead ?? 0;
        if (req.complete || req.destroyed) l.body = null;
        else if (read !== l.body.read || req.readableLength >= req.readableHighWaterMark) l.body = { read, at: now };
        else if (now - l.body.at >= ops.bodyTimeoutMs) {
          live.delete(l);
          svc.log.info('request cancelled: its body stopped arriving (SERVICE_BODY_TIMEOUT_MS)', { id: l.id });
          l.res.on('error', () => {});
          if (!l.res.headersSent) reject(l.res, 'request_too_slow', 408, `no byte of the body arrived for ${ops.bodyTimeoutMs} ms`);
          else l.res.destroy();
          continue;
        }
      }
      if (now - l.started < ops.maxRequestMs) continue;
      live.delete(l);
      svc.log.warn('request cancelled: over SERVICE_MAX_REQUEST_MS', { id: l.id, ms: Math.round(now - l.started) });
      l.res.on('error', () => {}); // the handler's own answer, when it comes, finds the response ended
      if (!l.res.headersSent) reject(l.res, 'request_timeout', 503, `no answer within ${ops.maxRequestMs} ms`);
      else l.res.destroy();
    }
  }, 1000);
  sweep.unref();

  const handler: NodeHandler = (req, res) => {
    const started = performance.now();
    const sent = req.socket.bytesWritten;
    let id = ops.trustProxy ? req.headers['x-request-id'] : undefined;
    if (typeof id !== 'string' || !ID_PATTERN.test(id)) id = `${prefix}-${(++counter).toString(36)}`;
    (res as IdRes)[kId] = id;
    // A write answered by this primary carries the transaction number (and, to a web-app session, its cookie).
    if (stampTxid && req.method !== 'GET' && req.method !== 'HEAD') (res as IdRes)[kTxid] = txidStamp(svc, req);
    res.writeHead = writeHeadWithId;
    if (draining) res.setHeader('connection', 'close');
    const auth = req.headers.authorization ? limitKey(req.headers.authorization) : undefined;
    let limited: string | null = null;
    if (perIp) {
      const ip = clientAddress(req, ops.trustProxy);
      if (ip && (ops.trustProxy || !LOOPBACK.has(ip))) {
        const wait = perIp.tryTake(ip);
        if (wait) limited = reject(res, 'too_many_requests', 429, 'too many requests from this address', wait);
      }
    }
    if (!limited && auth && perKey) {
      const wait = perKey.tryTake(auth);
      if (wait) limited = reject(res, 'too_many_requests', 429, 'too many requests with this API key', wait);
    }
    let holdsKey = false;
    if (!limited && auth) {
      const n = busyKeys.get(auth) ?? 0;
      if (n >= ops.maxConcurrentPerKey)
        limited = reject(res, 'too_many_requests', 429, `more than ${ops.maxConcurrentPerKey} requests in progress with this API key`, 1);
      else {
        busyKeys.set(auth, n + 1);
        holdsKey = true;
      }
    }
    if (!limited && overCap.has(req.socket)) {
      limited = reject(
        res,
        'too_many_requests',
        429,
        `more than ${ops.maxConnectionsPerAddress} connections open at once from this address`,
        1,
      );
    }
    const body = !req.complete && (req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0);
    const entry: Live = { started, res, id, req, body: body ? { read: req.socket?.bytesRead ?? 0, at: started } : null };
    if (!limited) live.add(entry);
    const releaseKey = () => {
      if (!holdsKey) return;
      holdsKey = false;
      const n = busyKeys.get(auth!)! - 1;
      if (n > 0) busyKeys.set(auth!, n);
      else busyKeys.delete(auth!);
    };
    // A change stream (src/http/change-stream.ts) is no request in progress once it streams.
    onLongLived(req, () => {
      live.delete(entry);
      releaseKey();
    });
    res.once('close', () => {
      live.delete(entry);
      releaseKey();
      const ms = performance.now() - started;
      const event = eventOf(req);
      const done: Done = {
        route: event?.context.matchedRoute?.route ?? limited ?? '-',
        status: res.writableFinished ? res.statusCode : 499, // 499: the client went away first
        ms,
        bytes: req.socket ? req.socket.bytesWritten - sent : 0,
      };
      const fields: RequestFields = {
        id,
        principal: (event?.context.principal as string | undefined) ?? null,
        method: req.method ?? '-',
        route: done.route,
        status: done.status,
        ms: Math.round(ms * 10) / 10,
        bytes: done.bytes,
      };
      const slow = ms > ops.logSlowMs;
      if (svc.log.request) svc.log.request(fields, slow);
      else if (slow) svc.log.warn('slow request', fields);
      else svc.log.info('request', fields);
      for (const fn of onDone) fn(done);
    });
    if (!limited) return inner(req, res);
  };
  return {
    handler,
    inFlight: () => live.size,
    onDone,
    drain: () => (draining = true),
    stop: () => clearInterval(sweep),
  };
}

// X-Request-Id joins the headers srvx hands to writeHead (a flat array). A header set earlier
// with setHeader would send Node's writeHead down its slow path (every header of the answer
// removed and appended again, validated each time), a few µs on every request.
const kId = Symbol('kspace.requestId');
const kTxid = Symbol('kspace.txid');
type TxidStamp = { db: Services['db']; cookie: string | null };
type IdRes = ServerResponse & { [kId]?: string; [kTxid]?: TxidStamp };
const nodeWriteHead = ServerResponse.prototype.writeHead;

// X-Service-Txid (docs/scale-out.md) on a successful write answer: the number of the last commit
// of this process, which is at least that of the commit the answer waited for. A caller without
// an API key (the web app: its session cookie, or a sign-in) also gets it as the kspace_txid cookie, which a replica
// reads like X-Service-Min-Txid, so a person never sees their edit vanish.
export const TXID_COOKIE = 'kspace_txid';
const TXID_COOKIE_MAX_AGE_S = 60;

function txidStamp(svc: Services, req: IncomingMessage): TxidStamp {
  // Not an API key: a web-app session, or a sign-in (which has no session cookie yet, and whose
  // session a replica must hold before it answers the app's next GET /session).
  const sessionCaller = !req.headers.authorization;
  // https as src/http/session-cookie.ts judges it: TLS, SERVICE_BASE_URL, or a trusted proxy's X-Forwarded-Proto.
  const proto = svc.config.ops.trustProxy
    ? String(req.headers['x-forwarded-proto'] ?? '')
        .split(',')
        .pop()
        ?.trim()
        .toLowerCase()
    : '';
  const secure = svc.config.baseUrl.startsWith('https:') || (req.socket as { encrypted?: boolean }).encrypted === true || proto === 'https';
  return {
    db: svc.db,
    cookie: sessionCaller ? `; Path=/; Max-Age=${TXID_COOKIE_MAX_AGE_S}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}` : null,
  };
}

function writeHeadWithId(this: IdRes, ...args: unknown[]): ServerResponse {
  const id = this[kId]!;
  const stamp = this[kTxid];
  const extra: string[] = ['x-request-id', id];
  if (stamp && typeof args[0] === 'number' && args[0] < 400) {
    const n = String(committedTxid(stamp.db));
    extra.push('x-service-txid', n);
    if (stamp.cookie) extra.push('set-cookie', `${TXID_COOKIE}=${n}${stamp.cookie}`);
  }
  const last = args[args.length - 1];
  if (Array.isArray(last) && args.length > 1) last.push(...extra);
  else if (last && typeof last === 'object' && args.length > 1) {
    const h = last as Record<string, string | string[]>;
    for (let i = 0; i < extra.length; i += 2) {
      const [k, v] = [extra[i], extra[i + 1]];
      if (k === 'set-cookie' && h[k] !== undefined) h[k] = [...([] as string[]).concat(h[k]), v];
      else h[k] = v;
    }
  } else {
    for (let i = 0; i < extra.length; i += 2) {
      const [k, v] = [extra[i], extra[i + 1]];
      const had = k === 'set-cookie' ? this.getHeader(k) : undefined;
      this.setHeader(k, had === undefined ? v : ([] as string[]).concat(had as string | string[], v));
    }
  }
  return (nodeWriteHead as (...a: unknown[]) => ServerResponse).apply(this, args);
}

/**
 * What the per-key limits count a request under: the SHA-256 of its API key, however the header
 * spells the scheme and spaces (`bearer`, `BEARER`, `Bearer  k` all name the same key, as
 * src/http/auth.ts reads them). A header that names no key is counted as sent: it is refused
 * with a 401 anyway.
 */
function limitKey(header: string): string {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? `k:${hash('sha256', m[1], 'base64url')}` : `h:${header}`;
}

// Answers a refused request here, before h3; returns the pseudo-route logged for it.
function reject(res: ServerResponse, code: ErrorCode, status: number, detail: string, retryAfter?: number): string {
  const body = problemBody(new AppError(code, detail));
  const headers: Record<string, string | number> = {
    'content-type': 'application/problem+json',
    'content-length': Buffer.byteLength(body),
  };
  if (retryAfter) headers['retry-after'] = retryAfter;
  if (status !== 429) headers.connection = 'close';
  res.writeHead(status, headers).end(body);
  return `(${code})`;
}
