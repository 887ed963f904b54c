import type { Services } from '../../services.ts';
import { invalid } from '../errors.ts';
import { resolveSpace } from '../spaces.ts';
import {
  SNIPPET_SOURCE_CHARS,
  matchingIds,
  maxPageId,
  pageBody,
  prefixBreadth,
  readableGuesses,
  readableHits,
  type IdQuery,
  type TextHit,
} from '../../store/search.ts';
import { indexWords, stemsOf } from '../../store/fts/tokens.ts';
import { checkQuery, prefixWord, searchedPhrases } from './fts-query.ts';
import type { Phrase } from '../../text/tokens.ts';
import { planQuery, type QueryPlan } from './query-plan.ts';
import { compareScored, scorer, type Scored } from './score.ts';
import { pageSnippetMaker } from './snippet.ts';
import type { Caller } from '../../model.ts';

// GET /search: full-text hits ranked by relevance (BM25F, score.ts): pages holding every word
// or phrase of the query first, then pages holding some; within each group by score.
//
// Why the score is computed here and not by FTS5's bm25 (issue 18): bm25 weighs each word by how
// many pages of the whole index hold it and each page's length against the average of all
// pages, so a caller comparing the scores of two pages of their own learned whether pages they
// cannot read contain a word. So the candidates are gathered first, through the access filter,
// and scored from their own text, every statistic (how many of them hold a word, their average
// length) taken over them (score.ts). The index keeps no word counts (detail = none), and
// FTS5 hands word counts only to auxiliary functions written in C; reading the candidates' text
// costs about as much as reading it for snippets (docs/search.md, Ranking).
//
// The candidates are gathered by a walk of the index, newest first: the pages whose title holds
// every item (the titles' index), then the pages holding every item (`plan.every`), then those
// holding at least two items (`plan.pairs`, for 3 or more; these three for queries of up to
// EVERY_MAX_ITEMS items), then the other pages holding some (`plan.any`), until
// `ranking.candidates` readable pages (`ranking.oneItem` for a query of one word or phrase, where
// every candidate holds the same words and only counts and lengths differ; `ranking.fewItems` for
// up to EVERY_MAX_ITEMS items, whose candidates come best first), or `ranking.candidateChars`
// characters of their text, are in hand, which bounds what a query of very common words costs:
// scoring reads every candidate's text. The pairs keep a query that holds a word of every page
// (`the`, `notes`) from filling its candidates with the newest pages holding only that word.
// A typed prefix's cut-back stems (`not` for `note`, query-plan.ts) are guesses: those phases
// take the expressions without them (`plan.sure`), and a last phase the pages only a guess finds,
// each counted only if its text may hold the typed word (readableGuesses); the readable ones that
// do not still count against the candidates wanted, so guessing reads no more than before.
//
// Each statement reads the matches within a window of page ids, newest window first, at most a
// chunk of them (64, or for a query of one item four times the candidates it wants; then four
// times as many each time, up to 4,096). The first
// window is `ranking.window` / items² ids; one that took under 2 ms is followed by one four times
// as wide, one that filled its chunk in over 10 ms by one a quarter as wide. A window that did
// not fill its chunk and took over 10 ms is followed by all the ids below it: reaching the end of
// a window costs FTS5 about a scan of each word's page list, whatever the window's width. A
// chunk's ids are checked against the caller's access a slice at a time, and a round may end
// between two slices (a chunk of 4,096 ids is 16 slices, each reading its pages' rows). The walk stops after
// `ranking.maxSteps` statements (index reads and access checks), or once `ranking.budgetMs` have
// passed, between two statements. Those bounds end a round, not the walk:
// the next round resumes after one turn of the event loop (searchFullText), and only after
// `ranking.requestMs` of rounds is the walk cut short, and the candidates found so far ranked.
// `ranking` is an object, not constants, so that tests can exercise the bounds on a few pages.
//
// Phrases. The index keeps no word positions (detail = none): FTS5 finds the pages holding every
// word of a phrase of several words, and the ranking checks each readable candidate's text
// (phrase-check.ts): the words in a row in the title, or in a row in the body, never across the
// two. Only pages the caller may read are ever read for it.
export const ranking = {
  window: 50_000,
  firstChunk: 64,
  maxChunk: 4096,
  maxSteps: 200,
  budgetMs: 32,
  /** How many candidates one access query checks, at most (at least MIN_SLICE). */
  checkSlice: 256,
  prefixMaxPages: 20_000,
  /** How long one request keeps walking, in rounds, before it ranks what it has found (see searchFullText). */
  requestMs: 5_000,
  /**
   * The most readable candidates a search ranks (a query of one word or phrase: `oneItem`; of up to
   * EVERY_MAX_ITEMS: `fewItems`), and the most characters of their text it reads.
   */
  candidates: 2_000,
  oneItem: 300,
  fewItems: 300,
  candidateChars: 4_000_000,
};

