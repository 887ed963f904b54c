import type { H3 } from 'h3';
import * as v from 'valibot';
import type { Services } from '../../services.ts';
import { createSpaceFromTemplate, listGallery } from '../../domain/space-templates/gallery.ts';
import { deleteOrgTemplate, saveOrgTemplate, snapshotSpace } from '../../domain/space-templates/org.ts';
import { parse } from '../body.ts';
import { json, noContent } from '../respond.ts';
import { on } from '../route.ts';

const SaveOrgTemplate = v.strictObject({
  space: v.pipe(v.string(), v.minLength(1)),
  id: v.optional(v.string()),
  name: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200)),
  description: v.optional(v.pipe(v.string(), v.maxLength(4000))),
});
const CreateFromTemplate = v.strictObject({
  slug: v.string(),
  name: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200))),
  description: v.optional(v.pipe(v.string(), v.maxLength(4000))),
});

export function registerSpaceTemplateRoutes(app: H3, svc: Services): void {
  on(app, svc, 'GET', '/space-templates', ({ caller }) => json(listGallery(svc, caller)));

  on(app, svc, 'POST', '/space-templates/org', async ({ caller, body }) => {
    const input = parse(SaveOrgTemplate, await body());
    const snap = snapshotSpace(svc, caller, input);
    return json(await svc.writes.run(() => saveOrgTemplate(svc, caller, input, snap)), 201);
  });

  on(app, svc, 'DELETE', '/space-templates/org/:id', async ({ caller, params }) => {
    await svc.writes.run(() => deleteOrgTemplate(svc, caller, params.id));
    return noContent();
  });

  on(app, svc, 'POST', '/space-templates/:source/:id/spaces', async ({ caller, params, body }) => {
    const input = parse(CreateFromTemplate, await body());
    return json(await createSpaceFromTemplate(svc, caller, params.source, params.id, input), 201);
  });
}
