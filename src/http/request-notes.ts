// What the front's log line and limiters learn of a request from the layers it hands it to: the
// h3 event (its route pattern and principal), or the same facts from a request answered before
// h3 (src/http/page-read.ts); and the caller's address as every limiter reads it.
import type { IncomingMessage } from 'node:http';
import type { H3Event } from 'h3';
import type { Caller } from '../model.ts';

const kEvent = Symbol('kspace.event');
/** What the log line reads of a request: an h3 event, or the same two facts from a request answered before h3. */
type Noted = { context: { matchedRoute?: { route?: string }; principal?: unknown } };
type Tagged = IncomingMessage & { [kEvent]?: Noted };

/** h3's onRequest hook: ties the event to its Node request, for the route and principal. */
export function noteEvent(event: H3Event): void {
  const req = event.runtime?.node?.req as Tagged | undefined;
  if (req) req[kEvent] = event;
}

/**
 * The caller's address as every limiter reads it (the per-address rate limit, the sign-in
 * limiter): the socket's, or with SERVICE_TRUST_PROXY=1 the last X-Forwarded-For hop.
 */
export function requestAddress(event: H3Event, trustProxy: boolean): string {
  const req = event.runtime?.node?.req as IncomingMessage | undefined;
  return (req ? clientAddress(req, trustProxy) : undefined) ?? 'unknown';
}

/** A request answered on the Node side, without an h3 event (src/http/page-read.ts): its route pattern and principal. */
export function noteDirect(req: IncomingMessage, route: string, principal: string): void {
  (req as Tagged)[kEvent] = { context: { matchedRoute: { route }, principal } };
}

/** Called once a request's caller is known (auth). */
export function notePrincipal(event: H3Event, caller: Caller): void {
  event.context.principal = caller.id;
}

/** What the request was noted as, once answered (the front's log line). */
export function eventOf(req: IncomingMessage): Noted | undefined {
  return (req as Tagged)[kEvent];
}

/** The caller's address: the socket's, or the last X-Forwarded-For hop behind a trusted proxy. */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string | undefined {
  if (trustProxy) {
    const fwd = req.headers['x-forwarded-for'];
    const list = typeof fwd === 'string' ? fwd.split(',') : [];
    const last = list[list.length - 1]?.trim();
    if (last) return last;
  }
  return req.socket.remoteAddress;
}

const kLongLived = Symbol('kspace.longLived');
type Lives = IncomingMessage & { [kLongLived]?: () => void };

/** The front's hook for a request that becomes a long-lived stream (src/front/front.ts). */
export function onLongLived(req: IncomingMessage, fn: () => void): void {
  (req as Lives)[kLongLived] = fn;
}

/**
 * Called by a handler whose answer is a long-lived stream (GET /changes/stream): the front stops
 * counting it as a request in progress (no SERVICE_MAX_REQUEST_MS, no per-key slot, no wait at
 * shutdown); the stream has its own limits.
 */
export function noteLongLived(event: H3Event): void {
  const req = event.runtime?.node?.req as Lives | undefined;
  const fn = req?.[kLongLived];
  if (req && fn) {
    req[kLongLived] = undefined;
    fn();
  }
}
