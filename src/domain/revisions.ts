import type { Services } from '../services.ts';
import { notifyEventsWritten } from '../services.ts';
import { notFound } from './errors.ts';
import { decodePair, decodePairHeads, diffAnswerJson, diffAnswerOf, storedSize, type DiffHead, type StoredPair } from './revision-diff.ts';
import { offload, warmOffload } from './offload.ts';
import { loadReadablePage, loadWritablePage, putPage, readablePageHead, type Page } from './pages.ts';
import { tx } from '../store/db/transactions.ts';
import * as store from '../store/pages.ts';
import type { Caller } from '../model.ts';

type RevisionSummary = { version: number; title: string; author: { id: string; kind: string; name: string }; createdAt: string };

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

/** Stored bytes of both revisions (the page row's state and the deltas) up to this many are decoded on the event loop. */
const INLINE_DIFF_STORED_BYTES = 16 * 1024;
/** Contents up to this many characters (both together) are diffed on the event loop: a few milliseconds at most. */
const INLINE_DIFF_CHARS = 16 * 1024;
/** How long the worker may take over a larger diff (decoding included); then the answer has an empty diff, `truncated`. */
const DIFF_DEADLINE_MS = 1500;
/** A Buffer of at least this many bytes, in an ArrayBuffer of its own, is handed to the worker rather than copied. */
const TRANSFER_BYTES = 64 * 1024;

/**
 * GET …/revisions/:a/diff/:b: a unified diff of the content and the changed keys; both revisions
 * readable. The answer's JSON (RevisionDiff): its text for a small page; for a larger one its
 * UTF-8 bytes, written by the worker (revision-diff.ts) from the page row's bytes and the stored
 * deltas, which it decodes itself. On the event loop: the access checks, one read of the page
 * row's state as bytes (no string made of it), the deltas' rows, and the answer's bytes handed on.
 */
export async function diffRevisionsAnswer(
  svc: Services,
  caller: Caller,
  slug: string,
  path: string,
  a: number,
  b: number,
): Promise<string | Uint8Array<ArrayBuffer>> {
  const { page } = readablePageHead(svc, caller, slug, path);
  const ra = store.findRevisionHead(svc.db, caller, page.id, a);
  if (!ra) throw notFound(`revision ${a} of '${slug}/${path}'`);
  const rb = store.findRevisionHead(svc.db, caller, page.id, b);
  if (!rb) throw notFound(`revision ${b} of '${slug}/${path}'`);
  const head: DiffHead = {
    from: a,
    to: b,
    fromTitle: ra.title,
    toTitle: rb.title,
    oldName: `${page.path}@${a}`,
    newName: `${page.path}@${b}`,
  };
  const pair = storedPair(svc, page.id, a, b, `page '${slug}/${path}'`);
  warmOffload(); // the next large diff finds the worker started
  if (storedSize(pair) <= INLINE_DIFF_STORED_BYTES) {
    const [sa, sb] = decodePair(pair);
    if (sa.content.length + sb.content.length <= INLINE_DIFF_CHARS) return diffAnswerOf(head, sa, sb);
  }
  const done = await offload({ kind: 'revdiff', head, pair }, DIFF_DEADLINE_MS, transferable(pair));
  if (done) return done.answer;
  // The worker did not finish in time: the changed keys, and an empty diff marked truncated. The
  // bytes were handed over, so they are read again and decoded here, no string made of the contents.
  const [ha, hb] = decodePairHeads(storedPair(svc, page.id, a, b, `page '${slug}/${path}'`));
  return diffAnswerJson(head, ha, hb, '""', true);
}

/** Revisions a and b of a page as stored: the page row's state as bytes and the `prev` rows each is decoded from. */
function storedPair(svc: Services, pageId: number, a: number, b: number, what: string): StoredPair {
  const newest = store.newestStateBytes(svc.db, pageId);
  if (!newest) throw notFound(what); // gone while the worker ran
  return {
    newest,
    walks: [store.revisionWalk(svc.db, pageId, a, newest.version), store.revisionWalk(svc.db, pageId, b, newest.version)],
  };
}

/** The ArrayBuffers of a pair that may be handed to the worker: large, and each a Buffer's own (never a pooled one). */
function transferable(p: StoredPair): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  for (const b of [p.newest.content, ...p.walks[0], ...p.walks[1]]) {
    const ab = b.buffer;
    if (b.byteLength >= TRANSFER_BYTES && ab instanceof ArrayBuffer && b.byteOffset === 0 && b.byteLength === ab.byteLength) out.add(ab);
  }
  return [...out];
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
