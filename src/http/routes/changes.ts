// The change feed (docs/changes.md): GET /changes pages through it, GET /changes/stream follows it.
import * as v from 'valibot';
import { checkSince, listChanges, sinceOf } from '../../domain/changes.ts';
import { invalid } from '../../domain/errors.ts';
import { resolveSpace } from '../../domain/spaces.ts';
import { ChangeList } from '../answers.ts';
import { sessionOf } from '../auth.ts';
import { openChangeStream, type Credential } from '../change-stream.ts';
import { endpoint } from '../endpoint.ts';
import { documentAs } from '../json-schema.ts';
import { noteLongLived } from '../request-notes.ts';
import { json } from '../respond.ts';
import { limit, SPACE_FILTER_PATTERN } from '../schemas.ts';

const TXID = /^\d{1,15}$/;

/** `since`: a txid (a whole number); absent or 0: from the oldest change kept; `now`: from the newest txid. */
const Since = documentAs(
  v.pipe(
    v.optional(v.string(), ''),
    v.check(
      (s) => s === '' || s === 'now' || TXID.test(s),
      'since is a whole number (a txid: nextSince of an earlier answer, or 0) or now',
    ),
    v.transform((s): number | 'now' => (s === 'now' ? 'now' : s === '' ? 0 : Number(s))),
  ),
  {
    type: 'string',
    pattern: '^(?:\\d{1,15}|now)$',
    default: '0',
    description:
      'the txid to follow from (nextSince of an earlier answer); absent or 0: the oldest change kept; `now`: the newest txid (nothing older is sent)',
  },
);
const Space = documentAs(v.optional(v.string()), {
  type: 'string',
  pattern: SPACE_FILTER_PATTERN,
  description: 'only changes in (or out of) this space; absent: every space',
});

export const changeEndpoints = [
  endpoint({
    method: 'GET',
    path: '/changes',
    tag: 'changes',
    auth: 'key',
    query: v.object({ since: Since, space: Space, limit: limit(1000, 200) }),
    summary: 'The changes to pages and files you may read, in commit order',
    description:
      'Each change carries the txid of its commit; ask again with `since` = `nextSince`. A delete or a move away is listed ' +
      'for those who could read the page before it; an ACL change shows as page.created or page.deleted to those it lets in or out. ' +
      'Kept SERVICE_CHANGES_RETENTION_DAYS (7); an older `since` is 410 changes_expired.',
    errors: [410],
    responses: [{ status: 200, schema: ChangeList }],
    handler: ({ svc, caller, query }) =>
      json(listChanges(svc, caller, { since: sinceOf(svc, query.since), space: query.space || null, limit: query.limit })),
  }),
  endpoint({
    method: 'GET',
    path: '/changes/stream',
    tag: 'changes',
    auth: 'key',
    query: v.object({ since: Since, space: Space }),
    summary: 'The change feed as Server-Sent Events',
    description:
      'Each change is an event `id: <txid>`, `event: change`, `data: <a change of GET /changes>`; the changes of one txid ' +
      'are written together. Reconnecting with `Last-Event-ID` resumes after that txid (it wins over `since`). A comment line comes ' +
      'at least every 15 s (SERVICE_CHANGES_HEARTBEAT_MS). At most SERVICE_CHANGES_MAX_STREAMS (10) open streams per principal: 429 beyond. ' +
      'The stream ends when its key is revoked or its session ends. A replica streams from its own copy.',
    headers: [
      {
        name: 'Last-Event-ID',
        required: false,
        description: 'the id of the last event received: the stream resumes after it',
        schema: { type: 'string', pattern: '^\\d{1,15}$' },
      },
    ],
    errors: [410],
    responses: [
      {
        status: 200,
        contentType: 'text/event-stream',
        streamed: true,
        description: 'events until the client leaves or its credentials end',
      },
    ],
    handler: ({ svc, caller, query, event }) => {
      const last = event.req.headers.get('last-event-id');
      if (last !== null && !TXID.test(last.trim())) {
        throw invalid([
          { key: 'Last-Event-ID', code: 'format', message: 'Last-Event-ID is a whole number: the id of the last event received' },
        ]);
      }
      const since = last !== null ? Number(last.trim()) : sinceOf(svc, query.since);
      const spaceId = query.space ? resolveSpace(svc, caller, query.space).id : null;
      checkSince(svc, since);
      const auth = event.req.headers.get('authorization');
      const bearer = auth ? /^Bearer\s+(\S+)\s*$/i.exec(auth)?.[1] : undefined;
      const session = bearer ? null : sessionOf(event, svc);
      const credential: Credential = bearer ? { key: bearer } : { sessionIdHash: session!.idHash };
      const res = event.runtime?.node?.res;
      const response = openChangeStream(svc, caller, credential, since, spaceId, (fn) => res?.once('close', fn));
      noteLongLived(event);
      return response;
    },
  }),
];
