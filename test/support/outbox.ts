// A write records an outbox row only while an enabled subscription can receive its event
// (src/store/events.ts), so a test that reads the `events` table subscribes first: to a real
// receiver on 127.0.0.1, on a server started with WEBHOOK_ENV.
import { PAGE_EVENTS } from '../../src/domain/events.ts';
import type { Db } from '../../src/store/db/types.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import type { TestServer } from './server.ts';

export const WEBHOOK_ENV = {
  SERVICE_SETTINGS_ENCRYPTION_KEY: 'test-settings-key-0123456789abcdef-xyz',
  SERVICE_WEBHOOKS_ALLOW_HTTP: '1',
  SERVICE_WEBHOOKS_ALLOW_PRIVATE_URLS: '1',
};

export type OutboxSubscription = { id: string; rx: Receiver; close(): Promise<void> };

/** An enabled subscription of the admin's organisation: every page event of every shared space unless `filter` narrows it. */
export async function subscribeOutbox(
  srv: TestServer,
  filter: { events?: string[]; spaceSlug?: string } = {},
): Promise<OutboxSubscription> {
  const rx = await startReceiver();
  const r = await srv.admin.post('/admin/webhooks', { url: rx.url('/outbox'), events: [...PAGE_EVENTS], ...filter });
  if (r.status !== 201) {
    await rx.close();
    throw new Error(`subscribeOutbox: ${r.status} ${r.text}`);
  }
  const id = (r.body as { id: string }).id;
  return {
    id,
    rx,
    async close() {
      await srv.admin.del(`/admin/webhooks/${id}`);
      await rx.close();
    },
  };
}

/**
 * Throws unless an enabled subscription exists: without one no write records an outbox row, and
 * a check that a refused write left no event would pass whatever the write did.
 */
export function requireSubscription(db: Db): void {
  const n = db.prepare('SELECT count(*) FROM webhooks WHERE disabled_at IS NULL').pluck().get() as number;
  if (n === 0) throw new Error('no enabled webhook subscription: writes record no outbox rows (subscribe with test/support/outbox.ts)');
}
