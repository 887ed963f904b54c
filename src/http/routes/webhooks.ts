import * as v from 'valibot';
import { listDeliveryLog } from '../../domain/webhooks/delivery-log.ts';
import {
  createWebhook,
  listWebhooks,
  loadWebhook,
  presentWebhook,
  removeWebhook,
  rotateSecret,
  updateWebhook,
} from '../../domain/webhooks/subscriptions.ts';
import { sendTestDelivery } from '../../domain/webhooks/test-delivery.ts';
import { DeliveryLog, TestOutcome, Webhook, WebhookWithSecret } from '../answers.ts';
import { endpoint } from '../endpoint.ts';
import { json, noContentAfter, writeWithBody } from '../respond.ts';
import { cursor, IdParams, isNumber, Limit } from '../schemas.ts';
import { encodeCursor } from '../cursor-seal.ts';

const Url = v.pipe(v.string(), v.maxLength(2048));
const Events = v.pipe(v.array(v.string()), v.maxLength(32));
const Description = v.pipe(v.string(), v.maxLength(1024));

const CreateWebhook = v.strictObject({
  url: Url,
  events: Events,
  spaceSlug: v.optional(v.string()),
  description: v.optional(Description),
  enabled: v.optional(v.boolean()),
});

const PatchWebhook = v.strictObject({
  url: v.optional(Url),
  events: v.optional(Events),
  spaceSlug: v.optional(v.nullable(v.string())),
  description: v.optional(v.nullable(Description)),
  enabled: v.optional(v.boolean()),
});

/** Webhook subscriptions and their delivery log; org admins only (403 for anyone else). */
export const webhookEndpoints = [
  endpoint({
    method: 'GET',
    path: '/admin/webhooks',
    tag: 'webhooks',
    auth: 'admin',
    summary: 'List webhook subscriptions',
    responses: [{ status: 200, schema: v.array(Webhook) }],
    handler: ({ svc, caller }) => json(listWebhooks(svc, caller)),
  }),
  endpoint({
    method: 'POST',
    path: '/admin/webhooks',
    tag: 'webhooks',
    auth: 'admin',
    body: CreateWebhook,
    bodyExample: { url: 'https://example.com/hooks/kspace', events: ['page.created', 'page.updated'], spaceSlug: 'wiki' },
    summary: 'Subscribe a URL to events (the signing secret is shown here only)',
    responses: [{ status: 201, schema: WebhookWithSecret }],
    handler: async ({ svc, caller, body }) => json(await writeWithBody(svc, body, (input) => createWebhook(svc, caller, input)), 201),
  }),
  endpoint({
    method: 'GET',
    path: '/admin/webhooks/:id',
    tag: 'webhooks',
    auth: 'admin',
    params: IdParams,
    summary: 'Read a subscription',
    responses: [{ status: 200, schema: Webhook }],
    handler: ({ svc, caller, params }) => json(presentWebhook(loadWebhook(svc, caller, params.id))),
  }),
  endpoint({
    method: 'PATCH',
    path: '/admin/webhooks/:id',
    tag: 'webhooks',
    auth: 'admin',
    params: IdParams,
    body: PatchWebhook,
    bodyExample: { enabled: false },
    summary: 'Change a subscription',
    responses: [{ status: 200, schema: Webhook }],
    handler: async ({ svc, caller, params, body }) => {
      loadWebhook(svc, caller, params.id); // 404 before the body is judged
      return json(await writeWithBody(svc, body, (patch) => updateWebhook(svc, caller, params.id, patch)));
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/admin/webhooks/:id',
    tag: 'webhooks',
    auth: 'admin',
    params: IdParams,
    summary: 'Delete a subscription',
    responses: [{ status: 204 }],
    handler: ({ svc, caller, params }) => noContentAfter(svc, () => removeWebhook(svc, caller, params.id)),
  }),
  endpoint({
    method: 'POST',
    path: '/admin/webhooks/:id/rotate-secret',
    tag: 'webhooks',
    auth: 'admin',
    params: IdParams,
    summary: 'Issue a new signing secret (shown here only)',
    responses: [{ status: 200, schema: WebhookWithSecret }],
    handler: async ({ svc, caller, params }) => json(await svc.writes.run(() => rotateSecret(svc, caller, params.id))),
  }),
  endpoint({
    method: 'POST',
    path: '/admin/webhooks/:id/test',
    tag: 'webhooks',
    auth: 'admin',
    params: IdParams,
    summary: 'Send a `webhook.test` delivery now and report the outcome',
    responses: [{ status: 200, schema: TestOutcome }],
    handler: async ({ svc, caller, params }) => json(await sendTestDelivery(svc, caller, params.id)),
  }),
  endpoint({
    method: 'GET',
    path: '/admin/webhooks/:id/deliveries',
    tag: 'webhooks',
    auth: 'admin',
    params: IdParams,
    query: v.object({ limit: Limit, cursor: cursor(isNumber) }),
    summary: "A subscription's delivery attempts, newest first",
    responses: [{ status: 200, schema: DeliveryLog }],
    handler: ({ svc, caller, params, query }) => {
      const before = query.cursor ?? Number.MAX_SAFE_INTEGER;
      const { entries, last } = listDeliveryLog(svc, caller, params.id, { before, limit: query.limit });
      return json({ deliveries: entries, nextCursor: last === null ? null : encodeCursor(svc, last) });
    },
  }),
];
