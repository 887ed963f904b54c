import * as v from 'valibot';
import { createSpaceFromTemplate, listGallery } from '../../domain/space-templates/gallery.ts';
import { deleteOrgTemplate, saveOrgTemplate, snapshotSpace } from '../../domain/space-templates/org.ts';
import { GalleryEntry, SpaceFromTemplate } from '../answers.ts';
import { endpoint } from '../endpoint.ts';
import { json, noContentAfter } from '../respond.ts';
import { documentAs } from '../json-schema.ts';
import { DisplayName, IdParams } from '../schemas.ts';

const SaveOrgTemplate = v.strictObject({
  space: v.pipe(v.string(), v.minLength(1)),
  id: v.optional(v.string()),
  name: DisplayName,
  description: v.optional(v.pipe(v.string(), v.maxLength(4000))),
});
const CreateFromTemplate = v.strictObject({
  slug: v.string(),
  name: v.optional(DisplayName),
  description: v.optional(v.pipe(v.string(), v.maxLength(4000))),
});

export const spaceTemplateEndpoints = [
  endpoint({
    method: 'GET',
    path: '/space-templates',
    tag: 'space-templates',
    auth: 'key',
    summary: 'The space template gallery (built-in, remote catalog, organisation)',
    responses: [{ status: 200, schema: v.array(GalleryEntry) }],
    handler: ({ svc, caller }) => json(listGallery(svc, caller)),
  }),
  endpoint({
    method: 'POST',
    path: '/space-templates/org',
    tag: 'space-templates',
    auth: 'key',
    body: SaveOrgTemplate,
    bodyExample: { space: 'wiki', name: 'Team wiki', description: 'Our starting layout' },
    summary: 'Save a space as an organisation template',
    responses: [{ status: 201, schema: GalleryEntry }],
    handler: async ({ svc, caller, body }) => {
      const input = await body();
      const snap = snapshotSpace(svc, caller, input);
      return json(await svc.writes.run(() => saveOrgTemplate(svc, caller, input, snap)), 201);
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/space-templates/org/:id',
    tag: 'space-templates',
    auth: 'key',
    params: IdParams,
    summary: 'Delete an organisation template',
    responses: [{ status: 204 }],
    handler: ({ svc, caller, params }) => noContentAfter(svc, () => deleteOrgTemplate(svc, caller, params.id)),
  }),
  endpoint({
    method: 'POST',
    path: '/space-templates/:source/:id/spaces',
    tag: 'space-templates',
    auth: 'key',
    params: v.object({
      source: documentAs(v.pipe(v.string(), v.minLength(1)), { type: 'string', enum: ['built-in', 'remote', 'org'] }),
      id: documentAs(v.pipe(v.string(), v.minLength(1)), { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }),
    }),
    body: CreateFromTemplate,
    bodyExample: { slug: 'handbook', name: 'Handbook' },
    summary: 'Create a new space from a template',
    responses: [{ status: 201, schema: SpaceFromTemplate }],
    handler: async ({ svc, caller, params, body }) => {
      const input = await body();
      return json(await createSpaceFromTemplate(svc, caller, params.source, params.id, input), 201);
    },
  }),
];
