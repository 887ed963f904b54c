import { timingSafeEqual } from 'node:crypto';
import * as v from 'valibot';
import { FastResponse } from 'srvx';
import { AppError } from '../../domain/errors.ts';
import { streamBackup } from '../../ops/backup-stream.ts';
import { metricsOf } from '../../ops/metrics.ts';
import { checkReadiness } from '../../ops/readiness.ts';
import { endpoint } from '../endpoint.ts';
import { json } from '../respond.ts';

// Operations endpoints: liveness and readiness for a supervisor or a load balancer (no key, no
// details that matter to an attacker).
export const opsEndpoints = [
  endpoint({
    method: 'GET',
    path: '/healthz',
    tag: 'ops',
    auth: 'public',
    summary: 'Liveness',
    responses: [{ status: 200, schema: v.strictObject({ status: v.literal('ok') }) }],
    handler: () => json({ status: 'ok' }),
  }),
  endpoint({
    method: 'GET',
    path: '/readyz',
    tag: 'ops',
    auth: 'public',
    summary: 'Readiness (database writable, schema, full-text backlog, dispatcher); 503 problem+json when not ready',
    responses: [{ status: 200, schema: v.looseObject({ status: v.literal('ready'), role: v.string() }) }],
    handler: async ({ svc }) => {
      const r = await checkReadiness(svc);
      if (r.ready) return json(r.body);
      const problem = {
        ...r.body,
        type: 'https://kspace.dev/problems/not-ready',
        title: 'Not ready',
        status: 503,
        code: 'not_ready',
        detail: r.reason,
      };
      return new FastResponse(JSON.stringify(problem), {
        status: 503,
        headers: { 'content-type': 'application/problem+json', 'retry-after': '1' },
      });
    },
  }),
  // Off unless SERVICE_METRICS=1 (then 404, like any unknown route); SERVICE_METRICS_TOKEN adds a bearer token.
  endpoint({
    method: 'GET',
    path: '/metrics',
    tag: 'ops',
    auth: 'public',
    summary: 'Prometheus metrics (SERVICE_METRICS=1; SERVICE_METRICS_TOKEN as a Bearer token when set)',
    responses: [{ status: 200, contentType: 'text/plain; version=0.0.4' }],
    errors: [401], // SERVICE_METRICS_TOKEN set and not sent
    handler: ({ svc, event }) => {
      const metrics = metricsOf(svc);
      if (!metrics) throw new AppError('not_found', 'no route GET /metrics (set SERVICE_METRICS=1)');
      const token = svc.config.ops.metricsToken;
      if (token && !sameSecret(event.req.headers.get('authorization') ?? '', `Bearer ${token}`)) {
        throw new AppError('unauthorized', 'send Authorization: Bearer <SERVICE_METRICS_TOKEN>');
      }
      return new FastResponse(metrics.render(), { status: 200, headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' } });
    },
  }),
  // The copy holds every space, personal ones too, which org admins otherwise never see into: so
  // it is the operator's, off unless SERVICE_ADMIN_BACKUP=1 (then org admins); `kspace backup` on
  // the data directory needs no setting.
  endpoint({
    method: 'POST',
    path: '/admin/backup',
    tag: 'ops',
    auth: 'admin',
    summary: 'A consistent copy of the database, streamed (SERVICE_ADMIN_BACKUP=1)',
    description: 'Off unless the operator sets SERVICE_ADMIN_BACKUP=1 (403 otherwise): the copy holds every personal space.',
    responses: [{ status: 200, contentType: 'application/vnd.sqlite3', streamed: true }],
    handler: ({ svc }) => {
      if (!svc.config.ops.adminBackup) {
        throw new AppError(
          'forbidden',
          'POST /admin/backup is off: the copy holds every personal space; the operator runs `kspace backup` or sets SERVICE_ADMIN_BACKUP=1',
        );
      }
      return streamBackup(svc);
    },
  }),
];

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
