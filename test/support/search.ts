// The server of a search suite and the search answers as short strings for toEqual.
import { useServer } from './fixture.ts';
import type { Client } from './server.ts';

/** Agent bob and the spaces kb and other; a test after which the server logged an error fails. */
export function useSearchServer() {
  return useServer({
    agents: ['bob'],
    spaces: [
      { slug: 'kb', name: 'KB' },
      { slug: 'other', name: 'Other' },
    ],
    noErrors: true,
  });
}

/** GET /search for `q` (`extra`: more of the query string, starting with `&`). */
export const search = (c: Client, q: string, extra = '') => c.get(`/search?${new URLSearchParams({ q })}${extra}`);

/** GET /search/titles for `q`. */
export const searchTitles = (c: Client, q: string, extra = '') => c.get(`/search/titles?${new URLSearchParams({ q })}${extra}`);

/** The hits of a search answer as `space/path`. */
export const hitPaths = (r: { body: { hits: Array<{ space: string; path: string }> } }) => r.body.hits.map((h) => `${h.space}/${h.path}`);
