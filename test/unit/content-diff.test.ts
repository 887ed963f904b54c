import fc from 'fast-check';
import { applyPatch, createTwoFilesPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { diffContents } from '../../src/domain/content-diff.ts';

const withNewline = (s: string) => (s === '' || s.endsWith('\n') ? s : `${s}\n`);
const line = fc.constantFrom('a', 'b', 'c', '', 'a b');
const text = fc.array(line, { maxLength: 14 }).chain((ls) => fc.constantFrom(ls.join('\n'), `${ls.join('\n')}\n`));

describe('diffContents', () => {
  it('is a minimal unified diff, as jsdiff makes of the whole texts, when within its bounds', () => {
    const changes = (patch: string) =>
      patch
        .split('\n')
        .slice(4)
        .filter((l) => /^[+-]/.test(l)).length;
    fc.assert(
      fc.property(text, text, (a, b) => {
        const r = diffContents('p@1', 'p@2', a, b);
        expect(r.truncated).toBe(false);
        expect(applyPatch(withNewline(a), r.contentDiff)).toBe(withNewline(b));
        // The same number of changed lines; where several alignments are minimal it may pick another.
        expect(changes(r.contentDiff)).toBe(
          changes(createTwoFilesPatch('p@1', 'p@2', withNewline(a), withNewline(b), '', '', { context: 3 })),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it("is jsdiff's diff for one changed block, with line numbers past the common start", () => {
    const a = 'h1\nh2\nh3\nh4\nh5\nold\nt1\nt2\nt3\nt4\n';
    const b = 'h1\nh2\nh3\nh4\nh5\nnew\nnewer\nt1\nt2\nt3\nt4\n';
    expect(diffContents('p@1', 'p@2', a, b).contentDiff).toBe(createTwoFilesPatch('p@1', 'p@2', a, b, '', '', { context: 3 }));
    expect(diffContents('p@1', 'p@2', a, b, -1).contentDiff).toBe(createTwoFilesPatch('p@1', 'p@2', a, b, '', '', { context: 3 }));
  });

  it('makes a coarse diff that still applies when the minimal one is given up', () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        const r = diffContents('p@1', 'p@2', a, b, -1); // a time budget already spent
        expect(applyPatch(withNewline(a), r.contentDiff)).toBe(withNewline(b));
      }),
      { numRuns: 2000 },
    );
  });

  it('bounds 10,000 changed lines and two texts at the page-size cap, marking them truncated', () => {
    const lines = (n: number, s: string) => Array.from({ length: n }, (_, i) => `${s}${i}`).join('\n');
    const cap = 2 * 1024 * 1024;
    const cases: Array<[string, string, string]> = [
      ['10,000 changed lines', lines(10_000, 'x'), lines(10_000, 'y')],
      ['a million one-character lines', 'a\n'.repeat(cap / 2), 'b\n'.repeat(cap / 2)],
      ['alternating lines', 'a\nb\n'.repeat(cap / 4), 'b\na\n'.repeat(cap / 4)],
    ];
    for (const [name, a, b] of cases) {
      const t = performance.now();
      const r = diffContents('a', 'b', a, b);
      const ms = performance.now() - t;
      expect(r.truncated, name).toBe(true);
      if (a.length < 1e6) expect(applyPatch(withNewline(a), r.contentDiff), name).toBe(withNewline(b));
      else expect(r.contentDiff.split('\n').filter((l) => /^[+-][ab]$/.test(l)).length, name).toBe((a.length + b.length) / 2); // each line removed, then added
      // 0.5–1.3 s for the largest at load average 16, 4 s at 27 (2 cores); jsdiff itself took
      // 6–18 s over these. The server runs it on the worker, with a deadline (offload.ts).
      expect(ms, name).toBeLessThan(10_000);
    }
  }, 60_000);
});
