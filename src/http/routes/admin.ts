import * as v from 'valibot';
import { createPrincipal, issuePrincipalKey, listOrgPrincipals, listPrincipalKeys, revokeKey } from '../../domain/principals.ts';
import { KeyInfo, Me, NewKey, Principal } from '../answers.ts';
import { endpoint } from '../endpoint.ts';
import { json, noContentAfter, writeWithBody } from '../respond.ts';
import { IdParams } from '../schemas.ts';

const CreatePrincipal = v.strictObject({
  name: v.string(),
  kind: v.picklist(['agent', 'user']),
  orgAdmin: v.optional(v.boolean()),
  password: v.optional(v.string()),
});

export const adminEndpoints = [
  endpoint({
    method: 'GET',
    path: '/me',
    tag: 'principals',
    auth: 'key',
    summary: 'The principal behind your key',
    responses: [{ status: 200, schema: Me }],
    handler: ({ caller }) => json({ id: caller.id, name: caller.name, kind: caller.kind, orgAdmin: caller.orgAdmin }),
  }),
  endpoint({
    method: 'GET',
    path: '/admin/principals',
    tag: 'principals',
    auth: 'admin',
    summary: "The organisation's principals",
    responses: [{ status: 200, schema: v.array(Principal) }],
    handler: ({ svc, caller }) => json(listOrgPrincipals(svc, caller)),
  }),
  endpoint({
    method: 'POST',
    path: '/admin/principals',
    tag: 'principals',
    auth: 'admin',
    body: CreatePrincipal,
    bodyExample: { name: 'ci-bot', kind: 'agent', orgAdmin: false },
    summary: 'Create a principal (an agent, or a user with a password)',
    responses: [{ status: 201, schema: Principal }],
    handler: async ({ svc, caller, body }) =>
      json(await writeWithBody(svc, body, (input) => createPrincipal(svc, input, caller.orgId)), 201),
  }),
  endpoint({
    method: 'GET',
    path: '/admin/principals/:id/keys',
    tag: 'principals',
    auth: 'admin',
    params: IdParams,
    summary: "A principal's API keys (never the secrets)",
    responses: [{ status: 200, schema: v.array(KeyInfo) }],
    handler: ({ svc, caller, params }) => json(listPrincipalKeys(svc, caller, params.id)),
  }),
  endpoint({
    method: 'POST',
    path: '/admin/principals/:id/keys',
    tag: 'principals',
    auth: 'admin',
    params: IdParams,
    summary: 'Issue an API key for an agent (shown only in this answer)',
    responses: [{ status: 201, schema: NewKey }],
    handler: async ({ svc, caller, params }) => json(await svc.writes.run(() => issuePrincipalKey(svc, caller, params.id)), 201),
  }),
  endpoint({
    method: 'DELETE',
    path: '/admin/keys/:id',
    tag: 'principals',
    auth: 'admin',
    params: IdParams,
    summary: 'Revoke an API key (refused from the next request on)',
    responses: [{ status: 204 }],
    handler: ({ svc, caller, params }) => noContentAfter(svc, () => revokeKey(svc, caller, params.id)),
  }),
];
