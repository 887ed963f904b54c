import { describe, expect, it } from 'vitest';
import { presentPage, presentPageJson } from '../../src/domain/pages.ts';
import type { PageRow } from '../../src/store/pages.ts';
import type { SpaceRow } from '../../src/store/spaces.ts';

// The JSON text of a page, written from its row, says exactly what presentPage says.
const space = { slug: 'team' } as SpaceRow;
const row = (over: Partial<PageRow>): PageRow => ({
  id: 1, space_id: 1, path: 'a/b', title: 'T', content: 'body', frontmatter: '{}', metadata: '{}', template: null,
  version: 3, has_acl: 0, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-02T00:00:00.000Z', deleted_at: null, ...over,
});

describe('presentPageJson', () => {
  it.each([
    ['plain', row({})],
    ['quotes, backslashes, control characters and lone surrogates', row({ title: 'a "q" \\ \n', content: '\u0000\u001f\t\ud800 é 😀 </script>' })],
    ['nested frontmatter and metadata', row({ frontmatter: JSON.stringify({ tags: ['x', 'y'], nested: { a: [1, { b: null }] } }), metadata: JSON.stringify({ stage: 'todo', points: 5, done: false, due: '2025-03-10', list: ['a', 'b'] }) })],
    ['a __proto__ key stays data', row({ metadata: JSON.parse('"{\\"__proto__\\":{\\"polluted\\":1},\\"constructor\\":\\"c\\"}"') })],
    ['a template', row({ template: 'records/task', path: 'ü/weird path', version: 1 })],
  ])('%s', (_name, r) => {
    const text = presentPageJson(space, r);
    expect(JSON.parse(text)).toEqual(presentPage(space, r));
    expect(text).toBe(JSON.stringify(presentPage(space, r)));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
