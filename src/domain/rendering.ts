import type { Services } from '../services.ts';
import type { Caller } from './access.ts';
import { invalidField } from './errors.ts';
import { renderMarkdown } from './links/render.ts';
import { resolveSpace } from './spaces.ts';
import { readableTargets } from '../store/links.ts';
import type { PageRef } from '../model.ts';

// The web app's HTML of a page (view and preview): links to pages the caller cannot read are
// marked broken, exactly like pages that do not exist, so the HTML reveals nothing.

export function renderForCaller(svc: Services, caller: Caller, from: PageRef, content: string): string {
  return renderMarkdown({
    content,
    from,
    baseUrls: [svc.config.baseUrl],
    existing: (targets) => readableTargets(svc.db, caller, targets),
  });
}

/** POST /render: Markdown that is not (yet) a page, as if it were the page at `path` of `space`. */
export function renderPreview(svc: Services, caller: Caller, input: { space: string; path: string; content: string }): string {
  resolveSpace(svc, caller, input.space); // 404 unless the caller may see the space
  if (input.content.length > svc.config.limits.pageBytes) throw invalidField('content', 'max', `at most ${svc.config.limits.pageBytes} bytes`);
  return renderForCaller(svc, caller, { space: input.space, path: input.path }, input.content);
}
