import * as v from 'valibot';
import { FastResponse } from 'srvx';
import { AppError } from '../../domain/errors.ts';
import { principalOf } from '../../domain/principals.ts';
import { changePassword, endPrincipalSessions, endSession, signIn } from '../../domain/sessions.ts';
import { requestAddress } from '../request-notes.ts';
import { Principal } from '../answers.ts';
import { sessionOf } from '../auth.ts';
import { endpoint } from '../endpoint.ts';
import { json, noContent } from '../respond.ts';
import { IdParams } from '../schemas.ts';
import { clearSessionCookie, isSameOrigin, readSessionCookie, sessionCookie } from '../session-cookie.ts';

const SignIn = v.strictObject({ name: v.pipe(v.string(), v.maxLength(64)), password: v.pipe(v.string(), v.maxLength(1024)) });
const ChangePassword = v.strictObject({
  currentPassword: v.pipe(v.string(), v.maxLength(1024)),
  newPassword: v.pipe(v.string(), v.minLength(8), v.maxLength(1024)),
});
const Session = v.strictObject({ principal: Principal, csrfToken: v.string() });

const SMALL_BODY = 16 * 1024;

export const sessionEndpoints = [
  endpoint({
    method: 'POST',
    path: '/session',
    tag: 'sessions',
    auth: 'public',
    body: SignIn,
    bodyExample: { name: 'alice', password: 'correct horse battery staple' },
    summary: 'Sign in (the web app): sets the session cookie, answers the CSRF token',
    responses: [{ status: 200, schema: Session }],
    errors: [401, 403], // invalid_credentials; csrf_failed from another origin (429 rate_limited: every operation)
    handler: async ({ svc, event, body }) => {
      // Signing in from another site (login CSRF) is refused like any cross-site write.
      if ((event.req.headers.get('origin') || event.req.headers.get('sec-fetch-site')) && !isSameOrigin(event, svc)) {
        throw new AppError('csrf_failed', 'sign in from this origin');
      }
      const input = await body(SMALL_BODY);
      const s = await signIn(svc, {
        ...input,
        address: requestAddress(event, svc.config.ops.trustProxy),
        userAgent: event.req.headers.get('user-agent') ?? '',
      });
      return json({ principal: s.principal, csrfToken: s.csrfToken }, 200, {
        'set-cookie': sessionCookie(event, svc, s.token),
        'cache-control': 'no-store',
      });
    },
  }),
  endpoint({
    method: 'GET',
    path: '/session',
    tag: 'sessions',
    auth: 'public',
    summary: 'The signed-in principal and the CSRF token of the session cookie',
    responses: [{ status: 200, schema: Session }],
    errors: [401], // not signed in
    handler: ({ svc, event }) => {
      const session = sessionOf(event, svc);
      const principal = session && principalOf(svc, session.caller.id);
      if (!session || !principal) throw new AppError('unauthorized', 'not signed in');
      return json({ principal, csrfToken: session.csrfToken }, 200, { 'cache-control': 'no-store' });
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/session',
    tag: 'sessions',
    auth: 'key',
    summary: 'Sign out (ends the session of the cookie)',
    responses: [{ status: 204 }],
    handler: async ({ svc, event }) => {
      // The caller was authenticated by the cookie (with the CSRF check): signing out is a write too.
      const token = readSessionCookie(event, svc);
      if (token && sessionOf(event, svc)) await endSession(svc, token);
      return new FastResponse(null, { status: 204, headers: { 'set-cookie': clearSessionCookie(event, svc) } });
    },
  }),
  endpoint({
    method: 'POST',
    path: '/me/password',
    tag: 'sessions',
    auth: 'key',
    body: ChangePassword,
    bodyExample: { currentPassword: 'old password', newPassword: 'a new long password' },
    summary: 'Change your password (your other sessions end)',
    responses: [{ status: 204 }],
    handler: async ({ svc, event, caller, body }) => {
      const input = await body(SMALL_BODY);
      const keep = sessionOf(event, svc)?.idHash ?? null;
      await changePassword(svc, caller, keep, input.currentPassword, input.newPassword, requestAddress(event, svc.config.ops.trustProxy));
      return noContent();
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/admin/principals/:id/sessions',
    tag: 'sessions',
    auth: 'key',
    params: IdParams,
    summary: 'End every session of a principal (org admins)',
    responses: [{ status: 204 }],
    handler: async ({ svc, caller, params }) => {
      await endPrincipalSessions(svc, caller, params.id);
      return noContent();
    },
  }),
];
