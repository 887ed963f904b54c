import { describe, expect, it } from 'vitest';
import { diffLines, mergeThreeWay } from '../../src/text/line-merge.ts';

describe('diffLines', () => {
  it.each([
    ['a\nb\nc', 'a\nb\nc', ['=a', '=b', '=c']],
    ['a\nb\nc', 'a\nc', ['=a', '-b', '=c']],
    ['a\nc', 'a\nb\nc', ['=a', '+b', '=c']],
    ['a\nb', 'x\ny', ['-a', '-b', '+x', '+y']],
    ['', 'x', ['-', '+x']],
  ])('%j → %j', (a, b, want) => {
    const ops = diffLines(a.split('\n'), b.split('\n')).map((o) => `${o.type === 'same' ? '=' : o.type === 'add' ? '+' : '-'}${o.line}`);
    expect(ops).toEqual(want);
  });
});

describe('mergeThreeWay', () => {
  it.each([
    ['changes to different lines combine', 'a\nb\nc', 'A\nb\nc', 'a\nb\nC', 'A\nb\nC', 0],
    ['the same change on both sides is taken once', 'a\nb', 'a\nB', 'a\nB', 'a\nB', 0],
    ['an insertion and an edit elsewhere combine', 'a\nb\nc\nd', 'a\nnew\nb\nc\nd', 'a\nb\nc\nD', 'a\nnew\nb\nc\nD', 0],
    ['one side unchanged takes the other', 'a\nb', 'a\nb', 'x\ny\nz', 'x\ny\nz', 0],
    [
      'both changing a line keeps both between markers',
      'a\nb\nc',
      'a\nmine\nc',
      'a\ntheirs\nc',
      'a\n<<<<<<< yours\nmine\n=======\ntheirs\n>>>>>>> v2\nc',
      1,
    ],
  ])('%s', (_name, base, mine, theirs, want, conflicts) => {
    const r = mergeThreeWay(base, mine, theirs, 'v2');
    expect(r.text).toBe(want);
    expect(r.conflicts).toBe(conflicts);
  });

  it('never loses a line typed on either side', () => {
    const base = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n');
    const mine = base.replace('line 3', 'mine 3').replace('line 20', 'mine 20') + '\nmine end';
    const theirs = base.replace('line 3', 'theirs 3').replace('line 10', 'theirs 10');
    const r = mergeThreeWay(base, mine, theirs);
    for (const s of ['mine 3', 'mine 20', 'mine end', 'theirs 3', 'theirs 10']) expect(r.text).toContain(s);
  });
});
