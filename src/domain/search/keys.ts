import type { Services } from '../../services.ts';
import { resolveSpace } from '../spaces.ts';
import { readableKeyStats } from '../../store/key-stats.ts';
import type { Caller } from '../../model.ts';

type KeyInfo = { key: string; types: string[]; pages: number };

/**
 * GET /search/metadata/keys: every metadata key on pages the caller may read, with the types
 * its values have and how many of those pages hold it. Sums the maintained per-reader-set
 * counts, so it costs a few rows per key whatever the number of pages.
 */
export function discoverKeys(svc: Services, caller: Caller, space: string | null): KeyInfo[] {
  const spaceId = space !== null && space !== '' ? resolveSpace(svc, caller, space).id : null;
  const out: KeyInfo[] = [];
  for (const r of readableKeyStats(svc.db, caller, spaceId)) {
    let last = out[out.length - 1];
    if (!last || last.key !== r.key) out.push((last = { key: r.key, types: [], pages: 0 }));
    if (r.type === '') last.pages = r.pages;
    else last.types.push(r.type);
  }
  return out.filter((k) => k.pages > 0);
}
