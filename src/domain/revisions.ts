import type { Services } from '../services.ts';
import type { Caller } from './access.ts';
import { notFound } from './errors.ts';
import { loadReadablePage } from './pages.ts';
import * as store from '../store/pages.ts';

export type RevisionSummary = { version: number; title: string; author: { id: string; kind: string; name: string }; createdAt: string };

/** The revisions of a readable page that the caller may read (docs/security.md), newest first, paged by version. */
export function listRevisions(svc: Services, caller: Caller, slug: string, path: string, q: { before: number; limit: number }) {
  const { page } = loadReadablePage(svc, caller, slug, path);
  const rows = store.listRevisions(svc.db, caller, page.id, q.before, q.limit + 1);
  const more = rows.length > q.limit;
  const revisions: RevisionSummary[] = rows.slice(0, q.limit).map((r) => ({
    version: r.version, title: r.title, author: { id: r.author_id, kind: r.author_kind, name: r.author_name }, createdAt: r.created_at,
  }));
  return { revisions, last: more ? revisions[revisions.length - 1].version : null };
}

/** One revision; 404 when the caller may not read it, as when it does not exist. */
export function getRevision(svc: Services, caller: Caller, slug: string, path: string, version: number) {
  const { space, page } = loadReadablePage(svc, caller, slug, path);
  const r = store.findRevision(svc.db, caller, page.id, version);
  if (!r) throw notFound(`revision ${version} of '${slug}/${path}'`);
  return {
    space: space.slug,
    path: page.path,
    version: r.version,
    title: r.title,
    content: r.content,
    frontmatter: JSON.parse(r.frontmatter),
    metadata: JSON.parse(r.metadata),
    author: { id: r.author_id, kind: r.author_kind, name: r.author_name },
    createdAt: r.created_at,
  };
}
