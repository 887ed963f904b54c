import { describe, expect, it } from 'vitest';
import { namedRows } from '../support/cases.ts';
import table from './cases/plain-text.json' with { type: 'json' };
import { parseQuery } from '../../src/domain/search/fts-query.ts';
import { plainText } from '../../src/domain/search/plain-text.ts';
import { pageSnippetMaker } from '../../src/domain/search/snippet.ts';

describe('plainText', () => {
  it.each(namedRows<[md: string, text: string]>(table))('%s', (_label, md, text) => {
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
