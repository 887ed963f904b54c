// Snippets: a short excerpt of a hit's body around its best match, as HTML (page text escaped,
// matched words in <mark>). Pure. FTS5's snippet() would re-run the query once per hit (~25 µs
// each, ~3 ms for a page of common-word hits); the hits' text is already at hand, so this finds
// the words itself, folding case and diacritics the way the index's tokenizer does
// (unicode61, remove_diacritics 2): `cafe` marks `Café`.
import type { Phrase } from './fts-query.ts';

const TOKEN = /[\p{L}\p{N}\p{Co}][\p{L}\p{N}\p{Co}\p{M}]*/gu;
const NON_ASCII = /[^\x00-\x7f]/;
const MARKS = /\p{M}/gu;

/** A token as the index compares it: lower case, without diacritics. */
export function foldToken(token: string): string {
  return NON_ASCII.test(token) ? token.normalize('NFD').replace(MARKS, '').toLowerCase() : token.toLowerCase();
}

type Terms = { exact: Set<string>; prefixes: string[] };

function queryTerms(phrases: Phrase[]): Terms {
  const terms: Terms = { exact: new Set(), prefixes: [] };
  for (const p of phrases) {
    const tokens = p.text.match(TOKEN) ?? [];
    tokens.forEach((t, i) => {
      if (p.prefix && i === tokens.length - 1) terms.prefixes.push(foldToken(t));
      else terms.exact.add(foldToken(t));
    });
  }
  return terms;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/**
 * The window of `size` tokens of `text` with the most matches (the start of the text when
 * nothing matches there: a title-only hit), whitespace collapsed, '…' where it was cut.
 */
export function makeSnippet(text: string, phrases: Phrase[], size = 24): string {
  const terms = queryTerms(phrases);
  const tokens: Array<{ start: number; end: number; hit: boolean }> = [];
  for (const m of text.matchAll(TOKEN)) {
    const f = foldToken(m[0]);
    tokens.push({ start: m.index, end: m.index + m[0].length, hit: terms.exact.has(f) || terms.prefixes.some((p) => f.startsWith(p)) });
  }
  if (tokens.length === 0) return '';
  // The best window by number of hits, by a sliding count; the earliest wins ties.
  let best = 0;
  let bestHits = -1;
  let inWindow = 0;
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i].hit) inWindow++;
    if (i >= size && tokens[i - size].hit) inWindow--;
    const start = Math.max(0, i - size + 1);
    if (inWindow > bestHits) {
      bestHits = inWindow;
      best = start;
    }
  }
  // Center a lone match a little instead of ending the snippet on it.
  if (bestHits > 0) {
    const first = tokens.findIndex((t, i) => i >= best && t.hit);
    best = Math.max(0, Math.min(first - Math.floor(size / 4), tokens.length - size));
    best = Math.min(best, first);
  }
  const end = Math.min(tokens.length, best + size);
  let out = best > 0 ? '…' : '';
  let at = best > 0 ? tokens[best].start : 0;
  for (let i = best; i < end; i++) {
    const t = tokens[i];
    out += escapeHtml(text.slice(at, t.start).replace(/\s+/g, ' '));
    const word = escapeHtml(text.slice(t.start, t.end));
    out += t.hit ? `<mark>${word}</mark>` : word;
    at = t.end;
  }
  out += end < tokens.length ? '…' : escapeHtml(text.slice(at).replace(/\s+/g, ' ')).trimEnd();
  return out;
}
