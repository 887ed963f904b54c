import { queueForIndex, rebuildIndex } from '../../store/fts/index-file.ts';
import type { DerivedIndex } from './types.ts';

// The full-text index lives in its own file, kept off the write path by the helper thread
// (src/store/fts/): a write adds a queue row (fts_queue) in its transaction, and only when the
// title or body changed. Chinese, Japanese and Korean runs are in the same tables as their bigrams
// (text/cjk.ts): one walk of one FTS5 expression answers a query mixing them with other words.
export const fullTextIndex: DerivedIndex = {
  name: 'full-text',
  holds: 'titles and bodies for search, CJK runs as bigrams (page_fts, title_fts in kspace-fts.db; fts_queue)',
  written(b, page, before) {
    if (!before || before.title !== page.title || before.content !== page.content) queueForIndex(b.db, page.id);
  },
  removed(b, page) {
    queueForIndex(b.db, page.id);
  },
  moved() {},
  accessChanged() {},
  // The whole deployment's file, in a transaction of that file: it reads the live pages as
  // committed now; later writes are queued and indexed after it.
  rebuildApart(svc) {
    rebuildIndex(svc.fts.conn());
  },
};
