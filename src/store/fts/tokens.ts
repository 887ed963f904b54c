import Database from 'better-sqlite3';
import { cached } from '../../bounded-cache.ts';
import { nativeBindingOption } from '../db/native.ts';
import { stmt } from '../db/statements.ts';
import type { Db } from '../db/types.ts';
import { INDEX_TOKENIZER, WORD_TOKENIZER } from './index-file.ts';

// The words the index's own tokenizer makes of a query phrase. With detail = none FTS5 refuses
// a quoted string that it splits into more than one word (a phrase), so a phrase goes to it as
// the AND of exactly the words it makes of it. JS's idea of a word (domain/search/snippet.ts)
// is the same for ordinary text but not for every character: FTS5's Unicode tables are older
// (a character unassigned there is part of a word), and it treats some combining marks as
// separators. Asking the tokenizer itself leaves no such case to a 500.
//
// And the stem the index holds for a word (porter, index-file.ts): the ranking reads candidates'
// text in JS and counts a word whose stem is a query word's stem as a match of it. Asking
// SQLite's own stemmer keeps the two in step, for every word.
//
// Tables of an in-memory database of their own (any connection would do, a replica's read-only
// one too), written and rolled back: ~20 µs a phrase, and the answers are cached.

let db: Db | null = null;
const memo = new Map<string, string[]>();
const stemMemo = new Map<string, string>();

function conn(): Db {
  if (!db) {
    db = new Database(':memory:', nativeBindingOption());
    db.exec(`CREATE VIRTUAL TABLE words USING fts5(x, tokenize = '${WORD_TOKENIZER}');
      CREATE VIRTUAL TABLE words_at USING fts5vocab(words, instance);
      CREATE VIRTUAL TABLE stems USING fts5(x, tokenize = '${INDEX_TOKENIZER}');
      CREATE VIRTUAL TABLE stems_at USING fts5vocab(stems, instance);`);
  }
  return db;
}

/** The index's words of `text` (folded as the index holds them, not stemmed), in order. */
export function indexWords(text: string): string[] {
  return cached(memo, text, 512, () => {
    const d = conn();
    d.exec('BEGIN');
    try {
      stmt(d, 'INSERT INTO words (rowid, x) VALUES (1, ?)').run(text);
      return stmt(d, 'SELECT term FROM words_at ORDER BY offset').pluck().all() as string[];
    } finally {
      d.exec('ROLLBACK');
    }
  });
}

/**
 * The stem the index holds for each of `words` (folded words, as foldToken makes them); a word
 * the tokenizer makes no word or several of stands for itself. Cached (the oldest go first past
 * STEMS_KEPT: a hit costs one lookup, with no reordering, since a search asks for thousands),
 * the uncached ones asked in one statement.
 */
export function stemsOf(words: string[]): string[] {
  const missing = [...new Set(words.filter((w) => !stemMemo.has(w)))];
  const fresh = new Map<string, string>();
  if (missing.length > 0) {
    const d = conn();
    d.exec('BEGIN');
    try {
      const ins = stmt(d, 'INSERT INTO stems (rowid, x) VALUES (?, ?)');
      missing.forEach((w, i) => ins.run(i + 1, w));
      const found = new Map<number, string>();
      const many = new Set<number>();
      for (const r of stmt(d, 'SELECT doc, term FROM stems_at').all() as Array<{ doc: number; term: string }>) {
        if (found.has(r.doc)) many.add(r.doc);
        found.set(r.doc, r.term);
      }
      missing.forEach((w, i) => fresh.set(w, many.has(i + 1) ? w : (found.get(i + 1) ?? w)));
    } finally {
      d.exec('ROLLBACK');
    }
    for (const [w, stem] of fresh) {
      if (stemMemo.size >= STEMS_KEPT) stemMemo.delete(stemMemo.keys().next().value!);
      stemMemo.set(w, stem);
    }
  }
  return words.map((w) => fresh.get(w) ?? stemMemo.get(w) ?? w);
}

/** How many words' stems stay cached: a large vocabulary's (a search with a short word meets thousands). */
const STEMS_KEPT = 65_536;
