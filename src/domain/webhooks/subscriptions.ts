// Webhook subscriptions (org admin): create, change, rotate, remove. The signing secret is sealed
// before it touches the database and is shown only by create and rotate-secret.
import { randomBytes } from 'node:crypto';
import type { Services } from '../../services.ts';
import { tx } from '../../store/db/transactions.ts';
import { findSpaceBySlug } from '../../store/spaces.ts';
import * as store from '../../store/webhooks.ts';
import { invalid, notFound } from '../errors.ts';
import { EVENT_NAMES } from '../events.ts';
import { checkWebhookUrl } from '../net/address-guard.ts';
import { requireOrgAdmin } from '../principals.ts';
import { notifySubscriptionChanged } from './dispatcher.ts';
import { requireSecretBox } from './secret-box.ts';
import { newWebhookSecret } from './signing.ts';
import type { Caller, Issue } from '../../model.ts';

type Webhook = {
  id: string;
  url: string;
  events: string[];
  spaceSlug?: string;
  description?: string;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
};

export function presentWebhook(w: store.WebhookView): Webhook {
  return {
    id: w.id,
    url: w.url,
    events: JSON.parse(w.events) as string[],
    ...(w.space_slug !== null ? { spaceSlug: w.space_slug } : {}),
    ...(w.description !== null ? { description: w.description } : {}),
    enabled: w.disabled_at === null,
    createdAt: w.created_at,
    updatedAt: w.updated_at,
  };
}

export function listWebhooks(svc: Services, caller: Caller): Webhook[] {
  requireOrgAdmin(caller);
  return store.listWebhooks(svc.db, caller.orgId).map(presentWebhook);
}

/** A subscription of the caller's organisation, else 404. */
export function loadWebhook(svc: Services, caller: Caller, id: string): store.WebhookView {
  requireOrgAdmin(caller);
  const w = store.findWebhook(svc.db, caller.orgId, id);
  if (!w) throw notFound(`webhook '${id}'`);
  return w;
}

type NewWebhook = { url: string; events: string[]; spaceSlug?: string; description?: string; enabled?: boolean };

export function createWebhook(svc: Services, caller: Caller, input: NewWebhook): Webhook & { secret: string } {
  requireOrgAdmin(caller);
  const box = requireSecretBox(svc); // 503 before anything is checked or stored
  const issues = [...checkUrl(svc, input.url), ...checkEvents(input.events)];
  const spaceId = input.spaceSlug === undefined ? null : spaceFilter(svc, caller, input.spaceSlug, issues);
  if (issues.length) throw invalid(issues);
  const secret = newWebhookSecret();
  const id = `wh_${randomBytes(12).toString('base64url')}`;
  const now = svc.now();
  tx(svc.db, () =>
    store.insertWebhook(svc.db, {
      id,
      org_id: caller.orgId,
      url: input.url,
      events: JSON.stringify(unique(input.events)),
      space_id: spaceId,
      description: input.description ?? null,
      active_since: now,
      disabled_at: input.enabled === false ? now : null,
      secret: box.seal(secret),
      created_at: now,
      updated_at: now,
    }),
  );
  return { ...presentWebhook(store.findWebhook(svc.db, caller.orgId, id)!), secret };
}

type WebhookPatch = {
  url?: string;
  events?: string[];
  spaceSlug?: string | null;
  description?: string | null;
  enabled?: boolean;
};

/** PATCH: the same checks as create for what it changes; `null` clears the space filter or description. */
export function updateWebhook(svc: Services, caller: Caller, id: string, patch: WebhookPatch): Webhook {
  const w = loadWebhook(svc, caller, id);
  const issues = [
    ...(patch.url !== undefined ? checkUrl(svc, patch.url) : []),
    ...(patch.events !== undefined ? checkEvents(patch.events) : []),
  ];
  const spaceId =
    patch.spaceSlug === undefined ? w.space_id : patch.spaceSlug === null ? null : spaceFilter(svc, caller, patch.spaceSlug, issues);
  if (issues.length) throw invalid(issues);
  const now = svc.now();
  const wasEnabled = w.disabled_at === null;
  const enabled = patch.enabled ?? wasEnabled;
  tx(svc.db, () =>
    store.updateWebhook(
      svc.db,
      w.id,
      {
        url: patch.url ?? w.url,
        events: patch.events !== undefined ? JSON.stringify(unique(patch.events)) : w.events,
        space_id: spaceId,
        description: patch.description === undefined ? w.description : patch.description,
        // A new window opens at a re-enable and closes at a disable (see schema.sql).
        active_since: enabled && !wasEnabled ? now : w.active_since,
        disabled_at: enabled ? null : wasEnabled ? now : w.disabled_at,
      },
      now,
    ),
  );
  notifySubscriptionChanged(svc, w.id);
  return presentWebhook(store.findWebhook(svc.db, caller.orgId, w.id)!);
}

/** A new secret, returned once; later attempts (retries of pending deliveries too) sign with it. */
export function rotateSecret(svc: Services, caller: Caller, id: string): Webhook & { secret: string } {
  const w = loadWebhook(svc, caller, id);
  const box = requireSecretBox(svc);
  const secret = newWebhookSecret();
  tx(svc.db, () => store.updateSecret(svc.db, w.id, box.seal(secret), svc.now()));
  notifySubscriptionChanged(svc, w.id);
  return { ...presentWebhook(store.findWebhook(svc.db, caller.orgId, w.id)!), secret };
}

/** Removes the subscription with its pending deliveries and its delivery log. */
export function removeWebhook(svc: Services, caller: Caller, id: string): void {
  const w = loadWebhook(svc, caller, id);
  tx(svc.db, () => store.deleteWebhook(svc.db, w.id));
  notifySubscriptionChanged(svc, w.id);
}

const KNOWN_EVENTS = new Set<string>(EVENT_NAMES);

function checkEvents(events: string[]): Issue[] {
  if (events.length === 0) return [{ key: 'events', code: 'min', message: 'subscribe to at least one event' }];
  return events.flatMap((e, i) =>
    KNOWN_EVENTS.has(e)
      ? []
      : [
          {
            key: `events.${i}`,
            code: 'option',
            message: `unknown event '${e}'; known: ${EVENT_NAMES.join(', ')}`,
          },
        ],
  );
}

function checkUrl(svc: Services, url: string): Issue[] {
  const { allowHttp, allowPrivate } = svc.config.webhooks;
  return checkWebhookUrl(url, { allowHttp, allowPrivate });
}

// The space filter names a shared space of the caller's organisation; personal spaces never emit.
function spaceFilter(svc: Services, caller: Caller, slug: string, issues: Issue[]): number | null {
  const space = findSpaceBySlug(svc.db, slug);
  if (!space || space.org_id !== caller.orgId || space.owner_id !== null) {
    issues.push({ key: 'spaceSlug', code: 'option', message: `'${slug}' is not a shared space of this organisation` });
    return null;
  }
  return space.id;
}

const unique = (xs: string[]) => [...new Set(xs)];
