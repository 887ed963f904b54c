import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../src/domain/links/render.ts';
import { withoutTitleHeading } from '../../../src/web/lib/title-heading.ts';

const render = (content: string): string => renderMarkdown({ content, from: { space: 's', path: 'p' }, existing: () => new Set() });

describe('withoutTitleHeading', () => {
  it.each([
    ['the same words go', '# Setup guide\n\nText.', 'Setup guide', '<span id="h-setup-guide"></span><p>Text.</p>\n'],
    ['case and spaces aside', '#   setup   GUIDE\n\nText.', 'Setup Guide', '<span id="h-setup-guide"></span><p>Text.</p>\n'],
    ['entities compare as text', '# Tom & Jerry <3\n\nx', 'Tom & Jerry <3', '<span id="h-tom-jerry-3"></span><p>x</p>\n'],
    ['inline markup compares as its text', '# The *big* plan\n\nx', 'The big plan', '<span id="h-the-big-plan"></span><p>x</p>\n'],
    ['another heading stays', '# Overview\n\nText.', 'Setup guide', null],
    ['a second-level heading stays', '## Setup guide\n\nText.', 'Setup guide', null],
    ['a heading after text stays', 'Intro.\n\n# Setup guide', 'Setup guide', null],
    ['only the first of two goes', '# A\n\n# A\n', 'A', '<span id="h-a"></span><h1 id="h-a-2">A</h1>\n'],
  ])('%s', (_, md, title, want) => {
    const html = render(md);
    expect(withoutTitleHeading(html, title)).toBe(want ?? html);
  });
});
