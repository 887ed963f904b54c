// A large page's links are read before its write, on the offload worker (docs/security.md "Links
// on writes"): the write's transaction then only stores them, and markdown-it's work on 2 MiB of
// hostile text does not run on the event loop.
import type { Services } from '../../services.ts';
import type { PageRef } from '../../model.ts';
import { offload, warmOffload } from '../offload.ts';
import { normalizePagePath } from '../paths.ts';
import { linkBudget, tooManyLinks } from './budget.ts';
import { mayHoldLinks, type LinkScan } from './extract.ts';

/** Content up to this size is scanned in the write's transaction (a few milliseconds at worst). */
const INLINE_SCAN_CHARS = 16 * 1024;
/**
 * How long the worker may take (waiting for it and starting it included); past it, or with no
 * worker, the write's transaction scans, which the budget bounds too.
 */
const SCAN_DEADLINE_MS = 10_000;

/** The scan of `content` as the page at `from` (a write passes it on only for that content and page). */
export type PreparedLinks = { from: PageRef; content: string; scan: LinkScan };

/**
 * The links of content about to be written to `space`/`path`, scanned on the worker when the
 * content is large and may hold links; undefined when the write's transaction should scan it.
 * 400 naming `content` past the link budget.
 */
export async function prepareLinks(
  svc: Services,
  space: string,
  path: string,
  content: string | undefined,
): Promise<PreparedLinks | undefined> {
  if (content === undefined || content.length <= INLINE_SCAN_CHARS) return undefined;
  const baseUrls = [svc.config.baseUrl];
  if (!mayHoldLinks(content, baseUrls)) return undefined;
  const from = { space, path: normalizePagePath(path) };
  const budget = linkBudget(svc.config.limits);
  warmOffload();
  const r = await offload({ kind: 'links', content, from, baseUrls, budget }, SCAN_DEADLINE_MS);
  if (!r) return undefined;
  if (r.over) throw tooManyLinks(r.over, budget);
  return { from, content, scan: { occurrences: r.occurrences, over: null } };
}

/** The prepared scan when it is of exactly this content at this page, else undefined (the write scans). */
export function preparedFor(prepared: PreparedLinks | undefined, space: string, path: string, content: string): LinkScan | undefined {
  return prepared && prepared.from.space === space && prepared.from.path === path && prepared.content === content
    ? prepared.scan
    : undefined;
}
