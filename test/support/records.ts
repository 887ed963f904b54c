import { requireSubscription } from './outbox.ts';
import type { Client, TestServer } from './server.ts';

/** Outbox rows written for one page; the test must have subscribed (test/support/outbox.ts). */
export function eventsFor(srv: TestServer, space: string, path: string): Array<{ event: string }> {
  requireSubscription(srv.svc.db);
  return srv.svc.db
    .prepare(`SELECT event FROM events WHERE json_extract(payload, '$.page.space') = ?
                             AND json_extract(payload, '$.page.path') = ? ORDER BY id`)
    .all(space, path) as never;
}

/** What a refused write must leave behind: no page, no revision, no event (or none new). */
export async function traces(srv: TestServer, c: Client, space: string, path: string) {
  const page = await c.get(`/pages/${space}/${path}`);
  const revs = await c.get(`/pages/${space}/${path}/revisions`);
  return {
    page: page.status,
    version: page.status === 200 ? (page.body.version as number) : null,
    revisions: revs.status === 200 ? (revs.body.revisions as unknown[]).length : revs.status,
    events: eventsFor(srv, space, path).length,
  };
}

/** The fields of the task record type the record tests share: a stage (default todo) and an owner, both required, and 1 to 13 points. */
export const TASK_FIELDS = [
  { key: 'stage', type: 'select', options: ['todo', 'doing', 'done'], required: true, default: 'todo' },
  { key: 'owner', type: 'string', required: true },
  { key: 'points', type: 'number', min: 1, max: 13 },
];

/** Puts a template page; throws unless it is stored. */
export async function putTemplate(
  c: Client,
  space: string,
  name: string,
  frontmatter: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  const r = await c.put(`/pages/${space}/templates/${name}`, { title: name, content: '', frontmatter, ...extra });
  if (r.status !== 200 && r.status !== 201) throw new Error(`template ${name}: ${r.status} ${r.text}`);
  return r;
}
