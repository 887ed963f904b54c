import type { H3 } from 'h3';
import { FastResponse } from 'srvx';
import type { Services } from '../../services.ts';
import { checkReadiness } from '../../ops/readiness.ts';
import { streamBackup } from '../../ops/backup-stream.ts';
import { requireOrgAdmin } from '../../domain/principals.ts';
import { AppError } from '../../domain/errors.ts';
import { metricsOf } from '../../ops/metrics.ts';
import { timingSafeEqual } from 'node:crypto';
import { json } from '../respond.ts';
import { on } from '../route.ts';

// Operations endpoints: liveness and readiness for a supervisor or a load balancer (no key, no
// details that matter to an attacker).
export function registerOpsRoutes(app: H3, svc: Services): void {
  on(app, svc, 'GET', '/healthz', () => json({ status: 'ok' }), { public: true });

  on(app, svc, 'GET', '/readyz', async () => {
    const r = await checkReadiness(svc);
    if (r.ready) return json(r.body);
    const problem = {
      ...r.body, type: 'https://kspace.dev/problems/not-ready', title: 'Not ready', status: 503, code: 'not_ready', detail: r.reason,
    };
    return new FastResponse(JSON.stringify(problem), { status: 503, headers: { 'content-type': 'application/problem+json', 'retry-after': '1' } });
  }, { public: true });

  // Off unless SERVICE_METRICS=1 (then 404, like any unknown route); SERVICE_METRICS_TOKEN adds a bearer token.
  on(app, svc, 'GET', '/metrics', ({ event }) => {
    const metrics = metricsOf(svc);
    if (!metrics) throw new AppError('not_found', 'no route GET /metrics (set SERVICE_METRICS=1)');
    const token = svc.config.ops.metricsToken;
    if (token && !sameSecret(event.req.headers.get('authorization') ?? '', `Bearer ${token}`)) {
      throw new AppError('unauthorized', 'send Authorization: Bearer <SERVICE_METRICS_TOKEN>');
    }
    return new FastResponse(metrics.render(), { status: 200, headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' } });
  }, { public: true });

  on(app, svc, 'POST', '/admin/backup', ({ caller }) => {
    requireOrgAdmin(caller);
    return streamBackup(svc);
  });
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
