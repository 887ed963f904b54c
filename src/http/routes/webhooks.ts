import type { H3 } from 'h3';
import * as v from 'valibot';
import type { Services } from '../../services.ts';
import { listDeliveryLog } from '../../domain/webhooks/delivery-log.ts';
import {
  createWebhook, listWebhooks, loadWebhook, presentWebhook, removeWebhook, rotateSecret, updateWebhook,
} from '../../domain/webhooks/subscriptions.ts';
import { requireOrgAdmin } from '../../domain/principals.ts';
import { sendTestDelivery } from '../../domain/webhooks/test-delivery.ts';
import { parse } from '../body.ts';
import { encodeCursor, isNumber, readCursor, readLimit } from '../query.ts';
import { json, noContent } from '../respond.ts';
import { on } from '../route.ts';

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
export function registerWebhookRoutes(app: H3, svc: Services): void {
  on(app, svc, 'GET', '/admin/webhooks', ({ caller }) => json(listWebhooks(svc, caller)));

  on(app, svc, 'POST', '/admin/webhooks', async ({ caller, body }) => {
    requireOrgAdmin(caller); // 403 before the body is judged
    const input = parse(CreateWebhook, await body());
    return json(createWebhook(svc, caller, input), 201);
  });

  on(app, svc, 'GET', '/admin/webhooks/:id', ({ caller, params }) => json(presentWebhook(loadWebhook(svc, caller, params.id))));

  on(app, svc, 'PATCH', '/admin/webhooks/:id', async ({ caller, params, body }) => {
    loadWebhook(svc, caller, params.id); // 403/404 before the body is judged
    const patch = parse(PatchWebhook, await body());
    return json(updateWebhook(svc, caller, params.id, patch));
  });

  on(app, svc, 'DELETE', '/admin/webhooks/:id', ({ caller, params }) => {
    removeWebhook(svc, caller, params.id);
    return noContent();
  });

  on(app, svc, 'POST', '/admin/webhooks/:id/rotate-secret', ({ caller, params }) => json(rotateSecret(svc, caller, params.id)));

  on(app, svc, 'POST', '/admin/webhooks/:id/test', async ({ caller, params }) => json(await sendTestDelivery(svc, caller, params.id)));

  on(app, svc, 'GET', '/admin/webhooks/:id/deliveries', ({ caller, params, url }) => {
    const limit = readLimit(url);
    const before = readCursor(url, isNumber) ?? Number.MAX_SAFE_INTEGER;
    const { entries, last } = listDeliveryLog(svc, caller, params.id, { before, limit });
    return json({ deliveries: entries, nextCursor: last === null ? null : encodeCursor(last) });
  });
}
