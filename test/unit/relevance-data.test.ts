// The relevance bench's collection parsers and figures (scripts/lib/relevance-data.ts).
import { describe, expect, it } from 'vitest';
import { evaluate, parseQrels, parseSmart, smartDocs, smartQueries } from '../../scripts/lib/relevance-data.ts';

describe('parseSmart', () => {
  it('reads records and their fields, CRLF or not, ignoring lines before the first .I', () => {
    const text =
      '.X\r\nstray\r\n.I 1\r\n.T\r\nA title\r\n.A\r\nSomeone\r\n.W\r\n  line one\r\nline two\r\n.X\r\n5 1 1\r\n.I 7\n.W\nonly a body\n';
    expect(parseSmart(text)).toEqual([
      { I: '1', T: 'A title\n', A: 'Someone\n', W: '  line one\nline two\n', X: '5 1 1\n' },
      { I: '7', W: 'only a body\n\n' },
    ]);
  });

  it('gives docs a one-line title and a body, and questions their .W or else their .T', () => {
    const all = '.I 3\n.T\nTwo\n  lines\n.W\n body \n.I 4\n.T \nNo body\n';
    expect(smartDocs(all)).toEqual([
      { id: 3, title: 'Two lines', body: 'body' },
      { id: 4, title: 'No body', body: '' },
    ]);
    expect(smartQueries('.I 01\n.W\n What\n is it?\n.N\n note\n.I 2\n.T\nTitle only\n')).toEqual([
      { id: 1, text: 'What is it?' },
      { id: 2, text: 'Title only' },
    ]);
  });
});

describe('parseQrels', () => {
  it('maps grades to gains, drops gains of 0 or less and bad lines, keeps the best of duplicates', () => {
    const text = '1 184 2\n1 29 -1\n01 1410  0 0\n1 184 4\nx y z\n\n2 5\n     3     28\t0\t0.000000\n';
    const graded = parseQrels(text, (g) => (g >= 1 && g <= 4 ? 5 - g : 0));
    expect([...graded].map(([q, d]) => [q, [...d]])).toEqual([[1, [[184, 3]]]]);
    const binary = parseQrels(text, () => 1);
    expect([...binary].map(([q, d]) => [q, [...d].sort((a, b) => a[0] - b[0])])).toEqual([
      [
        1,
        [
          [29, 1],
          [184, 1],
          [1410, 1],
        ],
      ],
      [2, [[5, 1]]],
      [3, [[28, 1]]],
    ]);
  });
});

describe('evaluate', () => {
  it('computes nDCG@10, MAP@100, Recall@100 and MRR over the judged questions', () => {
    const qrels = new Map([
      [
        1,
        new Map([
          [10, 2],
          [20, 1],
        ]),
      ],
      [2, new Map([[30, 1]])],
    ]);
    const runs = new Map([
      [1, [20, 99, 10]],
      [2, [98, 97]],
      [3, [30]],
    ]);
    const s = evaluate(runs, qrels);
    const ideal1 = 3 + 1 / Math.log2(3);
    const dcg1 = 1 + 3 / Math.log2(4);
    expect(s.ndcg10).toBeCloseTo((dcg1 / ideal1 + 0) / 2, 10);
    expect(s.map100).toBeCloseTo(((1 + 2 / 3) / 2 + 0) / 2, 10);
    expect(s.recall100).toBeCloseTo((1 + 0) / 2, 10);
    expect(s.mrr).toBeCloseTo((1 + 0) / 2, 10);
  });
});
