// Markdown built to be slow to parse, at the page-size cap (2 MiB): the render and write bounds'
// tests (test/api/render-bounds.test.ts) and the render bench (scripts/bench/render.ts).
export const PAGE_CAP = 2 * 1024 * 1024;

const fill = (unit: string) => unit.repeat(Math.floor(PAGE_CAP / unit.length));

/** Name → content, each at most PAGE_CAP characters. */
export const ADVERSARIAL_MARKDOWN: Record<string, string> = {
  'plain text (the floor)': fill('lorem ipsum dolor sit amet\n'),
  'wikilink opens': fill('[['),
  'wikilink closes': fill(']]'),
  'wikilink opens with text': fill('[[x'),
  'distinct wikilinks': Array.from({ length: 250_000 }, (_, i) => `[[p${i}]]`)
    .join(' ')
    .slice(0, PAGE_CAP),
  'one wikilink repeated': fill('[[a]] '),
  'nested brackets': fill('['),
  'closing brackets': fill(']'),
  'bracket pairs nested': '['.repeat(PAGE_CAP / 2) + ']'.repeat(PAGE_CAP / 2),
  'unclosed links': fill('[a]('),
  'unclosed images': fill('!['),
  'emphasis run': fill('*'),
  'mixed emphasis': fill('*a_'),
  underscores: fill('_a '),
  strikethrough: fill('~~a'),
  backticks: fill('`a``'),
  'deep list': fill('- '),
  'deep quote': fill('>'),
  'quoted lines': fill('> > > > > > > > > > x\n'),
  'long table': `| a | b |\n| - | - |\n${fill('| x | y |\n')}`.slice(0, PAGE_CAP),
  'unclosed autolinks': fill('<http://a'),
  entities: fill('&#'),
  'reference definitions': fill('[a]: <'),
  'many links': fill('[x](y) '),
  'footnote references': `[^x]: y\n\n${fill('[^a')}`.slice(0, PAGE_CAP),
  'inline footnotes nested': '^['.repeat(PAGE_CAP / 4) + ']'.repeat(PAGE_CAP / 4),
};
