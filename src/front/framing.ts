import type { IncomingMessage } from 'node:http';
import { invalid, type AppError } from '../domain/errors.ts';

// How a replica frames what it forwards (docs/security.md, "Forwarding through a replica, and
// what reaches the server").
// A forwarded request carries the framing kspace sets from what Node's parser read: the body's
// Content-Length, or chunked, or no body (Content-Length: 0 on a method other than GET and HEAD).
// The client's own Content-Length and Transfer-Encoding are never copied. A request whose framing
// two servers could read two ways is refused before anything of it is forwarded.

/** A request's body as Node's parser delimited it. */
type Framing = { kind: 'none' } | { kind: 'length'; length: number } | { kind: 'chunked' };

const LENGTH = /^\d{1,15}$/;

/** The request's framing, or the 400 that refuses it when a server could read it another way. */
export function framingOf(req: IncomingMessage): Framing | AppError {
  let te: string | null = null;
  let cl: string | null = null;
  let teCount = 0;
  let clCount = 0;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (name === 'transfer-encoding') {
      teCount++;
      te = raw[i + 1];
    } else if (name === 'content-length') {
      clCount++;
      cl = raw[i + 1];
    }
  }
  const refuse = (key: string, message: string) => invalid([{ key, code: 'framing', message }]);
  if (teCount > 0 && clCount > 0) return refuse('Transfer-Encoding', 'a request carries Transfer-Encoding or Content-Length, not both');
  if (teCount > 1) return refuse('Transfer-Encoding', 'Transfer-Encoding appears more than once');
  if (clCount > 1) return refuse('Content-Length', 'Content-Length appears more than once');
  const bodiless = req.method === 'GET' || req.method === 'HEAD';
  if (te !== null) {
    if (te.trim().toLowerCase() !== 'chunked') return refuse('Transfer-Encoding', "the only Transfer-Encoding accepted is 'chunked'");
    if (bodiless) return refuse('Transfer-Encoding', `a ${req.method} request has no body`);
    return { kind: 'chunked' };
  }
  if (cl !== null) {
    const v = cl.trim();
    if (!LENGTH.test(v)) return refuse('Content-Length', 'Content-Length is a whole number of bytes');
    const length = Number(v);
    if (bodiless && length > 0) return refuse('Content-Length', `a ${req.method} request has no body`);
    return length > 0 ? { kind: 'length', length } : { kind: 'none' };
  }
  return { kind: 'none' };
}

// Hop-by-hop headers (RFC 9110 §7.6.1), the framing kspace sets itself, Expect (answered by the
// replica's own server), and the two it writes itself (X-Forwarded-For, X-Request-Id).
const NOT_FORWARDED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'content-length',
  'expect',
  'x-forwarded-for',
  'x-request-id',
  'http2-settings',
]);

/**
 * The headers a replica sends to the primary: the client's end-to-end headers, the framing set
 * here, X-Forwarded-For and the request's id.
 */
export function forwardedHeaders(
  req: IncomingMessage,
  framing: Framing,
  forwardedFor: string | undefined,
  id: string | undefined,
): Record<string, string | string[]> {
  const named = new Set<string>();
  const conn = req.headers.connection;
  if (conn) for (const t of conn.split(',')) named.add(t.trim().toLowerCase());
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined && !NOT_FORWARDED.has(k) && !named.has(k)) headers[k] = v;
  }
  if (framing.kind === 'length') headers['content-length'] = String(framing.length);
  else if (framing.kind === 'chunked') headers['transfer-encoding'] = 'chunked';
  else if (req.method !== 'GET' && req.method !== 'HEAD') headers['content-length'] = '0';
  if (forwardedFor) headers['x-forwarded-for'] = forwardedFor;
  if (id) headers['x-request-id'] = id;
  return headers;
}

/**
 * X-Forwarded-For as a replica passes it on: the list it received, with the address of its own
 * peer appended, unless SERVICE_TRUST_PROXY=1 says that peer is a proxy that appended the client
 * already. Either way its last entry is the client as this server determined it, which is the one
 * entry the primary reads (with SERVICE_TRUST_PROXY=1; without it, the primary reads its peer).
 */
export function forwardedFor(req: IncomingMessage, trustProxy: boolean): string | undefined {
  const h = req.headers['x-forwarded-for'];
  const list = (Array.isArray(h) ? h.join(', ') : (h ?? ''))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (trustProxy && list.length > 0) return list.join(', ');
  const peer = req.socket.remoteAddress;
  if (peer) list.push(peer);
  return list.length ? list.join(', ') : undefined;
}

/** Whether a header value from the upstream answer is hop-by-hop (not passed back to the client). */
export function isHopByHop(name: string): boolean {
  const k = name.toLowerCase();
  return (
    k === 'connection' ||
    k === 'keep-alive' ||
    k === 'proxy-connection' ||
    k === 'transfer-encoding' ||
    k === 'te' ||
    k === 'trailer' ||
    k === 'upgrade' ||
    k === 'x-request-id'
  );
}
