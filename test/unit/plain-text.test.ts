import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../src/domain/search/fts-query.ts';
import { plainText } from '../../src/domain/search/plain-text.ts';
import { pageSnippetMaker } from '../../src/domain/search/snippet.ts';

describe('plainText', () => {
  it.each([
    ['emphasis', 'Some **bold**, __strong__, *em*, _em_ and ~~gone~~ text', 'Some bold, strong, em, em and gone text'],
    ['keeps underscores and stars inside words', 'snake_case_name and 2*3*4', 'snake_case_name and 2*3*4'],
    ['ATX headings', '## Setup ##\ntext', 'Setup\ntext'],
    [
      'links show their text',
      'See [the guide](https://example.com/guide "Guide") and [ref][r].\n\n[r]: https://x.test',
      'See the guide and ref.\n',
    ],
    ['images show their alt text', 'A ![diagram of flow](img/flow.png) here', 'A diagram of flow here'],
    [
      'wikilinks show their label, else their target',
      '[[guides/setup|Setup guide]], [[faq]], [[faq#Install]] and ![[pic.png]]',
      'Setup guide, faq, faq and ',
    ],
    [
      'autolinks; raw HTML is text (the renderer shows it so)',
      'Mail <me@example.com> or <https://x.test>, <b>bold</b>',
      'Mail me@example.com or https://x.test, <b>bold</b>',
    ],
    ['inline code loses its backticks', 'Run `npm test` now', 'Run npm test now'],
    ['fenced code keeps its text, not its fences', '```ts\nconst a = 1;\n```\nafter', 'const a = 1;\nafter'],
    ['lists, tasks and quotes lose their markers', '- one\n* two\n1. three\n- [x] done\n> quoted', 'one\ntwo\nthree\ndone\nquoted'],
    ['tables lose their pipes and rule', '| a | b |\n|---|:-:|\n| c | d |', 'a b\nc d'],
    ['thematic breaks go', 'above\n\n---\n\nbelow', 'above\n\n\nbelow'],
    ['escapes and entities', '\\*not em\\* &amp; &lt;tag&gt;', '*not em* & <tag>'],
  ])('%s', (_label, md, text) => {
    expect(plainText(md).text).toBe(text);
  });

  it('records where each heading starts, ATX and setext', () => {
    const p = plainText('intro\n# One\nbody\nTwo\n===\nmore\n\n### *Three* #\nend');
    expect(p.headings).toEqual([
      { at: 6, name: 'One' },
      { at: 15, name: 'Two' },
      { at: 25, name: 'Three' },
    ]);
    for (const h of p.headings) expect(p.text.slice(h.at, h.at + h.name.length)).toBe(h.name);
  });
});

describe('pageSnippetMaker', () => {
  it.each([
    [
      'no Markdown syntax around the match',
      'Intro\n\n## Sync\n\nUse **Obsidian Sync** via [the service](https://obsidian.md/sync).',
      'sync',
      { snippet: 'Intro <mark>Sync</mark> Use Obsidian <mark>Sync</mark> via the service.', heading: 'Sync' },
    ],
    [
      'the heading above the first shown match',
      '# Start\n\nnothing here\n\n## Later part\n\nthe pangolin lives',
      'pangolin',
      { snippet: 'Start nothing here Later part the <mark>pangolin</mark> lives', heading: 'Later part' },
    ],
    [
      'no heading when the match is above every heading',
      'a pangolin first\n\n# Heading',
      'pangolin',
      { snippet: 'a <mark>pangolin</mark> first Heading' },
    ],
    ['no heading when the body does not match (a title hit)', '# Heading\n\ntext', 'zebra', { snippet: 'Heading text' }],
    ['a link target is not text: it does not match', 'see [docs](https://pangolin.example)', 'pangolin', { snippet: 'see docs' }],
    [
      'text is escaped once, marks are not',
      'Use <b>x</b> &amp; **<y>**',
      'x',
      { snippet: 'Use &lt;b&gt;<mark>x</mark>&lt;/b&gt; &amp; &lt;y&gt;' },
    ],
  ])('%s', (_label, md, q, expected) => {
    expect(pageSnippetMaker(parseQuery(q))(md)).toEqual(expected);
  });
});
