import crypto from 'node:crypto';
import type { H3Event } from 'h3';
import type { Services } from '../services.ts';
import { AppError } from '../domain/errors.ts';
import { authenticateKey } from '../domain/principals.ts';
import { notePrincipal } from './request-notes.ts';
import { authenticateSession, type SessionCaller } from '../domain/sessions.ts';
import { isSameOrigin, readSessionCookie } from './session-cookie.ts';
import type { Caller } from '../model.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The principal behind a request: a Bearer API key, or the web app's session cookie. A request
 * with Authorization is judged by it alone. A cookie-authenticated request that may change
 * something must carry the session's CSRF token (X-CSRF-Token) and come from this origin.
 * `bearerOnly` (MCP) ignores cookies.
 */
export function requireCaller(event: H3Event, svc: Services, opts: { bearerOnly?: boolean } = {}): Caller {
  const header = event.req.headers.get('authorization');
  if (header || opts.bearerOnly) {
    const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    const caller = m ? authenticateKey(svc, m[1]) : null;
    if (caller) {
      notePrincipal(event, caller);
      return caller;
    }
    throw new AppError('unauthorized', header ? 'the API key is missing, unknown or revoked' : 'send Authorization: Bearer <API key>');
  }
  const session = sessionOf(event, svc);
  if (!session) {
    throw new AppError(
      'unauthorized',
      readSessionCookie(event, svc) ? 'the session has ended; sign in again' : 'send Authorization: Bearer <API key> or sign in',
    );
  }
  if (!SAFE_METHODS.has(event.req.method)) checkCsrf(event, svc, session);
  notePrincipal(event, session.caller);
  return session.caller;
}

/** The session behind the request's cookie (looked up once per request), or null. */
export function sessionOf(event: H3Event, svc: Services): SessionCaller | null {
  const ctx = event.context as { session?: SessionCaller | null };
  if (ctx.session !== undefined) return ctx.session;
  const token = readSessionCookie(event, svc);
  ctx.session = token ? authenticateSession(svc, token) : null;
  return ctx.session;
}

function checkCsrf(event: H3Event, svc: Services, session: SessionCaller): void {
  const given = event.req.headers.get('x-csrf-token') ?? '';
  const a = Buffer.from(given);
  const b = Buffer.from(session.csrfToken);
  if (a.length !== b.length || !crypto.timingSafeEqual(a, b)) {
    throw new AppError('csrf_failed', 'a signed-in request that changes something needs the X-CSRF-Token header of its session');
  }
  if (!isSameOrigin(event, svc)) throw new AppError('csrf_failed', 'the request does not come from this origin');
}
