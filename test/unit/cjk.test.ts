import { describe, expect, it } from 'vitest';
import { capPhrases, countWords, parseQuery } from '../../src/domain/search/fts-query.ts';
import { planQuery } from '../../src/domain/search/query-plan.ts';
import { compareScored, scoreCandidates } from '../../src/domain/search/score.ts';
import { makeSnippet } from '../../src/domain/search/snippet.ts';
import { indexWords, stemsOf } from '../../src/store/fts/tokens.ts';
import { bigrams, indexText, queryBigrams } from '../../src/text/cjk.ts';
import { TOKEN, foldToken } from '../../src/text/tokens.ts';

// CJK runs are indexed as bigrams (src/text/cjk.ts) and are words of their own to the JS side.

describe('CJK segmentation', () => {
  it.each([
    // text, what the index is given, the words (TOKEN)
    ['plain text stays', 'plain text stays', ['plain', 'text', 'stays']],
    ['プラグイン', ' プラ ラグ グイ イン ', ['プラグイン']],
    ['Obsidianのプラグイン', 'Obsidian のプ プラ ラグ グイ イン ', ['Obsidian', 'のプラグイン']],
    ['插件管理器', ' 插件 件管 管理 理器 ', ['插件管理器']],
    ['플러그인을 설치', ' 플러 러그 그인 인을   설치 ', ['플러그인을', '설치']],
    ['一', ' 一 ', ['一']],
    ['ノート、設定。', ' ノー ート 、 設定 。', ['ノート', '設定']],
    ['コーヒー', ' コー ーヒ ヒー ', ['コーヒー']],
    // a voicing mark written apart is composed with its kana
    ['フ\u309Aラク\u3099', ' プラ ラグ ', ['フ\u309Aラク\u3099']],
    ['ﾌﾟﾗｸﾞ', ' ﾌﾟ ﾟﾗ ﾗｸ ｸﾞ ', ['ﾌﾟﾗｸﾞ']],
    ['𠀋𠀋x', ' 𠀋𠀋 x', ['𠀋𠀋', 'x']],
  ])('%j', (text, indexed, words) => {
    expect(indexText(text)).toBe(indexed);
    expect(text.match(TOKEN)).toEqual(words);
  });

  it.each([
    // run, its bigrams, those a query looks it up by
    ['プ', ['プ'], ['プ']],
    ['プラ', ['プラ'], ['プラ']],
    ['プラグ', ['プラ', 'ラグ'], ['プラ', 'ラグ']],
    ['プラグイン', ['プラ', 'ラグ', 'グイ', 'イン'], ['プラ', 'グイ', 'イン']],
    [
      'あいうえおかきくけこさしすせそたちつてと',
      bigrams('あいうえおかきくけこさしすせそたちつてと'),
      ['あい', 'おか', 'けこ', 'さし', 'そた', 'てと'],
    ],
  ])('%s', (run, all, looked) => {
    expect(bigrams(run)).toEqual(all);
    expect(queryBigrams(run)).toEqual(looked);
  });

  it('folds CJK as the index does: composed, voicing marks kept', () => {
    expect(foldToken('フ\u309Aラク\u3099イン')).toBe('プラグイン');
    expect(foldToken('プラグイン')).not.toBe(foldToken('フラクイン'));
    expect(foldToken('Café のカフェ')).toBe('cafe のカフェ');
    expect(foldToken('한국어')).toBe('한국어');
  });
});

describe('CJK queries', () => {
  it.each([
    // query, FTS5's expression for pages holding every item
    ['プラグイン', '"プラ" AND "グイ" AND "イン"'],
    ['プラ', '"プラ"'],
    ['プラグイン obsidian ', '("プラ" AND "グイ" AND "イン") AND ("obsidian")'],
    // a CJK word is never a prefix, typed or starred
    ['obsidian プラグ', '("obsidian") AND ("プラ" AND "ラグ")'],
    ['プラグ*', '"プラ" AND "ラグ"'],
    ['Obsidianのプラ', '"obsidian" AND "のプ" AND "プラ"'],
    // one character beside other words is left to the text check
    ['"obsidian の プラ"', '"obsidian" AND "プラ"'],
  ])('%s', (q, every) => {
    const plan = planQuery(q, indexWords)!;
    expect(plan.every).toBe(every);
    expect(plan.terms.every((t) => !t.prefix || /^[a-z]+$/.test(t.word))).toBe(true);
  });

  it('counts a CJK run as the bigrams it is looked up by towards the 32 words', () => {
    const run = (k: number) => String.fromCodePoint(...Array.from({ length: 14 }, (_, i) => 0x4e00 + k * 20 + i));
    const six = Array.from({ length: 6 }, (_, k) => run(k));
    expect(countWords(parseQuery(six.join(' ')))).toBe(36);
    expect(capPhrases(parseQuery(six.join(' ')))).toHaveLength(5);
    expect(capPhrases(parseQuery(`"${six.join(' ')}"`))).toEqual([{ text: six.slice(0, 5).join(' '), prefix: false }]);
  });

  it('parses a starred CJK word as no prefix', () => {
    expect(parseQuery('プラグ* abc*')).toEqual([
      { text: 'プラグ', prefix: false },
      { text: 'abc', prefix: true },
    ]);
  });

  it('ranks CJK hits: title first, then more occurrences, a substring inside a run counting', () => {
    const pages: Array<[string, string]> = [
      ['メモ', 'プラグインを一度'],
      ['設定', 'コアプラグインとコミュニティプラグイン'],
      ['プラグイン', 'ノート'],
      ['x', 'プラクイン'],
    ];
    const plan = planQuery('プラグイン', indexWords)!;
    const ranked = scoreCandidates(
      plan,
      pages.map(([title, content], i) => ({ id: i + 1, title, content })),
      stemsOf,
    ).sort(compareScored);
    expect(ranked.map((s) => s.id)).toEqual([3, 2, 1]);
  });

  it.each([
    ['Obsidianのプラグインを使う', 'プラグ', 'Obsidianの<mark>プラグ</mark>インを使う'],
    ['Obsidianのプラグインを使う', 'obsidian プラグイン', '<mark>Obsidian</mark>の<mark>プラグイン</mark>を使う'],
    ['커뮤니티 플러그인을 설치', '플러그인', '커뮤니티 <mark>플러그인</mark>을 설치'],
    ['在设置中启用第三方插件管理器', '插件 管理', '在设置中启用第三方<mark>插件管理</mark>器'],
    // a long run is cut: two CJK characters count as one word of the snippet
    [`${'あ'.repeat(200)}プラグイン${'い'.repeat(200)}`, 'プラグイン', `…${'あ'.repeat(12)}<mark>プラグイン</mark>${'い'.repeat(31)}…`],
  ])('snippet of %j for %j', (text, q, snippet) => {
    expect(makeSnippet(text, parseQuery(q))).toBe(snippet);
  });
});
