// A unified diff of two page texts whose cost is bounded: jsdiff's Myers diff runs only on the
// lines between the texts' common first and last lines, and gives up past a number of such
// lines, an edit length or a time budget (its cost grows with the length times the number of
// changes); the answer is then a coarser diff made in one pass, marked `truncated`: the common
// first and last lines kept, every line between them removed and added as one hunk.
// Pure; revisions.ts runs it off the event loop for large texts (offload.ts).
import { formatPatch, structuredPatch } from 'diff';

/** Changed lines (added + removed) past which the minimal diff is not searched for. */
const MAX_EDIT_LENGTH = 4000;
/** Milliseconds the minimal diff may take before the coarse one is made instead. */
const DIFF_TIME_BUDGET_MS = 400;
/** Differing lines (of both texts) past which jsdiff is not run at all. */
const MAX_DIFF_LINES = 40_000;
const CONTEXT = 3;

type ContentDiff = { contentDiff: string; truncated: boolean };

export function diffContents(oldName: string, newName: string, a: string, b: string, timeout = DIFF_TIME_BUDGET_MS): ContentDiff {
  const x = withNewline(a);
  const y = withNewline(b);
  const ends = commonEnds(x, y);
  if (ends.xLines + ends.yLines <= MAX_DIFF_LINES) {
    // jsdiff sees only the lines that differ and the context around them: its cost per line is
    // high, and the common first and last lines are found here in one pass.
    const exact = structuredPatch(oldName, newName, x.slice(ends.from, ends.xTo), y.slice(ends.from, ends.yTo), '', '', {
      context: CONTEXT,
      maxEditLength: MAX_EDIT_LENGTH,
      timeout,
    });
    if (exact !== undefined) {
      for (const h of exact.hunks) {
        h.oldStart += ends.fromLine;
        h.newStart += ends.fromLine;
      }
      return { contentDiff: formatPatch(exact), truncated: false };
    }
  }
  return { contentDiff: coarseDiff(oldName, newName, x, y, ends), truncated: true };
}

/**
 * Where two texts (empty or ending in a newline) differ, in whole lines: `head`/`xTail`/`yTail`
 * are the offsets of the first differing line and of the common last lines, `from`/`xTo`/`yTo`
 * those CONTEXT lines further out, `fromLine` the line number of `from` (0-based), and `xLines`/
 * `yLines` how many lines differ in each text. Found on the strings, without splitting them.
 */
type Ends = {
  head: number;
  xTail: number;
  yTail: number;
  from: number;
  xTo: number;
  yTo: number;
  fromLine: number;
  xLines: number;
  yLines: number;
};

function commonEnds(x: string, y: string): Ends {
  const n = Math.min(x.length, y.length);
  let i = 0;
  while (i < n && x.charCodeAt(i) === y.charCodeAt(i)) i++;
  // Back to the start of the line the first difference is in.
  const head = lineStart(x, i);
  let j = 0;
  while (j < n - head && x.charCodeAt(x.length - 1 - j) === y.charCodeAt(y.length - 1 - j)) j++;
  // Forward to where whole lines start in both texts: the common end is whole lines.
  const shift = y.length - x.length;
  let xTail = x.length - j;
  const startsLine = (t: string, at: number) => at === 0 || t.charCodeAt(at - 1) === 10;
  while (xTail < x.length && !(startsLine(x, xTail) && startsLine(y, xTail + shift))) xTail++;
  const yTail = xTail + shift;
  let from = head;
  for (let k = 0; k < CONTEXT && from > 0; k++) from = lineStart(x, from - 1);
  const after = (t: string, at: number) => {
    let e = at;
    for (let k = 0; k < CONTEXT && e < t.length; k++) e = t.indexOf('\n', e) + 1;
    return e;
  };
  return {
    head,
    xTail,
    yTail,
    from,
    xTo: after(x, xTail),
    yTo: after(y, yTail),
    fromLine: countLines(x, 0, from),
    xLines: countLines(x, head, xTail),
    yLines: countLines(y, head, yTail),
  };
}

/**
 * Every line of `text` (empty, or ending in a newline) with `mark` before it. Copied in a buffer:
 * a string built by a million replacements kept the collector busy for seconds.
 */
function prefixed(mark: ' ' | '-' | '+', text: string): string {
  if (text === '') return '';
  const src = Buffer.from(text, 'utf8');
  let lines = 0;
  for (let i = src.indexOf(10); i >= 0; i = src.indexOf(10, i + 1)) lines++;
  const out = Buffer.allocUnsafe(src.length + lines);
  const m = mark.charCodeAt(0);
  let o = 0;
  for (let s = 0; s < src.length; ) {
    const e = src.indexOf(10, s) + 1;
    out[o++] = m;
    o += src.copy(out, o, s, e);
    s = e;
  }
  return out.toString('utf8');
}

/** The start of the line that holds offset `at` (lastIndexOf reads a negative start as 0). */
function lineStart(t: string, at: number): number {
  return at <= 0 ? 0 : t.lastIndexOf('\n', at - 1) + 1;
}

function countLines(t: string, start: number, end: number): number {
  let n = 0;
  for (let i = t.indexOf('\n', start); i >= 0 && i < end; i = t.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * One hunk from the first line that differs to the last: every line between removed, then every
 * line between added, with CONTEXT lines around it; made from the texts' slices.
 */
function coarseDiff(oldName: string, newName: string, x: string, y: string, e: Ends): string {
  const header = `===================================================================\n--- ${oldName}\t\n+++ ${newName}\t\n`;
  if (e.xLines === 0 && e.yLines === 0) return header;
  const oldCount = countLines(x, e.from, e.xTo);
  const newCount = countLines(y, e.from, e.yTo);
  // A range of no lines starts at the line before it (unified diff, as jsdiff writes it).
  const range = (count: number) => `${count === 0 ? e.fromLine : e.fromLine + 1},${count}`;
  return (
    `${header}@@ -${range(oldCount)} +${range(newCount)} @@\n` +
    prefixed(' ', x.slice(e.from, e.head)) +
    prefixed('-', x.slice(e.head, e.xTail)) +
    prefixed('+', y.slice(e.head, e.yTail)) +
    prefixed(' ', x.slice(e.xTail, e.xTo))
  );
}

// Without it, a last line that differs only in its missing newline shows a "\ No newline" marker.
function withNewline(s: string): string {
  return s === '' || s.endsWith('\n') ? s : s + '\n';
}
