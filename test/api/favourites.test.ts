// GET/PUT/DELETE /me/favourites: per principal, only readable pages listed, following moves,
// hidden while deleted or unreadable, back on restore.
import { describe, expect, it } from 'vitest';
import type { Client } from '../support/server.ts';
import { useServer } from '../support/fixture.ts';

const { srv, bob, carol } = useServer({
  agents: ['bob', 'carol'],
  spaces: [{ slug: 'wiki', name: 'Wiki' }],
  pages: [
    ['wiki/a', { title: 'Alpha', content: '' }],
    ['wiki/notes/b', { title: 'Beta', content: '' }],
    ['wiki/secret', { title: 'Secret', content: '' }],
  ],
  noErrors: true,
});

const list = async (c: Client) => {
  const r = await c.get('/me/favourites');
  expect(r.status, r.text).toBe(200);
  return r.body as Array<{ space: string; path: string; title: string }>;
};

describe('favourites', () => {
  it('are kept per principal, newest first, and marking twice changes nothing', async () => {
    expect(await list(bob)).toEqual([]);
    expect((await bob.put('/me/favourites/wiki/a')).status).toBe(204);
    expect((await bob.put('/me/favourites/wiki/notes/b')).status).toBe(204);
    expect((await bob.put('/me/favourites/wiki/a')).status).toBe(204);
    expect(await list(bob)).toEqual([
      { space: 'wiki', path: 'notes/b', title: 'Beta' },
      { space: 'wiki', path: 'a', title: 'Alpha' },
    ]);
    expect(await list(carol)).toEqual([]);
    expect((await bob.del('/me/favourites/wiki/notes/b')).status).toBe(204);
    expect((await bob.del('/me/favourites/wiki/notes/b')).status).toBe(204);
    expect(await list(bob)).toEqual([{ space: 'wiki', path: 'a', title: 'Alpha' }]);
  });

  it('refuse a page that does not exist or that the caller may not read, alike', async () => {
    expect((await srv.admin.put('/pages/wiki/secret/acl', { read: [bob.id], write: [] })).status).toBe(200);
    const missing = await carol.put('/me/favourites/wiki/nowhere');
    const hidden = await carol.put('/me/favourites/wiki/secret');
    expect([missing.status, hidden.status]).toEqual([404, 404]);
    expect(missing.body.code).toBe('not_found');
    expect((await carol.put('/me/favourites/no-such-space/a')).status).toBe(404);
    // A malformed space slug is a space that does not exist, as under /pages.
    expect((await carol.put('/me/favourites/Bad!Slug/a')).status).toBe(404);
  });

  it('follow a moved page, hide while it is deleted or unreadable, and come back', async () => {
    await srv.admin.put('/pages/wiki/c', { title: 'Gamma', content: '' });
    expect((await carol.put('/me/favourites/wiki/c')).status).toBe(204);
    expect((await srv.admin.post('/spaces/wiki/moves', { from: 'c', to: 'archive/c' })).status).toBe(200);
    expect(await list(carol)).toEqual([{ space: 'wiki', path: 'archive/c', title: 'Gamma' }]);
    // Unreadable: hidden, not gone.
    expect((await srv.admin.put('/pages/wiki/archive/c/acl', { read: [bob.id], write: [] })).status).toBe(200);
    expect(await list(carol)).toEqual([]);
    expect((await srv.admin.del('/pages/wiki/archive/c/acl')).status).toBe(200);
    expect(await list(carol)).toHaveLength(1);
    // Deleted, then restored.
    expect((await srv.admin.del('/pages/wiki/archive/c')).status).toBe(204);
    expect(await list(carol)).toEqual([]);
    expect((await srv.admin.post('/spaces/wiki/trash/restore', { path: 'archive/c' })).status).toBe(200);
    expect(await list(carol)).toEqual([{ space: 'wiki', path: 'archive/c', title: 'Gamma' }]);
  });
});
