import type { Services } from '../services.ts';
import { notifyEventsWritten } from '../services.ts';
import { notFound } from './errors.ts';
import { diffContents } from './content-diff.ts';
import { offload, warmOffload } from './offload.ts';
import { loadReadablePage, loadWritablePage, putPage, readablePageHead, type Page } from './pages.ts';
import { tx } from '../store/db/transactions.ts';
import * as store from '../store/pages.ts';
import type { Caller } from '../model.ts';

export type RevisionSummary = { version: number; title: string; author: { id: string; kind: string; name: string }; createdAt: string };

/** The revisions of a readable page that the caller may read (docs/security.md), newest first, paged by version. */
export function listRevisions(svc: Services, caller: Caller, slug: string, path: string, q: { before: number; limit: number }) {
  const { page } = loadReadablePage(svc, caller, slug, path);
  const rows = store.listRevisions(svc.db, caller, page.id, q.before, q.limit + 1);
  const more = rows.length > q.limit;
  const revisions: RevisionSummary[] = rows.slice(0, q.limit).map((r) => ({
    version: r.version,
    title: r.title,
    author: { id: r.author_id, kind: r.author_kind, name: r.author_name },
    createdAt: r.created_at,
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

export type RevisionDiff = {
  from: number;
  to: number;
  /** Present when the title changed. */
  title?: { from: string; to: string };
  contentDiff: string;
  /** The content diff is coarser than minimal, or empty, because finding the minimal one would take too long (content-diff.ts). */
  truncated: boolean;
  frontmatterChanged: string[];
  metadataChanged: string[];
};

/** Contents up to this many characters (both together) are diffed on the event loop: a few milliseconds at most. */
const INLINE_DIFF_CHARS = 16 * 1024;
/** How long the worker may take over a larger diff; then the answer has an empty diff, `truncated`. */
const DIFF_DEADLINE_MS = 1500;

/**
 * GET …/revisions/:a/diff/:b: a unified diff of the content and the changed keys; both revisions
 * readable. The answer's JSON text (RevisionDiff), its `contentDiff` written by the worker that
 * made a large diff. On the event loop: the page row read once (not its content for the access
 * check, then its state once for both revisions), each revision decoded once, the texts handed to
 * the worker, and the answer spliced together.
 */
export async function diffRevisionsJson(svc: Services, caller: Caller, slug: string, path: string, a: number, b: number): Promise<string> {
  const { page } = readablePageHead(svc, caller, slug, path);
  const newest = store.newestState(svc.db, page.id);
  const ra = store.findRevision(svc.db, caller, page.id, a, newest);
  if (!ra) throw notFound(`revision ${a} of '${slug}/${path}'`);
  const rb = store.findRevision(svc.db, caller, page.id, b, newest);
  if (!rb) throw notFound(`revision ${b} of '${slug}/${path}'`);
  const names = [`${page.path}@${a}`, `${page.path}@${b}`] as const;
  warmOffload(); // the next large diff finds the worker started
  let diff: { contentDiffJson: string; truncated: boolean };
  if (ra.content.length + rb.content.length <= INLINE_DIFF_CHARS) {
    const d = diffContents(names[0], names[1], ra.content, rb.content);
    diff = { contentDiffJson: JSON.stringify(d.contentDiff), truncated: d.truncated };
  } else {
    diff = (await offload({ kind: 'diff', oldName: names[0], newName: names[1], a: ra.content, b: rb.content }, DIFF_DEADLINE_MS)) ?? {
      contentDiffJson: '""',
      truncated: true,
    };
  }
  const rest: Omit<RevisionDiff, 'contentDiff'> = {
    from: a,
    to: b,
    ...(ra.title !== rb.title ? { title: { from: ra.title, to: rb.title } } : {}),
    truncated: diff.truncated,
    frontmatterChanged: changedKeys(JSON.parse(ra.frontmatter), JSON.parse(rb.frontmatter)),
    metadataChanged: changedKeys(JSON.parse(ra.metadata), JSON.parse(rb.metadata)),
  };
  const head = JSON.stringify(rest);
  return `${head.slice(0, -1)},"contentDiff":${diff.contentDiffJson}}`;
}

/** The keys whose value differs between two JSON objects (added, removed or changed), sorted. */
export function changedKeys(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort();
}

/**
 * POST …/revisions/:n/restore: writes revision n's title, content, frontmatter and metadata as
 * a new revision (through putPage: record validation and the template stamp apply as to any write).
 */
export function restoreRevision(svc: Services, caller: Caller, slug: string, path: string, version: number): Page {
  const page = tx(svc.db, () => {
    const { page } = loadWritablePage(svc, caller, slug, path);
    const r = store.findRevision(svc.db, caller, page.id, version);
    if (!r) throw notFound(`revision ${version} of '${slug}/${path}'`);
    return putPage(svc, caller, slug, page.path, {
      title: r.title,
      content: r.content,
      frontmatter: JSON.parse(r.frontmatter),
      metadata: JSON.parse(r.metadata),
    }).page;
  });
  notifyEventsWritten(svc);
  return page;
}