type SearchCursor = { g: 0 | 1; s: number; i: number };
type SearchHit = { space: string; path: string; title: string; snippet: string; heading?: string; score: number };

type FullTextSearch = { q: string | null; space: string | null; limit: number; cursor: SearchCursor | null };

/**
 * A search. The walk runs in rounds, each within the bounds above (`maxSteps` statements,
 * `budgetMs`); a round that stops before the walk is done lets other requests run (one turn of
 * the event loop) and the next round resumes where it stopped, so the server is never held for
 * longer than a round (and the scoring, which reads at most `ranking.candidateChars`). So an
 * answer is the same whether the walk met many pages the caller may not read or none, except past
 * `requestMs`, when fewer candidates are ranked.
 *
 * A cursor holds the last hit's group, score and id: the next request ranks the same candidates
 * the same way and goes on after that position.
 */
export async function searchFullText(
  svc: Services,
  caller: Caller,
  q: FullTextSearch,
): Promise<{ hits: SearchHit[]; next: SearchCursor | null }> {
  const issue = checkQuery(q.q);
  if (issue) throw invalid([issue]);
  const spaceId = q.space !== null && q.space !== '' ? resolveSpace(svc, caller, q.space).id : null;
  const db = svc.fts.conn(); // kspace.db with the index attached (src/store/fts/index-file.ts)
  checkPrefixes(db, searchedPhrases(q.q!));
  const plan = planQuery(q.q!, indexWords, (w) => prefixBreadth(db, w, ranking.prefixMaxPages).pages <= ranking.prefixMaxPages, stemsOf);
  if (!plan) return { hits: [], next: null }; // nothing searchable (only punctuation, emoji…)

  const walk = startWalk(db, svc.db, caller, plan, spaceId);
  // The request's handler runs in the event loop's poll phase, where a setImmediate resolves in
  // the same turn's check phase, before any other request is read: the first round would follow
  // the planning with nothing between, and the second the first. Two turns first, so that every
  // piece of the search (a round, a slice of counting or snippets) is followed by the I/O waiting.
  await nextTurn();
  await nextTurn();
  const started = performance.now();
  let more = walk.round();
  while (more && performance.now() - started < ranking.requestMs) {
    await nextTurn();
    more = walk.round();
  }

  const byId = new Map(walk.found.map((h) => [h.id, h]));
  // A body longer than what the walk read is scored (and its phrases checked) whole, one at a time.
  const candidates = walk.found.map((h) => ({
    id: h.id,
    title: h.title,
    content: h.content,
    ...(h.content.length < SNIPPET_SOURCE_CHARS ? {} : { body: () => wholeBody(svc.db, h) }),
  }));
  // Counting reads every candidate's text: in slices of ranking.budgetMs, other requests between.
  const score = scorer(plan, stemsOf);
  const counted = [];
  let slice = performance.now();
  for (const c of candidates) {
    counted.push(score.count(c));
    if (performance.now() - slice >= ranking.budgetMs) {
      await nextTurn();
      slice = performance.now();
    }
  }
  const ranked = score.rank(counted).sort(compareScored);
  const c = q.cursor;
  const from = c ? ranked.findIndex((h) => compareScored(h, { g: c.g, score: c.s, id: c.i }) > 0) : 0;
  const page = from < 0 ? [] : ranked.slice(from, from + q.limit);
  const last = page[page.length - 1];
  const snippet = pageSnippetMaker(plan.phrases);
  // Snippets too, in slices of ranking.budgetMs (up to 200 hits, each read and converted whole).
  const hits: SearchHit[] = [];
  slice = performance.now();
  for (const r of page) {
    const h = byId.get(r.id)!;
    hits.push({ space: h.space, path: h.path, title: h.title, ...snippet(wholeBody(svc.db, h)), score: roundScore(r) });
    if (performance.now() - slice >= ranking.budgetMs) {
      await nextTurn();
      slice = performance.now();
    }
  }
  return { hits, next: last && from + q.limit < ranked.length ? { g: last.g, s: last.score, i: last.id } : null };
}

