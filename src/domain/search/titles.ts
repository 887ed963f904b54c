// GET /search/titles: pages by word prefixes of their titles, aliases and paths, for the quick
// switcher and `[[` completion (docs/search.md "Titles"). Words fold as the full-text index folds
// them (store/title-words.ts foldedWords), so case and accents do not matter.
import type { Services } from '../../services.ts';
import type { Caller } from '../../model.ts';
import { callerParams } from '../../store/access-sql.ts';
import { foldedWords, searchTitleWords, type TitleHit } from '../../store/title-words.ts';
import { invalid } from '../errors.ts';
import { resolveSpace } from '../spaces.ts';

/** At most this many words of a query count: a title is short, and each word costs a lookup. */
const MAX_TITLE_QUERY_WORDS = 8;

/** The longest `q` (characters). */
const MAX_TITLE_QUERY_CHARS = 200;

export function searchTitles(
  svc: Services,
  caller: Caller,
  q: { q: string | null; space: string | null; limit: number },
): { hits: TitleHit[] } {
  if (q.q === null || q.q.trim() === '')
    throw invalid([{ key: 'q', code: 'required', message: 'q holds the beginning of a title, alias or path' }]);
  if (q.q.length > MAX_TITLE_QUERY_CHARS)
    throw invalid([{ key: 'q', code: 'max', message: `q has at most ${MAX_TITLE_QUERY_CHARS} characters` }]);
  const spaceId = q.space !== null && q.space !== '' ? resolveSpace(svc, caller, q.space).id : null;
  const words = [...new Set(foldedWords(q.q))].slice(0, MAX_TITLE_QUERY_WORDS);
  if (words.length === 0) return { hits: [] };
  const phrase = foldedWords(q.q).join(' ');
  return { hits: searchTitleWords(svc.db, callerParams(caller), { words, phrase, spaceId, limit: q.limit }) };
}
