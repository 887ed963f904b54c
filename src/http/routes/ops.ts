import type { H3 } from 'h3';
import { FastResponse } from 'srvx';
import type { Services } from '../../services.ts';
import { checkReadiness } from '../../ops/readiness.ts';
import { streamBackup } from '../../ops/backup-stream.ts';
import { requireOrgAdmin } from '../../domain/principals.ts';
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

  on(app, svc, 'POST', '/admin/backup', ({ caller }) => {
    requireOrgAdmin(caller);
    return streamBackup(svc);
  });
}
