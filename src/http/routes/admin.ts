import type { H3 } from 'h3';
import * as v from 'valibot';
import type { Services } from '../../services.ts';
import { createKey, createPrincipal, presentPrincipal, requireOrgAdmin, revokeKey } from '../../domain/principals.ts';
import { notFound } from '../../domain/errors.ts';
import { findPrincipal, listKeys, listPrincipals } from '../../store/principals.ts';
import { parse } from '../body.ts';
import { json, noContent } from '../respond.ts';
import { on } from '../route.ts';

const CreatePrincipal = v.strictObject({
  name: v.string(),
  kind: v.picklist(['agent', 'user']),
  orgAdmin: v.optional(v.boolean()),
  password: v.optional(v.string()),
});

export function registerAdminRoutes(app: H3, svc: Services): void {
  on(app, svc, 'GET', '/me', ({ caller }) => json({ id: caller.id, name: caller.name, kind: caller.kind, orgAdmin: caller.orgAdmin }));

  on(app, svc, 'GET', '/admin/principals', ({ caller }) => {
    requireOrgAdmin(caller);
    return json(listPrincipals(svc.db, caller.orgId).map(presentPrincipal));
  });

  on(app, svc, 'POST', '/admin/principals', async ({ caller, body }) => {
    requireOrgAdmin(caller);
    const input = parse(CreatePrincipal, await body());
    return json(createPrincipal(svc, input, caller.orgId), 201);
  });

  on(app, svc, 'GET', '/admin/principals/:id/keys', ({ caller, params }) => {
    requireOrgAdmin(caller);
    const p = findPrincipal(svc.db, params.id);
    if (!p || p.org_id !== caller.orgId) throw notFound(`principal '${params.id}'`);
    return json(listKeys(svc.db, p.id).map((k) => ({ id: k.id, prefix: k.prefix, createdAt: k.created_at, revokedAt: k.revoked_at })));
  });

  on(app, svc, 'POST', '/admin/principals/:id/keys', ({ caller, params }) => {
    requireOrgAdmin(caller);
    const p = findPrincipal(svc.db, params.id);
    if (!p || p.org_id !== caller.orgId) throw notFound(`principal '${params.id}'`);
    const { id, key } = createKey(svc, p.id);
    return json({ id, key, principalId: p.id }, 201);
  });

  on(app, svc, 'DELETE', '/admin/keys/:id', ({ caller, params }) => {
    requireOrgAdmin(caller);
    revokeKey(svc, caller, params.id);
    return noContent();
  });
}
