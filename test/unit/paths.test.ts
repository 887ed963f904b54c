import { describe, expect, it } from 'vitest';
import { checkPagePath, isSpaceSlug } from '../../src/domain/paths.ts';

describe('checkPagePath', () => {
  it.each([
    ['a', null],
    ['a/b/c', null],
    ['Café/Ünï 1', null],
    ['x/metadata/y', null],
    ['revisions/x', null],
    ['a'.repeat(512), null],
    ['', 'required'],
    ['a'.repeat(513), 'format'],
    ['/a', 'format'],
    ['a/', 'format'],
    ['a//b', 'format'],
    ['a/./b', 'format'],
    ['a/../b', 'format'],
    ['..', 'format'],
    ['a\u0000b', 'format'],
    ['a\nb', 'format'],
    ['a\u007fb', 'format'],
    ['x/metadata', 'reserved'],
    ['links', 'reserved'],
    ['x/acl', 'reserved'],
    ['x/revisions', 'reserved'],
    ['x/revisions/3', 'reserved'],
  ])('%j → %s', (path, code) => {
    expect(checkPagePath(path)?.code ?? null).toBe(code);
  });
});

describe('isSpaceSlug', () => {
  it.each([
    ['wiki', true], ['a-b-1', true], ['~alice', true], ['-a', false], ['A', false], ['a_b', false], ['', false], ['~', false], ['a'.repeat(64), false],
  ])('%j → %s', (slug, ok) => expect(isSpaceSlug(slug)).toBe(ok));
});
