import type { H3Event } from 'h3';
import type { Services } from '../services.ts';

// The session cookie and the same-origin checks (docs/web.md, "Sessions"). Over https the cookie
// is `__Host-kspace_session` with Secure (the prefix pins it to this host, path /, Secure).

const COOKIE = 'kspace_session';
const SECURE_COOKIE = '__Host-kspace_session';

/**
 * True when the app is served over https: the request came over TLS, SERVICE_BASE_URL says https,
 * or, with SERVICE_TRUST_PROXY=1, the proxy's X-Forwarded-Proto (its last hop) says https.
 */
function isHttps(event: H3Event, svc: Services): boolean {
  if (event.url.protocol === 'https:' || svc.config.baseUrl.startsWith('https:')) return true;
  if (!svc.config.ops.trustProxy) return false;
  const proto = event.req.headers.get('x-forwarded-proto')?.split(',').pop()?.trim().toLowerCase();
  return proto === 'https';
}

/**
 * The session token from the Cookie header, or null. Over https only `__Host-kspace_session`
 * counts: the plain name can be set by a neighbouring host or over plain http (it carries no
 * prefix guarantee), so accepting it there would let such a cookie fix a session. Over http the
 * `__Host-` one still comes first.
 */
export function readSessionCookie(event: H3Event, svc: Services): string | null {
  const header = event.req.headers.get('cookie');
  if (!header) return null;
  const secureOnly = isHttps(event, svc);
  let plain: string | null = null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === SECURE_COOKIE && value) return value;
    if (name === COOKIE && value && !secureOnly) plain = value;
  }
  return plain;
}

/** Set-Cookie for a new session: a browser-session cookie (no Max-Age; the server enforces expiry). */
export function sessionCookie(event: H3Event, svc: Services, token: string): string {
  return isHttps(event, svc)
    ? `${SECURE_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Secure`
    : `${COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax`;
}

export function clearSessionCookie(event: H3Event, svc: Services): string {
  return isHttps(event, svc)
    ? `${SECURE_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=0`
    : `${COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`;
}

/**
 * Whether a request comes from this origin: its Origin header names this server (the address it
 * was sent to, or SERVICE_BASE_URL), or, without Origin, the browser says Sec-Fetch-Site: same-origin.
 * A request with neither is refused: browsers send at least one on every non-GET request.
 */
export function isSameOrigin(event: H3Event, svc: Services): boolean {
  const origin = event.req.headers.get('origin');
  const site = event.req.headers.get('sec-fetch-site');
  if (site && site !== 'same-origin') return false;
  if (origin && origin !== 'null') return origin === event.url.origin || origin === new URL(svc.config.baseUrl).origin;
  return site === 'same-origin';
}
