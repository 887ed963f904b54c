import * as v from 'valibot';
import { renderPreview } from '../../domain/rendering.ts';
import { endpoint } from '../endpoint.ts';
import { json } from '../respond.ts';

const RenderBody = v.strictObject({
  space: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  path: v.pipe(v.string(), v.minLength(1), v.maxLength(512)),
  content: v.string(),
});

/** POST /render: the editor's live preview, through the page view's renderer. */
export const renderEndpoints = [
  endpoint({
    method: 'POST',
    path: '/render',
    tag: 'pages',
    auth: 'key',
    body: RenderBody,
    bodyExample: { space: 'wiki', path: 'start', content: '# Hello [[other]]' },
    summary: 'Render Markdown as the page view would (the editor preview)',
    responses: [{ status: 200, schema: v.strictObject({ html: v.string() }) }],
    handler: async ({ svc, caller, body }) => json({ html: await renderPreview(svc, caller, await body()) }),
  }),
];
