import { describe, expect, it } from 'vitest';
import { compileIgnore } from '../../src/cli/sync/ignore.ts';

describe('kspace sync ignore rules', () => {
  it.each([
    ['', 'notes/a.md', false, false],
    ['', '.obsidian/app.json', false, true],
    ['', 'notes/.hidden.md', false, true],
    ['', '.trash/old.md', false, true],
    ['*.tmp', 'a.tmp', false, true],
    ['*.tmp', 'deep/down/a.tmp', false, true],
    ['*.tmp', 'a.tmp.md', false, false],
    ['drafts/', 'drafts', true, true],
    ['drafts/', 'drafts/a.md', false, true],
    ['drafts/', 'x/drafts/a.md', false, true],
    ['drafts/', 'drafts', false, false],
    ['/private/*.md', 'private/a.md', false, true],
    ['/private/*.md', 'x/private/a.md', false, false],
    ['docs/**/secret.md', 'docs/secret.md', false, true],
    ['docs/**/secret.md', 'docs/a/b/secret.md', false, true],
    ['docs/**/secret.md', 'other/secret.md', false, false],
    ['a?.md', 'ab.md', false, true],
    ['a?.md', 'a/b.md', false, false],
    ['# comment\n\n  notes.md  ', 'x/notes.md', false, true],
    ['!keep.md\n*.md', 'keep.md', false, true],
  ])('%j: %s (folder: %s) → %s', (text, rel, isDir, want) => {
    expect(compileIgnore(text)(rel, isDir)).toBe(want);
  });

  it('reports the negations it skips', () => {
    expect(compileIgnore('!a.md\nb.md').skipped).toEqual(['!a.md']);
  });
});
