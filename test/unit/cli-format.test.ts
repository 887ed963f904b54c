import { describe, expect, it } from 'vitest';
import { mapsTo } from '../support/cases.ts';
import { cell, printTable, snippetText } from '../../src/cli/format.ts';
import { formatBytes } from '../../src/text/bytes.ts';
import { startProgress } from '../../src/cli/progress.ts';

const sink = (isTTY = false, columns?: number) => {
  const chunks: string[] = [];
  return { chunks, out: { isTTY, columns, write: (s: string) => chunks.push(s) }, text: () => chunks.join('') };
};

describe('printTable', () => {
  it('pads every column but the last to its widest cell, header included', () => {
    const s = sink();
    printTable(
      ['PATH', 'TITLE', 'V'],
      [
        ['a', 'Alpha', 1],
        ['longer/path', 'B', 12],
      ],
      { out: s.out },
    );
    expect(s.text()).toBe('PATH         TITLE  V\na            Alpha  1\nlonger/path  B      12\n');
  });

  it('prints the empty text for no rows, indents, and leaves out the header when asked', () => {
    const s = sink();
    printTable(['X'], [], { out: s.out, empty: 'no pages' });
    printTable(
      null,
      [
        ['a', 'b'],
        ['cc', 'd'],
      ],
      { out: s.out, indent: 2 },
    );
    expect(s.text()).toBe('no pages\n  a   b\n  cc  d\n');
  });

  it('cuts lines to the terminal width on a TTY only; the last column is never cut when piped', () => {
    const long = 'x'.repeat(100);
    const piped = sink(false, 40);
    printTable(null, [['a', long]], { out: piped.out });
    expect(piped.text()).toBe(`a  ${long}\n`);
    const tty = sink(true, 40);
    printTable(null, [['a', long]], { out: tty.out });
    expect(tty.text()).toBe(`a  ${'x'.repeat(36)}…\n`);
  });
});

describe('cells, snippets, sizes', () => {
  mapsTo('cell(%j) → %j', cell, [
    [null, ''],
    [['a', 2, true], 'a, 2, true'],
    ['two\nlines', 'two lines'],
    [{ a: 1 }, '{"a":1}'],
    ['y'.repeat(70), `${'y'.repeat(59)}…`],
  ]);

  it('turns a snippet into text: marks bold on a TTY, entities decoded, tags dropped', () => {
    const html = '…the <mark>deploy</mark> &amp; <b>roll</b>back &lt;now&gt;\n';
    expect(snippetText(html, false)).toBe('…the deploy & rollback <now>');
    expect(snippetText(html, true)).toBe('…the \x1b[1mdeploy\x1b[22m & rollback <now>');
  });

  mapsTo('formatBytes(%d)', formatBytes, [
    [0, '0 B'],
    [1023, '1023 B'],
    [1536, '1.5 KB'],
    [5 * 1024 * 1024, '5.0 MB'],
    [300 * 1024 * 1024, '300 MB'],
  ]);
});

describe('progress bar', () => {
  it('draws on a terminal and clears at the end', () => {
    const s = sink(true, 100);
    const p = startProgress('import wiki', 1000, s.out);
    p.note('uploading');
    p.add(500);
    p.done();
    expect(s.chunks[0]).toMatch(/^\r\x1b\[2Kimport wiki \[\.{24}\] {3}0% {2}0 B \/ 1000 B {2}uploading$/);
    expect(s.chunks.at(-1)).toBe('\r\x1b[2K');
    expect(p.bytes).toBe(500);
  });

  it('writes nothing when stderr is not a terminal', () => {
    const s = sink(false);
    const p = startProgress('export wiki', null, s.out);
    p.add(10);
    p.note('x');
    p.done();
    expect(s.chunks).toEqual([]);
  });
});
