import type { H3Event } from 'h3';
import type { Services } from '../services.ts';
import type { Caller } from '../domain/access.ts';
import { AppError } from '../domain/errors.ts';
import { authenticateKey, hashKey, toCaller } from '../domain/principals.ts';
import { findPrincipalBySession } from '../store/principals.ts';

export const SESSION_COOKIE = 'kspace_session';

/**
 * The principal behind a request: a Bearer API key, or the web app's session cookie (whose
 * writes must come from this server's own origin). 401 when neither is valid.
 */
export function requireCaller(event: H3Event, svc: Services): Caller {
  const header = event.req.headers.get('authorization');
  if (header) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const caller = m ? authenticateKey(svc, m[1]) : null;
    if (!caller) throw new AppError('unauthorized', 'the API key is missing, unknown or revoked', undefined, undefined);
    return caller;
  }
  const cookie = readCookie(event.req.headers.get('cookie'), SESSION_COOKIE);
  if (cookie) {
    const p = findPrincipalBySession(svc.db, hashKey(cookie), svc.now());
    if (p) {
      if (event.req.method !== 'GET' && event.req.method !== 'HEAD') checkOrigin(event, svc);
      return toCaller(p);
    }
  }
  throw new AppError('unauthorized', 'send Authorization: Bearer <API key>');
}

function checkOrigin(event: H3Event, svc: Services): void {
  const origin = event.req.headers.get('origin');
  const own = new URL(event.req.url).origin;
  if (origin !== own && origin !== svc.config.baseUrl) throw new AppError('forbidden', 'cross-origin writes are refused');
}

function readCookie(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const [k, ...rest] = part.trim().split('=');
    if (k === name) return rest.join('=');
  }
  return null;
}
