import { CJK_RANGES } from '../../text/cjk.ts';

// The migration to schema version 17: CJK runs are indexed as bigrams (text/cjk.ts) and are words
// of their own. GLOB compares code points, so a class of ranges finds the rows holding a CJK
// character.
const CLASS = `[${CJK_RANGES.map(([a, b]) => `${String.fromCodePoint(a)}-${String.fromCodePoint(b)}`).join('')}]`;

/** SQL: whether the column `column` of pages holds a CJK character. */
const holdsCjk = (column: string) => `${column} GLOB '*${CLASS}*'`;

/** Queues the live pages whose title or body holds CJK for the full-text index, which indexes them anew. */
export const CJK_REINDEX_SQL = `INSERT INTO fts_queue (page_id)
  SELECT id FROM pages WHERE deleted_at IS NULL AND (${holdsCjk('title')} OR ${holdsCjk('content')}) ORDER BY id;`;

/** The pages whose title index rows (title, aliases in the frontmatter, path) may change. */
export const CJK_TITLE_WORDS = `${holdsCjk('title')} OR ${holdsCjk('frontmatter')} OR ${holdsCjk('path')}`;
