// How many links one page's Markdown may hold (docs/security.md "Links on writes"): the budget of
// link extraction (extract.ts scanLinks), and the answer to a write past it.
import type { Limits } from '../../config/config.ts';
import { invalidField, type AppError } from '../errors.ts';
import type { LinkBudget, LinkScan } from './extract.ts';

/** SERVICE_MAX_LINKS_PER_PAGE distinct targets, and twice as many marks (a wikilink has two `[`). */
export function linkBudget(limits: Pick<Limits, 'linksPerPage'>): LinkBudget {
  return { links: limits.linksPerPage, marks: 2 * limits.linksPerPage };
}

/** The budget with the server's default settings (a batch made without the server's config). */
export const DEFAULT_LINK_BUDGET: LinkBudget = linkBudget({ linksPerPage: 5000 });

/** 400 naming `content`: a write whose Markdown runs past the budget writes nothing. */
export function tooManyLinks(over: NonNullable<LinkScan['over']>, budget: LinkBudget): AppError {
  return invalidField(
    'content',
    'max',
    over === 'links'
      ? `a page links to at most ${budget.links} distinct targets (SERVICE_MAX_LINKS_PER_PAGE)`
      : `a page holds at most ${budget.marks} '[' and '<' outside code, a bare URL counting 10 (twice SERVICE_MAX_LINKS_PER_PAGE)`,
  );
}
