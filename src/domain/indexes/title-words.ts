import { replaceTitleWords, titleWordRows } from '../../store/title-words.ts';
import type { DerivedIndex } from './types.ts';

// title_words (GET /search/titles): the folded words of each live page's title, aliases
// (frontmatter) and path. A few rows, rewritten on every write and move.
export const titleWordsIndex: DerivedIndex = {
  name: 'title-words',
  holds: "folded words of each live page's title, aliases and path (title_words)",
  written(b, page) {
    replaceTitleWords(b.db, page.id, titleWordRows(page.title, page.path, page.frontmatter));
  },
  removed(b, page) {
    replaceTitleWords(b.db, page.id, []);
  },
  moved(b, page) {
    replaceTitleWords(b.db, page.id, titleWordRows(page.title, page.to.path, page.frontmatter));
  },
  accessChanged() {},
  rebuildPage(b, page) {
    replaceTitleWords(b.db, page.id, titleWordRows(page.title, page.path, JSON.parse(page.frontmatter)));
  },
};
