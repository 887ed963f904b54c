import { describe, expect, it } from 'vitest';
import { mapsTo } from '../support/cases.ts';
import { rewriteLinks } from '../../src/domain/links/rewrite.ts';

const moved = new Map([
  ['wiki/old', { space: 'wiki', path: 'new place' }],
  ['wiki/dir/a', { space: 'eng', path: 'a' }],
]);
const from = { space: 'wiki', path: 'dir/page' };
const base = ['https://kb.example.com'];

describe('rewriteLinks', () => {
  mapsTo('%s', (input) => rewriteLinks(input, from, moved, base), [
    ['[x](/pages/wiki/old)', '[x](/pages/wiki/new%20place)'],
    ['[x](/pages/wiki/old#h?q)', '[x](/pages/wiki/new%20place#h?q)'],
    ['[x](../old "t")', '[x](/pages/wiki/new%20place "t")'],
    ['[x](./a) and ![i](a.md)', '[x](/pages/eng/a) and ![i](/pages/eng/a)'],
    ['[r]: /pages/wiki/old', '[r]: /pages/wiki/new%20place'],
    ['<https://kb.example.com/pages/wiki/old>', '<https://kb.example.com/pages/wiki/new%20place>'],
    ['[x](https://other.example.com/pages/wiki/old)', '[x](https://other.example.com/pages/wiki/old)'],
    ['[x](/pages/wiki/other)', '[x](/pages/wiki/other)'],
    ['```\n[x](/pages/wiki/old)\n```\n[y](/pages/wiki/old)', '```\n[x](/pages/wiki/old)\n```\n[y](/pages/wiki/new%20place)'],
  ]);
});
