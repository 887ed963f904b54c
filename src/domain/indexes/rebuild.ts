import type { Services } from '../../services.ts';
import { invalid } from '../errors.ts';
import { requireOrgAdmin } from '../principals.ts';
import { countOrgLinks, livePagesAfter } from '../../store/links.ts';
import { indexes, openBatch } from './list.ts';
import type { DerivedIndex } from './types.ts';
import type { Caller } from '../../model.ts';

// POST /admin/indexes/rebuild (org admin; POST /links/rebuild is its older address): derived
// indexes rebuilt from the pages themselves. First page by page (each index's rebuildPage), in
// batches through the write queue, so other requests are served in between; a page written
// meanwhile indexes itself as usual, and a batch reads each page in the transaction that
// re-indexes it, so nothing goes stale. Then what is kept per organisation (rebuild) in one
// write, then what lives in a file of its own (rebuildApart).
const BATCH = 500;

type Rebuilt = { indexes: string[]; pages: number };

/** The names of the indexes, for the `index` check. */
const indexNames = (): string[] => indexes.map((ix) => ix.name);

/** Each index's name and what it holds, for the endpoint's documentation. */
export const indexList = (): string => indexes.map((ix) => `\`${ix.name}\` (${ix.holds})`).join(', ');

/** Rebuilds every index, or the one named `only` (and those derived from it); 400 for an unknown name. */
export async function rebuildIndexes(svc: Services, caller: Caller, only?: string): Promise<Rebuilt> {
  requireOrgAdmin(caller);
  const chosen = choose(only);
  const perPage = chosen.filter((ix) => ix.rebuildPage);
  let after = 0;
  let pages = 0;
  while (perPage.length) {
    const n = await svc.writes.run(
      () => {
        const rows = livePagesAfter(svc.db, caller.orgId, after, BATCH);
        const b = openBatch(svc);
        for (const p of rows) for (const ix of perPage) ix.rebuildPage!(b, p);
        b.finish();
        if (rows.length) after = rows[rows.length - 1].id;
        return rows.length;
      },
      { alone: true },
    ); // its many writes, each opening statement savepoints: see group-commit.ts
    pages += n;
    if (n < BATCH) break;
  }
  const whole = chosen.filter((ix) => ix.rebuild);
  if (whole.length) {
    await svc.writes.run(() => {
      const b = openBatch(svc);
      for (const ix of whole) ix.rebuild!(b, caller.orgId);
      b.finish();
    });
  }
  for (const ix of chosen) ix.rebuildApart?.(svc);
  return { indexes: chosen.map((ix) => ix.name), pages };
}

/** POST /links/rebuild's answer: every index rebuilt, and the organisation's links counted. */
export async function rebuildAllForLinks(svc: Services, caller: Caller): Promise<{ pages: number; links: number }> {
  const r = await rebuildIndexes(svc, caller);
  return { pages: r.pages, links: countOrgLinks(svc.db, caller.orgId) };
}

function choose(only: string | undefined): DerivedIndex[] {
  if (only === undefined) return indexes;
  if (!indexes.some((ix) => ix.name === only)) {
    throw invalid([{ key: 'index', code: 'option', message: `no index '${only}': one of ${indexNames().join(', ')}` }]);
  }
  return indexes.filter((ix) => ix.name === only || ix.derivedFrom === only);
}