/** Resolves in a later turn of the event loop (its check phase), after the I/O of the turn's poll phase. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The score shown: four decimals; the order uses the exact one. */
const roundScore = (r: Scored) => Math.round(r.score * 10_000) / 10_000;

/**
 * The walk of one search, resumable: `round()` walks the phases' queries until the candidates are
 * in hand or the index is walked to its end (false), or until a round's bounds stop it (true).
 * `db` is the index connection, which runs the index's queries; `main` kspace.db's, whose mapped
 * reader reads the candidates' rows.
 */
function startWalk(db: Services['db'], main: Services['db'], caller: Caller, plan: QueryPlan, spaceId: number | null) {
  const found: TextHit[] = [];
  const seen = new Set<number>();
  let chars = 0;
  // Readable pages read in the phase of guesses that do not hold the typed word: they count
  // against the candidates wanted as the others do, so that phase reads no more than the others.
  let without = 0;
  const most = plan.items.length === 1 ? ranking.oneItem : plan.items.length <= EVERY_MAX_ITEMS ? ranking.fewItems : ranking.candidates;
  const full = () => found.length + without >= most || chars >= ranking.candidateChars;
  const every = plan.items.length <= EVERY_MAX_ITEMS;
  // A typed prefix's cut-back stems are guesses (query-plan.ts): the phases walk the expressions
  // without them first, and the pages only a guess finds last. A query of one prefix walks the
  // pages holding the word itself before those holding longer words it begins (`plan.whole`).
  const sure = plan.sure ?? plan;
  const phases: Phase[] = [
    ...(every ? [{ of: 'titles', match: sure.every } as const] : []),
    ...(plan.whole !== null ? [{ of: 'pages', match: plan.whole } as const] : []),
    ...(every && plan.items.length > 1 ? [{ of: 'pages', match: sure.every } as const] : []),
    ...(every && sure.pairs !== null ? [{ of: 'pages', match: sure.pairs } as const] : []),
    { of: 'pages', match: sure.any, or: true },
    ...(plan.sure ? [{ of: 'pages', match: plan.any, or: true, guesses: true } as const] : []),
  ];
  const newest = maxPageId(db);
  const items = plan.items.length;
  let span = Math.max(1, Math.floor(ranking.window / (items * items)));
  let phase = 0;
  let top = newest; // walk ids top, top - 1, …
  // A query of one item asks for four times the candidates it wants from its first statement on
  // (a prefix's statement costs FTS5 a merge of all its words' page lists, whatever the chunk; a
  // reader of part of the pages needs more ids than candidates; unneeded ids are never checked).
  const firstChunk = items === 1 ? Math.min(Math.max(ranking.firstChunk, 4 * most), ranking.maxChunk) : ranking.firstChunk;
  let chunk = firstChunk;
  // The ids of the last statement not yet checked against the caller's access: a chunk of up to
  // 4,096 ids is checked a slice at a time, and a round may end between two slices.
  let pending: number[] = [];
  let checked = 0; // how many of `pending` are checked

  /** Takes readable pages in the walk's order; null: one of the guesses that does not hold the typed word. */
  const add = (hits: Array<TextHit | null>) => {
    for (const h of hits) {
      if (full()) break;
      if (h === null) {
        without++;
        continue;
      }
      seen.add(h.id);
      found.push(h);
      chars += h.content.length;
    }
  };

  const round = (): boolean => {
    const started = performance.now();
    let steps = 0;
    // The clock stops a round in a corpus of any size: a small one's statements are small, but a
    // query of many common words makes many of them (32 words at 10,000 pages: ~0.2 s of them).
    const mustStop = () => steps >= ranking.maxSteps || performance.now() - started >= ranking.budgetMs;
    for (; phase < phases.length && !full(); phase++, top = newest, chunk = firstChunk) {
      // An OR of several items stops at its chunk wherever it starts, while each statement pays
      // a seek into every item's page list: its walk starts over all ids (32 common words at
      // 100,000 pages: 6.6 ms for 4,096 ids of all of them, 100 ms for a window of 48).
      if (phases[phase].or && items > 1 && top === newest) span = Math.max(span, newest);
      while ((checked < pending.length || top >= 1) && !full()) {
        // The access query reads each candidate's row: a few hundred at a time.
        // A slice no longer than the candidates still wanted (at least MIN_SLICE): the query
        // reads every row of its slice before its LIMIT applies (it sorts them by position).
        while (checked < pending.length && !full()) {
          if (steps > 0 && mustStop()) return true;
          const size = Math.min(ranking.checkSlice, Math.max(MIN_SLICE, most - found.length - without));
          steps++;
          const slice = pending.slice(checked, checked + size);
          checked += slice.length;
          add(
            phases[phase].guesses && plan.guessed !== null
              ? readableGuesses(main, caller, slice, spaceId, size, plan.guessed)
              : readableHits(main, caller, slice, spaceId, size),
          );
        }
        if (top < 1 || full()) break;
        if (steps > 0 && mustStop()) return true;
        steps++;
        const lo = Math.max(1, top - span + 1);
        const t0 = performance.now();
        const walked = matchingIds(db, phases[phase], lo, top, chunk);
        pending = walked.filter((id) => !seen.has(id));
        checked = 0;
        const took = performance.now() - t0;
        if (walked.length < chunk && took > 10)
          span = top; // the next window: every id below this one
        else if (took < 2) span *= 4;
        else if (took > 10) span = Math.max(64, Math.floor(span / 4));
        const next = walked.length === chunk ? walked[walked.length - 1] - 1 : lo - 1;
        top = next;
        chunk = walked.length === chunk ? Math.min(chunk * 4, ranking.maxChunk) : firstChunk;
      }
      pending = [];
      checked = 0;
    }
    return false;
  };
  return { found, round };
}

