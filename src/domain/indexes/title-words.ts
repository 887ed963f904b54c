import { replaceTitleWords, titleOrderAccess, titleWordRows } from '../../store/title-words.ts';
import type { DerivedIndex } from './types.ts';

// title_words and title_order (GET /search/titles): the folded words of each live page's title,
// aliases (frontmatter) and path, and its place in the titles' order with its access columns. A
// few rows, rewritten on every write and move; title_order's has_acl follows each ACL change.
export const titleWordsIndex: DerivedIndex = {
  name: 'title-words',
  holds: "folded words of each live page's title, aliases and path (title_words, title_order)",
  written(b, page) {
    replaceTitleWords(b.db, page.id, titleWordRows(page.title, page.path, page.frontmatter));
  },
  removed(b, page) {
    replaceTitleWords(b.db, page.id, []);
  },
  moved(b, page) {
    replaceTitleWords(b.db, page.id, titleWordRows(page.title, page.to.path, page.frontmatter));
  },
  accessChanged(b, page) {
    titleOrderAccess(b.db, page.id);
  },
  rebuildPage(b, page) {
    replaceTitleWords(b.db, page.id, titleWordRows(page.title, page.path, JSON.parse(page.frontmatter)));
  },
};
