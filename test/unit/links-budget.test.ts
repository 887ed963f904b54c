// Link extraction within a budget (extract.ts scanLinks, docs/security.md "Links on writes"):
// the same links as the unbounded scan on ordinary pages, a stop at the budget on the others, and
// hostile text at the page-size cap read in linear time.
import { describe, expect, it } from 'vitest';
import { ADVERSARIAL_MARKDOWN } from '../../scripts/lib/adversarial-markdown.ts';
import { DEFAULT_LINK_BUDGET } from '../../src/domain/links/budget.ts';
import { distinctTargets, linkOccurrences, scanLinks, type LinkBudget } from '../../src/domain/links/extract.ts';
import type { Wikilink } from '../../src/domain/links/wikilinks.ts';
import type { PageRef } from '../../src/model.ts';

const FROM = { space: 's', path: 'a/b/c' };
const BASES = ['http://127.0.0.1:8080'];
const show = (o: PageRef | Wikilink) => ('target' in o ? `[[${o.target}]]` : `${o.space}/${o.path}`);

describe('scanLinks within the default budget finds what the unbounded scan finds', () => {
  it.each([
    ['no links', 'Just words, [brackets] and (parens).'],
    ['inline and relative links', '[x](/pages/s/x) see [d](../d) and [e](./e "t")'],
    ['references', '[x][r] [r][] [r]\n\n[r]: /pages/s/x'],
    ['wikilinks only', 'a [[One]] b [[two|Label]] c [[/root/x#h]] d ![[embed]]'],
    ['wikilinks and markdown links', '[[One]] [x](/pages/s/x) [[One]] [y](y)'],
    ['code is not counted', '```\n[[[[[[[[ [x](/pages/s/no)\n```\n`[y](/pages/s/no)` [z](/pages/s/z)'],
    ['bare base URLs', 'see http://127.0.0.1:8080/pages/s/x and <http://127.0.0.1:8080/pages/t/y> [z](/pages/s/z)'],
    ['lists, quotes, tables', '- [l](/pages/s/l)\n\n> [q](/pages/s/q)\n\n| a |\n|---|\n| [[t]] |'],
    ['a page of many links', Array.from({ length: 2000 }, (_, i) => `- [[Note ${i}]] and [p](/pages/s/p${i % 50})`).join('\n')],
  ])('%s', (_name, content) => {
    const scan = scanLinks(content, FROM, BASES, DEFAULT_LINK_BUDGET);
    expect(scan.over).toBeNull();
    expect(scan.occurrences.map(show)).toEqual(linkOccurrences(content, FROM, BASES).map(show));
  });
});

describe('scanLinks stops at its budget', () => {
  const links = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join(' ');
  it.each<[string, string, LinkBudget, 'links' | 'marks' | null, string[]]>([
    [
      'distinct wikilinks past the link budget',
      links(5, (i) => `[[w${i}]]`),
      { links: 3, marks: 100 },
      'links',
      ['[[w0]]', '[[w1]]', '[[w2]]'],
    ],
    [
      'one wikilink repeated: one target',
      links(5, () => '[[w]]'),
      { links: 1, marks: 100 },
      null,
      ['[[w]]', '[[w]]', '[[w]]', '[[w]]', '[[w]]'],
    ],
    ['a wikilink counts two marks', links(5, (i) => `[[w${i}]]`), { links: 100, marks: 6 }, 'marks', ['[[w0]]', '[[w1]]', '[[w2]]']],
    [
      'distinct markdown links past the link budget',
      links(4, (i) => `[x](/pages/s/p${i})`),
      { links: 2, marks: 100 },
      'links',
      ['s/p0', 's/p1'],
    ],
    [
      'markdown links to one page: one target',
      links(4, () => '[x](/pages/s/p)'),
      { links: 1, marks: 100 },
      null,
      ['s/p', 's/p', 's/p', 's/p'],
    ],
    ['a link counts one mark', links(4, (i) => `[x](/pages/s/p${i})`), { links: 100, marks: 2 }, 'marks', ['s/p0', 's/p1']],
    [
      'the block where marks run out is cut, the rest unread',
      `[a](/pages/s/a)\n\n[b](/pages/s/b) < [c](/pages/s/c)\n\n[d](/pages/s/d)`,
      { links: 100, marks: 3 },
      'marks',
      ['s/a', 's/b'],
    ],
    ['brackets in code count nothing', '```\n' + '['.repeat(50) + '\n```\n[x](/pages/s/x)', { links: 100, marks: 1 }, null, ['s/x']],
    ['a bare URL counts ten', links(3, (i) => `http://127.0.0.1:8080/pages/s/u${i}`), { links: 100, marks: 25 }, 'marks', ['s/u0', 's/u1']],
  ])('%s', (_name, content, budget, over, found) => {
    const scan = scanLinks(content, FROM, BASES, budget);
    expect(scan.over).toBe(over);
    expect(scan.occurrences.map(show)).toEqual(found);
  });
});

describe('distinctTargets', () => {
  it('resolves each wikilink target once, however often it is written', () => {
    const calls: string[] = [];
    const occurrences = scanLinks('[[a]] [[b]] [[a]] [[a]] [x](/pages/s/x) [[b]]', FROM).occurrences;
    const out = distinctTargets(occurrences, FROM, (target) => {
      calls.push(target);
      return { space: 's', path: target };
    });
    expect(calls).toEqual(['a', 'b']);
    expect(out.map(show)).toEqual(['s/a', 's/b', 's/x']);
  });
});

// Before the budget, markdown-it read all of each of these (2 MiB, the page-size cap) on the write
// path: 4.5–12.7 s each on this 2-core machine at load average 18, `[[p0]]…` 9.4 s more resolving
// 184,021 targets. Within the default budget each is read up to its budget: a generous bound for
// a loaded machine, far below what unbounded reading took.
const HOSTILE_MS = Number(process.env.HOSTILE_SCAN_BOUND_MS ?? 3000);

describe('hostile text at the page-size cap', () => {
  it.each<[string, 'links' | 'marks' | null, number]>([
    ['unclosed links', 'marks', 0],
    ['reference definitions', 'marks', 0],
    ['many links', 'marks', 1],
    ['distinct wikilinks', 'marks', DEFAULT_LINK_BUDGET.links],
    ['one wikilink repeated', 'marks', 1],
    ['unclosed autolinks', 'marks', 0],
    ['wikilink opens', 'marks', 0],
    ['plain text (the floor)', null, 0],
  ])(
    '%s: stops at the budget (%s), %i distinct targets, in bounded time',
    (name, over, distinct) => {
      const content = ADVERSARIAL_MARKDOWN[name];
      const t0 = performance.now();
      const scan = scanLinks(content, FROM, BASES, DEFAULT_LINK_BUDGET);
      const targets = distinctTargets(scan.occurrences, FROM);
      const ms = performance.now() - t0;
      expect(scan.over).toBe(over);
      expect(targets.length).toBe(distinct);
      expect(scan.occurrences.length).toBeLessThanOrEqual(DEFAULT_LINK_BUDGET.marks);
      expect(ms).toBeLessThan(HOSTILE_MS);
    },
    60_000,
  );
});
