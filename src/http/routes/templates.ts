import * as v from 'valibot';
import { listTemplates } from '../../domain/records/listing.ts';
import { TemplateList } from '../answers.ts';
import { endpoint } from '../endpoint.ts';
import { json } from '../respond.ts';
import { flag, optionalText, SPACE_FILTER_PATTERN } from '../schemas.ts';

export const templateEndpoints = [
  // Page templates the caller can read across the organisation (a hidden one is never listed).
  endpoint({
    method: 'GET',
    path: '/templates',
    tag: 'records',
    auth: 'key',
    query: v.object({
      space: optionalText({
        type: 'string',
        pattern: SPACE_FILTER_PATTERN,
        description: 'only this space (empty or absent: every space you can read)',
      }),
      includeContent: flag('includeContent'),
    }),
    summary: 'Page templates and record types you can read',
    responses: [{ status: 200, schema: TemplateList }],
    handler: ({ svc, caller, query }) => json(listTemplates(svc, caller, { space: query.space, includeContent: query.includeContent })),
  }),
];
