// Page titles for `[[` completion: GET /search/titles (word prefixes of titles, aliases and paths,
// across the spaces the person can read); before a letter is typed, the first pages of the space.
import { get, query, spaceApi } from '../api/client.ts';
import type { PageSummary } from '../api/types.ts';
import type { TitleHit, WikilinkSource } from '../editor/wikilink-completion.ts';

export function titleSource(space: () => string): WikilinkSource {
  return {
    space,
    titles: async (q) => {
      if (q !== '') return (await get<{ hits: TitleHit[] }>(`/search/titles${query({ q, limit: 20 })}`)).hits;
      const s = space();
      if (!s) return [];
      const list = await get<{ pages: PageSummary[] }>(`${spaceApi(s)}/pages${query({ limit: 20 })}`);
      return list.pages.map((p) => ({ space: s, path: p.path, title: p.title }));
    },
  };
}
