import Database from 'better-sqlite3';
import { cached } from '../../bounded-cache.ts';
import { nativeBindingOption } from '../db/native.ts';
import { stmt } from '../db/statements.ts';
import type { Db } from '../db/types.ts';
import { INDEX_TOKENIZER } from './index-file.ts';

// The words the index's own tokenizer makes of a query phrase. With detail = none FTS5 refuses
// a quoted string that it splits into more than one word (a phrase), so a phrase goes to it as
// the AND of exactly the words it makes of it. JS's idea of a word (domain/search/snippet.ts)
// is the same for ordinary text but not for every character: FTS5's Unicode tables are older
// (a character unassigned there is part of a word), and it treats some combining marks as
// separators. Asking the tokenizer itself leaves no such case to a 500.
//
// A table of an in-memory database of its own (any connection would do, a replica's read-only
// one too), written and rolled back: ~20 µs a phrase, and the answers are cached.

let db: Db | null = null;
const memo = new Map<string, string[]>();

function conn(): Db {
  if (!db) {
    db = new Database(':memory:', nativeBindingOption());
    db.exec(`CREATE VIRTUAL TABLE words USING fts5(x, tokenize = '${INDEX_TOKENIZER}');
      CREATE VIRTUAL TABLE words_at USING fts5vocab(words, instance);`);
  }
  return db;
}

/** The index's words of `text` (folded as the index holds them), in order. */
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
