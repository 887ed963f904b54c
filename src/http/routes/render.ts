import type { H3 } from 'h3';
import * as v from 'valibot';
import type { Services } from '../../services.ts';
import { renderPreview } from '../../domain/rendering.ts';
import { parse } from '../body.ts';
import { json } from '../respond.ts';
import { on } from '../route.ts';

const RenderBody = v.strictObject({
  space: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  path: v.pipe(v.string(), v.minLength(1), v.maxLength(512)),
  content: v.string(),
});

/** POST /render: the editor's live preview, through the page view's renderer. */
export function registerRenderRoutes(app: H3, svc: Services): void {
  on(app, svc, 'POST', '/render', async ({ caller, body }) => {
    const input = parse(RenderBody, await body());
    return json({ html: renderPreview(svc, caller, input) });
  });
}
