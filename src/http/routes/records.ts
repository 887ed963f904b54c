import * as v from 'valibot';
import { listRecordTypes } from '../../domain/records/listing.ts';
import { isRecordCursor, listNonconforming, listRecords } from '../../domain/records/query.ts';
import { MetaPageList, Nonconforming, RecordTypeList } from '../answers.ts';
import { endpoint } from '../endpoint.ts';
import { json } from '../respond.ts';
import { cursor, Filters, Limit, optionalText, Segment, Slug, SlugParams } from '../schemas.ts';
import { encodeCursor } from '../cursor-seal.ts';

const TypeParams = v.object({ slug: Slug, type: Segment });

export const recordEndpoints = [
  endpoint({
    method: 'GET',
    path: '/spaces/:slug/record-types',
    tag: 'records',
    auth: 'key',
    params: SlugParams,
    summary: 'The record types of a space',
    responses: [{ status: 200, schema: RecordTypeList }],
    handler: ({ svc, caller, params }) => json(listRecordTypes(svc, caller, params.slug)),
  }),
  endpoint({
    method: 'GET',
    path: '/spaces/:slug/records/:type',
    tag: 'records',
    auth: 'key',
    params: TypeParams,
    query: v.object({
      filters: Filters,
      orderBy: optionalText({ type: 'string', pattern: '^(?:[A-Za-z0-9_.-]{1,64})?$', description: 'the metadata key to order by' }),
      order: optionalText({ type: 'string', enum: ['', 'asc', 'desc'], description: 'asc (default) or desc' }),
      limit: Limit,
      cursor: cursor(isRecordCursor),
    }),
    summary: 'List the records of a type, filtered and ordered',
    responses: [{ status: 200, schema: MetaPageList }],
    handler: ({ svc, caller, params, query }) => {
      const { pages, next } = listRecords(svc, caller, params.slug, params.type, {
        filters: query.filters ?? null,
        orderBy: query.orderBy,
        order: query.order,
        limit: query.limit,
        cursor: query.cursor,
      });
      return json({ pages, nextCursor: next === null ? null : encodeCursor(svc, next) });
    },
  }),
  endpoint({
    method: 'GET',
    path: '/spaces/:slug/records/:type/nonconforming',
    tag: 'records',
    auth: 'key',
    params: TypeParams,
    summary: "Records the type's current schema no longer accepts",
    responses: [{ status: 200, schema: Nonconforming }],
    handler: ({ svc, caller, params }) => json(listNonconforming(svc, caller, params.slug, params.type)),
  }),
];
