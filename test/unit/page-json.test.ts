import { describe, expect, it } from 'vitest';
import { pageJson, presentPage } from '../../src/domain/pages.ts';
import type { PageRow } from '../../src/store/pages.ts';
import type { SpaceRow } from '../../src/store/spaces.ts';

const space = { id: 1, slug: 'wiki' } as SpaceRow;
const row = (over: Partial<PageRow>): PageRow => ({
  id: 7,
  space_id: 1,
  path: 'a/b',
  title: 'T',
  content: '',
  frontmatter: '{}',
  metadata: '{}',
  template: null,
  version: 1,
  has_acl: 0,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-02T00:00:00.000Z',
  deleted_at: null,
  ...over,
});

// pageJson builds the text of presentPage without the object: it must be the same text.
describe('pageJson', () => {
  it.each([
    ['plain', row({})],
    ['escapes', row({ path: 'Ünï/"q"', title: 'a\\b\n"c"', content: 'line\n\t\u0001 é 😀 \u2028 </script>' })],
    [
      'json columns',
      row({
        frontmatter: JSON.stringify({ tags: ['x'], n: 1.5, nested: { a: [1, { b: null }] } }),
        metadata: JSON.stringify({ stage: 'draft', on: true, l: ['x', 'y'], d: '2026-01-01' }),
      }),
    ],
    ['template', row({ template: 'task "t"', version: 42 })],
    ['lone surrogate', row({ content: 'x\ud800y' })],
  ])('%s', (_name, r) => {
    expect(pageJson(space, r)).toBe(JSON.stringify(presentPage(space, r)));
  });
});
