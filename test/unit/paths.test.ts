import { describe, expect, it } from 'vitest';
import { mapsTo } from '../support/cases.ts';
import { checkPagePath, isSpaceSlug, normalizePagePath } from '../../src/domain/paths.ts';

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
    ['x/files', 'reserved'],
    ['files', 'reserved'],
    ['files/x', null],
    // Unicode: any normalisation form is fine (it is stored as NFC); invisible characters are not.
    ['Cafe\u0301', null],
    ['e\u0301'.repeat(512), null], // 1024 UTF-16 units, 512 characters once composed
    ['a\u200bb', 'format'], // zero-width space
    ['a\u200cb', 'format'], // zero-width non-joiner
    ['a\u200db', 'format'], // zero-width joiner
    ['a\u2060b', 'format'], // word joiner
    ['\ufeffa', 'format'], // zero-width no-break space (BOM)
    ['a\u200eb', 'format'], // left-to-right mark
    ['a\u200fb', 'format'], // right-to-left mark
    ['a\u202ab', 'format'], // LRE
    ['a\u202bb', 'format'], // RLE
    ['a\u202cb', 'format'], // PDF
    ['a\u202db', 'format'], // LRO
    ['invoice\u202efdp.exe', 'format'], // RLO
    ['a\u2066b', 'format'], // LRI
    ['a\u2067b', 'format'], // RLI
    ['a\u2068b', 'format'], // FSI
    ['a\u2069b', 'format'], // PDI
    ['a\ud800b', 'format'], // lone surrogate
    ['\u05e9\u05dc\u05d5\u05dd/x', null], // right-to-left text itself is fine
    // Every other Default_Ignorable code point (issue 34, earlier finding #15).
    ['soft\u00adhyphen', 'format'], // soft hyphen
    ['a\u034fb', 'format'], // combining grapheme joiner
    ['a\u061cb', 'format'], // Arabic letter mark
    ['a\u115fb', 'format'], // Hangul choseong filler
    ['a\u1160b', 'format'], // Hangul jungseong filler
    ['a\u17b4b', 'format'], // Khmer vowel inherent aq
    ['a\u180bb', 'format'], // Mongolian free variation selector one
    ['a\u180eb', 'format'], // Mongolian vowel separator
    ['a\u2064b', 'format'], // invisible plus
    ['a\u206fb', 'format'], // nominal digit shapes
    ['\u3164', 'format'], // Hangul filler: a path that looks blank
    ['a\ufe0fb', 'format'], // variation selector 16
    ['a\uffa0b', 'format'], // halfwidth Hangul filler
    ['a\ufff0b', 'format'], // unassigned, default ignorable
    ['a\u{1bca0}b', 'format'], // shorthand format letter overlap
    ['a\u{1d173}b', 'format'], // musical symbol begin beam
    ['a\u{e0001}b', 'format'], // language tag
    ['flag\u{e0067}\u{e0062}\u{e007f}', 'format'], // tag characters (an emoji tag sequence's tail)
    ['a\u{e0100}b', 'format'], // variation selector 17
    ['a\u{e0fff}b', 'format'], // last of the ignorable block
    // Visible, or not default ignorable: accepted.
    ['a\u2800b', null], // Braille pattern blank: a visible cell, not default ignorable
    ['a\u3000b', null], // ideographic space
    ['a b', null],
    ['a\u00a0b', null], // no-break space
    ['\u{1f600}', null], // emoji
    ['a\u{e0080}b', 'format'], // unassigned, in the default-ignorable block U+E0000–U+E0FFF
    // Windows separators: an export writes files by page path (issue 34, L7).
    ['a\\b', 'format'],
    ['..\\..\\x', 'format'],
    ['C:', 'format'],
    ['notes/10:30', 'format'],
    ['a:b', 'format'],
  ])('%j → %s', (path, code) => {
    const issue = checkPagePath(path);
    expect(issue?.code ?? null).toBe(code);
    if (issue) expect(issue.key).toBe('path');
  });

  it('names the invisible character it refuses, and where', () => {
    expect(checkPagePath('a\u202eb')?.message).toContain('U+202E at character 2');
    expect(checkPagePath('\u{1f600}\u{e0041}')?.message).toContain('U+E0041 at character 2');
    expect(checkPagePath('a:b')?.message).toContain("':'");
  });

  it('lets the address of an existing page keep what newer rules refuse (a move source, a trashed page)', () => {
    for (const path of ['a:b', 'a\\b', 'soft\u00adhyphen']) {
      expect(checkPagePath(path)?.code).toBe('format');
      expect(checkPagePath(path, 'from', true)).toBeNull();
    }
    expect(checkPagePath('a/../b', 'from', true)?.code).toBe('format');
  });
});

describe('normalizePagePath', () => {
  mapsTo('%j → %j', normalizePagePath, [
    ['Cafe\u0301', 'Caf\u00e9'],
    ['Caf\u00e9', 'Caf\u00e9'],
    ['A\u030a/o\u0308', '\u00c5/\u00f6'],
    ['\u1100\u1161', '\uac00'], // Hangul jamo compose
    ['\u212b', '\u00c5'], // ANGSTROM SIGN → Å (canonical equivalent)
    ['\ufb01', '\ufb01'], // NFC keeps compatibility characters (ﬁ stays ﬁ)
    ['plain/path', 'plain/path'],
  ]);
});

describe('isSpaceSlug', () => {
  it.each([
    ['wiki', true],
    ['a-b-1', true],
    ['~alice', true],
    ['-a', false],
    ['A', false],
    ['a_b', false],
    ['', false],
    ['~', false],
    ['a'.repeat(64), false],
  ])('%j → %s', (slug, ok) => expect(isSpaceSlug(slug)).toBe(ok));
});
