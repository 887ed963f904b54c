import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ranking } from '../../src/domain/search/full-text.ts';
import { startServer, type Client, type TestServer } from '../support/server.ts';

// Relevance (issue 37): BM25F over the readable candidates (src/domain/search/score.ts).
let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
  for (const slug of ['tf', 'tf2', 'fields', 'rare', 'stems', 'prefix', 'or', 'pairs', 'long', 'guess', 'whole'])
    expect((await srv.admin.post('/spaces', { slug, name: slug })).status).toBe(201);
});
afterAll(() => srv.close());
afterEach(() => expect(srv.errors).toEqual([]));

const search = async (c: Client, q: string, space: string) => {
  const r = await c.get(`/search?${new URLSearchParams({ q, space })}`);
  expect(r.status).toBe(200);
  return r.body.hits.map((h: { path: string }) => h.path) as string[];
};

describe('ranking by relevance', () => {
  it('ranks by term frequency, whichever page was written first', async () => {
    const pages: Array<[string, string]> = [
      ['once', 'tapir x x x x x x'],
      ['thrice', 'tapir x tapir x tapir x x'],
      ['twice', 'tapir x tapir x x x x'],
    ];
    for (const [p, content] of pages) await srv.admin.put(`/pages/tf/${p}`, { title: 'Animal', content });
    for (const [p, content] of [...pages].reverse()) await srv.admin.put(`/pages/tf2/${p}`, { title: 'Animal', content });
    expect(await search(srv.admin, 'tapir ', 'tf')).toEqual(['thrice', 'twice', 'once']);
    expect(await search(srv.admin, 'tapir ', 'tf2')).toEqual(['thrice', 'twice', 'once']);
  });

  it('weighs the title above a heading above the body, whichever page was written first', async () => {
    await srv.admin.put('/pages/fields/body', { title: 'Animals', content: 'x\n\nThe okapi is here.\n' });
    await srv.admin.put('/pages/fields/heading', { title: 'Animals', content: '# Okapi\n\nThe x is here.\n' });
    await srv.admin.put('/pages/fields/title', { title: 'Okapi', content: 'x\n\nThe x is here.\n' });
    await srv.admin.put('/pages/fields/body2', { title: 'Animals', content: 'x\n\nThe okapi is hers.\n' });
    expect(await search(srv.admin, 'okapi ', 'fields')).toEqual(['title', 'heading', 'body2', 'body']);
  });

  it('weighs a rarer word more', async () => {
    for (let i = 0; i < 5; i++) await srv.admin.put(`/pages/rare/common${i}`, { title: 'Page', content: `zebra x${i}` });
    await srv.admin.put('/pages/rare/rare', { title: 'Page', content: 'quagga xx' });
    expect((await search(srv.admin, 'zebra quagga ', 'rare'))[0]).toBe('rare');
  });

  it('finds other forms of a word by its stem, below the word as written', async () => {
    await srv.admin.put('/pages/stems/note', { title: 'One', content: 'a note here' });
    await srv.admin.put('/pages/stems/notes', { title: 'Two', content: 'notes here' });
    await srv.admin.put('/pages/stems/run', { title: 'Three', content: 'we run daily' });
    expect(await search(srv.admin, 'notes ', 'stems')).toEqual(['notes', 'note']);
    expect(await search(srv.admin, 'note ', 'stems')).toEqual(['note', 'notes']);
    expect(await search(srv.admin, 'running ', 'stems')).toEqual(['run']);
  });

  it('matches the last word typed as a prefix, as you type it', async () => {
    await srv.admin.put('/pages/prefix/onboarding', { title: 'Onboarding', content: 'Welcome to the team.' });
    await srv.admin.put('/pages/prefix/board', { title: 'Board', content: 'on board' });
    for (const q of ['onb', 'onboar', 'onboard', 'onboardi', 'onboardin', 'onboarding', 'welcome onboard']) {
      expect(await search(srv.admin, q, 'prefix'), q).toEqual(['onboarding']);
    }
    expect(await search(srv.admin, 'onboardi ', 'prefix')).toEqual([]); // a space ends the word
    expect(await search(srv.admin, 'onboard ', 'prefix')).toEqual(['onboarding']); // its stem
  });

  it('answers a natural-language question with the pages holding every word first, then those holding some', async () => {
    await srv.admin.put('/pages/or/remove', { title: 'Remove a vault', content: 'To remove a vault, open the vault switcher.' });
    await srv.admin.put('/pages/or/create', { title: 'Create a vault', content: 'A vault is a folder.' });
    await srv.admin.put('/pages/or/other', { title: 'Settings', content: 'Nothing to remove here.' });
    await srv.admin.put('/pages/or/none', { title: 'Unrelated', content: 'Cats.' });
    const hits = await search(srv.admin, 'how do I remove a vault from the list?', 'or');
    expect(hits[0]).toBe('remove');
    expect(hits.slice(1).sort()).toEqual(['create', 'other']);
    // A question of 30 words is an ordinary query (no 400).
    const long = `${'what is the best way to remove an old vault that I no longer need from my computer '.repeat(2)} please`;
    expect((await search(srv.admin, long, 'or'))[0]).toBe('remove');
  });

  it('finds a phrase of ten words only where all ten are in a row (the index is asked for the first eight)', async () => {
    const words = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet'.split(' ');
    await srv.admin.put('/pages/long/eight', { title: 'Eight', content: `${words.slice(0, 8).join(' ')} and more` });
    await srv.admin.put('/pages/long/ten', { title: 'Ten', content: `so ${words.join(' ')} here` });
    await srv.admin.put('/pages/long/apart', { title: 'Apart', content: `${words.slice(0, 8).join(' ')} x ${words.slice(8).join(' ')}` });
    expect(await search(srv.admin, `"${words.join(' ')}" `, 'long')).toEqual(['ten']);
  });

  /** An old page holding `old`, then six newer ones holding `newer`, in `space`. */
  async function oldThenSix(space: string, old: string, newer: string): Promise<void> {
    await srv.admin.put(`/pages/${space}/old`, { title: 'Old', content: old });
    for (let i = 0; i < 6; i++) await srv.admin.put(`/pages/${space}/new${i}`, { title: `Page ${i}`, content: newer });
  }

  /** Runs `fn` while the search ranks at most four candidates of the kind `key`. */
  async function withFourCandidates(key: 'oneItem' | 'fewItems', fn: () => Promise<void>): Promise<void> {
    const saved = { ...ranking };
    ranking[key] = 4;
    try {
      await fn();
    } finally {
      Object.assign(ranking, saved);
    }
  }

  // The oldest page holds what is asked for; six newer ones hold only a word that also matches,
  // and the search ranks at most four candidates: without the step under test it ranks the four newest.
  it('gathers the pages holding two of the words before those holding one, so a word of every page does not crowd them out', async () => {
    await oldThenSix('pairs', 'The project budget for the okapi enclosure.', 'project project notes');
    await withFourCandidates('fewItems', async () => {
      expect((await search(srv.admin, 'project okapi zebra ', 'pairs'))[0]).toBe('old');
    });
  });

  it('finds the pages holding a typed word itself before those holding longer words it begins', async () => {
    await oldThenSix('whole', 'An okapi.', 'Okapiland is far.'); // `okapi` typed begins `okapiland`
    await withFourCandidates('oneItem', async () => {
      expect((await search(srv.admin, 'okapi', 'whole'))[0]).toBe('old');
    });
  });

  it('finds the pages holding a typed word before the pages only its cut-back stem finds (`tapir` for `tapirin`)', async () => {
    // A typed `tapirin` is also looked up by `tapir` (`tapiring` would stem to it).
    await oldThenSix('guess', 'A tapirin here.', 'A tapir, two tapirs.');
    await srv.admin.put('/pages/guess/later', { title: 'Later', content: 'Tapiring, tapirines.' });
    // Found by the guess only, and beyond ASCII: SQL's lower() would not fold it, so it is kept.
    await srv.admin.put('/pages/guess/accent', { title: 'Accent', content: 'Tapíring today.' });
    await withFourCandidates('oneItem', async () => {
      expect((await search(srv.admin, 'tapirin', 'guess')).sort()).toEqual(['accent', 'later', 'old']);
      expect((await search(srv.admin, 'Tapirin', 'guess')).sort()).toEqual(['accent', 'later', 'old']);
    });
  });
});
