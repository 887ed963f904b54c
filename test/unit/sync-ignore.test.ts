import { describe, expect, it } from 'vitest';
import { compileIgnore } from '../../src/cli/sync/ignore.ts';

describe('kspace sync ignore rules', () => {
  // [ignore file, path (a folder's with a / after it), ignored]
  it.each([
    ['', 'notes/a.md', false],
    ['', '.obsidian/app.json', true],
    ['', 'notes/.hidden.md', true],
    ['', '.trash/old.md', true],
    ['*.tmp', 'a.tmp', true],
    ['*.tmp', 'deep/down/a.tmp', true],
    ['*.tmp', 'a.tmp.md', false],
    ['drafts/', 'drafts/', true],
    ['drafts/', 'drafts/a.md', true],
    ['drafts/', 'x/drafts/a.md', true],
    ['drafts/', 'drafts', false],
    ['/private/*.md', 'private/a.md', true],
    ['/private/*.md', 'x/private/a.md', false],
    ['docs/**/secret.md', 'docs/secret.md', true],
    ['docs/**/secret.md', 'docs/a/b/secret.md', true],
    ['docs/**/secret.md', 'other/secret.md', false],
    ['a?.md', 'ab.md', true],
    ['a?.md', 'a/b.md', false],
    ['# comment\n\n  notes.md  ', 'x/notes.md', true],
    ['!keep.md\n*.md', 'keep.md', true],
  ])('%j: %s → %s', (text, path, want) => {
    const isDir = path.endsWith('/');
    expect(compileIgnore(text)(isDir ? path.slice(0, -1) : path, isDir)).toBe(want);
  });

  it('reports the negations it skips', () => {
    expect(compileIgnore('!a.md\nb.md').skipped).toEqual(['!a.md']);
  });
});
