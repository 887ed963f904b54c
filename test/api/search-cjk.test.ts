import { describe, expect, it } from 'vitest';
import type { Client } from '../support/server.ts';
import { useServer } from '../support/fixture.ts';

// Issue 37: Chinese, Japanese and Korean text is found by any two or more characters of it
// (bigrams of CJK runs beside the words, src/text/cjk.ts). Before, a run of such characters was
// one word to the index: プラグイン was found only where it stood between punctuation or spaces.

const { srv, bob } = useServer({
  agents: ['bob'],
  spaces: [{ slug: 'kb', name: 'KB' }],
  pages: (
    [
      ['ja/plugins', 'コミュニティプラグイン', 'Obsidianのプラグインを使うと、機能を増やせます。プラグインは設定から入れます。'],
      ['ja/once', 'メモ', 'ここではプラグインを一度だけ書きます。'],
      ['ja/core', '設定', 'コアプラグインとコミュニティプラグインの違い。'],
      ['ja/other', '同期', 'ノートを同期する方法。'],
      ['zh/plugins', '插件', '在设置中启用第三方插件管理器。'],
      ['zh/other', '笔记', '如何同步笔记。'],
      ['ko/plugins', '플러그인 안내', '커뮤니티 플러그인을 설치하려면 설정을 여세요.'],
      ['ko/other', '동기화', '노트를 동기화하는 방법.'],
      ['en/plugins', 'Plugins', 'Community plugins extend the app.'],
    ] as const
  ).map(([path, title, content]): [string, Record<string, unknown>] => [`kb/${path}`, { title, content }]),
  noErrors: true,
});

type Hit = { space: string; path: string; title: string; snippet: string; score: number };
const search = async (c: Client, q: string): Promise<Hit[]> => {
  const r = await c.get(`/search?${new URLSearchParams({ q })}`);
  expect(r.status).toBe(200);
  return r.body.hits;
};
const paths = (hits: Hit[]) => hits.map((h) => h.path);

describe('CJK text is found by its substrings', () => {
  it.each([
    // [query, the pages found (any order)]
    ['プラグイン', ['ja/plugins', 'ja/once', 'ja/core']],
    ['プラグ', ['ja/plugins', 'ja/once', 'ja/core']],
    ['グイ', ['ja/plugins', 'ja/once', 'ja/core']],
    ['コミュニティプラグイン', ['ja/plugins', 'ja/core']],
    ['同期', ['ja/other']],
    ['插件', ['zh/plugins']],
    ['插件管理', ['zh/plugins']],
    ['第三方', ['zh/plugins']],
    ['플러그인', ['ko/plugins']],
    ['러그', ['ko/plugins']],
    ['동기화', ['ko/other']],
    // a query mixing CJK and Latin words: both must be there for the first group
    ['obsidian プラグイン', ['ja/plugins', 'ja/once', 'ja/core']],
    ['Obsidianのプラグイン', ['ja/plugins']],
    // a run the pages do not hold, though they hold each of its bigrams apart
    ['プラグイン設定', []],
  ])('%s', async (q, expected) => {
    const hits = await search(srv.admin, q);
    expect(paths(hits).sort()).toEqual([...expected].sort());
  });

  it('ranks the title hit first, then more occurrences first, and marks the match in the snippet', async () => {
    const hits = await search(srv.admin, 'プラグイン');
    // ja/core holds it twice, in its body; ja/plugins in its title and twice in its body; ja/once once.
    expect(paths(hits)).toEqual(['ja/plugins', 'ja/core', 'ja/once']);
    expect(hits[0].snippet).toContain('<mark>プラグイン</mark>');
    expect(hits[2].snippet).toContain('ここでは<mark>プラグイン</mark>を一度だけ');
    expect((await search(srv.admin, '플러그인'))[0].snippet).toContain('커뮤니티 <mark>플러그인</mark>을');
    expect((await search(srv.admin, '插件管理'))[0].snippet).toContain('第三方<mark>插件管理</mark>器');
  });

  it('puts the pages holding every word first with a mixed query, then the others', async () => {
    const hits = await search(srv.admin, 'obsidian 同期');
    expect(paths(hits).sort()).toEqual(['ja/other', 'ja/plugins']);
    expect(new Set(hits.map((h) => h.snippet.includes('<mark>')))).toEqual(new Set([true]));
  });

  it('finds a Latin word next to a CJK run, and a quoted phrase across the two', async () => {
    expect(paths(await search(srv.admin, 'obsidian'))).toEqual(['ja/plugins']);
    expect(paths(await search(srv.admin, '"obsidian の プラグ"'))).toEqual(['ja/plugins']);
    expect(paths(await search(srv.admin, '"obsidian プラグ"'))).toEqual([]);
  });

  it('applies the access rules to CJK hits exactly as to words', async () => {
    await bob.put('/pages/~bob/mine', { title: 'メモ', content: 'わたしのプラグイン一覧' });
    const before = await search(bob, 'プラグイン');
    const before2 = await search(bob, 'プラグ');
    expect(paths(before)).toContain('mine');
    // Pages bob may not read, full of the word: nothing bob sees changes.
    for (let i = 0; i < 5; i++) {
      await srv.admin.put(`/pages/kb/hidden/${i}`, { title: 'プラグイン', content: 'プラグイン'.repeat(50 + i) });
      expect((await srv.admin.put(`/pages/kb/hidden/${i}/acl`, { read: [], write: [] })).status).toBe(200);
    }
    expect(await search(bob, 'プラグイン')).toEqual(before);
    expect(await search(bob, 'プラグ')).toEqual(before2);
    expect(paths(await search(srv.admin, 'プラグイン'))).toContain('hidden/0');
  });
});