/** A statement of the walk: `or` an OR of the items; `guesses` the pages a typed prefix's cut-back stems find. */
type Phase = IdQuery & { or?: boolean; guesses?: boolean };

/**
 * The most items whose AND is walked first. A statement of FTS5's AND that finds few pages costs
 * about a scan of every item's page list (8 common words ~40 ms, 32 ~110–290 ms at 100,000
 * pages): a longer query gathers its candidates by the OR alone (each statement stops at its
 * chunk), and its pages holding every item are told from their text like the others.
 */
const EVERY_MAX_ITEMS = 8;

/** How many candidates one access query checks, at least (ranking.checkSlice: at most). */
const MIN_SLICE = 32;

/**
 * A hit's whole body. length() in SQL would count the characters of every hit's whole body; a
 * body cut short by substr is exactly SNIPPET_SOURCE_CHARS long. A longer body is read whole, one
 * hit at a time, so at most one such body (≤ SERVICE_MAX_PAGE_BYTES) is held.
 */
function wholeBody(main: Services['db'], h: TextHit): string {
  return h.content.length < SNIPPET_SOURCE_CHARS ? h.content : (pageBody(main, h.id) ?? h.content);
}

/**
 * A prefix FTS5 expands into too many words' page lists (summed over those words, more than
 * `ranking.prefixMaxPages`) is refused: its first statement alone would block the server.
 */
function checkPrefixes(db: Services['db'], phrases: Phrase[]): void {
  for (const p of phrases) {
    if (!p.prefix) continue;
    const word = prefixWord(p);
    const breadth = prefixBreadth(db, word, ranking.prefixMaxPages);
    if (breadth.pages > ranking.prefixMaxPages) {
      throw invalid([{ key: 'q', code: 'max', message: `the prefix \`${word}*\` matches too many words; write more of the word` }]);
    }
  }
}

/** Checks a cursor read back from a client (see readCursor). */
export function isSearchCursor(v: unknown): v is SearchCursor {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const c = v as Record<string, unknown>;
  return (
    (c.g === 0 || c.g === 1) && typeof c.s === 'number' && Number.isFinite(c.s) && typeof c.i === 'number' && Number.isSafeInteger(c.i)
  );
}
