import { getRequestIP, type H3 } from 'h3';
import * as v from 'valibot';
import { FastResponse } from 'srvx';
import type { Services } from '../../services.ts';
import { AppError } from '../../domain/errors.ts';
import { presentPrincipal } from '../../domain/principals.ts';
import { changePassword, endPrincipalSessions, endSession, signIn } from '../../domain/sessions.ts';
import { findPrincipal } from '../../store/principals.ts';
import { sessionOf } from '../auth.ts';
import { parse } from '../body.ts';
import { json, noContent } from '../respond.ts';
import { on } from '../route.ts';
import { clearSessionCookie, isSameOrigin, readSessionCookie, sessionCookie } from '../session-cookie.ts';

const SignIn = v.strictObject({ name: v.pipe(v.string(), v.maxLength(64)), password: v.pipe(v.string(), v.maxLength(1024)) });
const ChangePassword = v.strictObject({
  currentPassword: v.pipe(v.string(), v.maxLength(1024)),
  newPassword: v.pipe(v.string(), v.minLength(8), v.maxLength(1024)),
});

const SMALL_BODY = 16 * 1024;

export function registerSessionRoutes(app: H3, svc: Services): void {
  on(app, svc, 'POST', '/session', async ({ event, body }) => {
    // Signing in from another site (login CSRF) is refused like any cross-site write.
    if ((event.req.headers.get('origin') || event.req.headers.get('sec-fetch-site')) && !isSameOrigin(event, svc)) {
      throw new AppError('csrf_failed', 'sign in from this origin');
    }
    const input = parse(SignIn, await body(SMALL_BODY));
    const s = await signIn(svc, {
      ...input,
      address: getRequestIP(event) ?? 'unknown',
      userAgent: event.req.headers.get('user-agent') ?? '',
    });
    return json({ principal: s.principal, csrfToken: s.csrfToken }, 200, { 'set-cookie': sessionCookie(event, svc, s.token), 'cache-control': 'no-store' });
  }, { public: true });

  on(app, svc, 'GET', '/session', ({ event }) => {
    const session = sessionOf(event, svc);
    if (!session) throw new AppError('unauthorized', 'not signed in');
    const row = findPrincipal(svc.db, session.caller.id);
    if (!row) throw new AppError('unauthorized', 'not signed in');
    return json({ principal: presentPrincipal(row), csrfToken: session.csrfToken }, 200, { 'cache-control': 'no-store' });
  }, { public: true });

  on(app, svc, 'DELETE', '/session', async ({ event }) => {
    // The caller was authenticated by the cookie (with the CSRF check): signing out is a write too.
    const token = readSessionCookie(event);
    if (token && sessionOf(event, svc)) await endSession(svc, token);
    return new FastResponse(null, { status: 204, headers: { 'set-cookie': clearSessionCookie(event, svc) } });
  });

  on(app, svc, 'POST', '/me/password', async ({ event, caller, body }) => {
    const input = parse(ChangePassword, await body(SMALL_BODY));
    const keep = sessionOf(event, svc)?.idHash ?? null;
    await changePassword(svc, caller, keep, input.currentPassword, input.newPassword, getRequestIP(event) ?? 'unknown');
    return noContent();
  });

  on(app, svc, 'DELETE', '/admin/principals/:id/sessions', async ({ caller, params }) => {
    await endPrincipalSessions(svc, caller, params.id);
    return noContent();
  });
}
