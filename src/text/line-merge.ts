// Line diff (LCS) and a three-way line merge: enough for the history view, for resolving a
// conflicting save without losing either side, and for `kspace sync` (both sides changed a page).

type DiffOp = { type: 'same' | 'add' | 'del'; line: string };

const MAX_CELLS = 4_000_000;

/** Lines of `a` and `b` as same / deleted / added, in order. */
export function diffLines(a: string[], b: string[]): DiffOp[] {
  // Trim the common head and tail: edits are usually local, and it keeps the table small.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const A = a.slice(head, a.length - tail);
  const B = b.slice(head, b.length - tail);
  const out: DiffOp[] = a.slice(0, head).map((line) => ({ type: 'same', line }));
  if (A.length * B.length > MAX_CELLS) {
    out.push(...A.map((line): DiffOp => ({ type: 'del', line })), ...B.map((line): DiffOp => ({ type: 'add', line })));
  } else {
    const n = A.length;
    const m = B.length;
    const lcs = new Uint32Array((n + 1) * (m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * (m + 1) + j] =
          A[i] === B[j] ? lcs[(i + 1) * (m + 1) + j + 1] + 1 : Math.max(lcs[(i + 1) * (m + 1) + j], lcs[i * (m + 1) + j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (A[i] === B[j]) {
        out.push({ type: 'same', line: A[i] });
        i++;
        j++;
      } else if (lcs[(i + 1) * (m + 1) + j] >= lcs[i * (m + 1) + j + 1]) out.push({ type: 'del', line: A[i++] });
      else out.push({ type: 'add', line: B[j++] });
    }
    while (i < n) out.push({ type: 'del', line: A[i++] });
    while (j < m) out.push({ type: 'add', line: B[j++] });
  }
  out.push(...a.slice(a.length - tail).map((line): DiffOp => ({ type: 'same', line })));
  return out;
}

interface Hunk {
  start: number;
  end: number;
  lines: string[];
}

/** The changes from base to other as replacements of base line ranges. */
function hunks(base: string[], other: string[]): Hunk[] {
  const out: Hunk[] = [];
  let i = 0;
  let cur: Hunk | null = null;
  for (const op of diffLines(base, other)) {
    if (op.type === 'same') {
      cur = null;
      i++;
      continue;
    }
    if (!cur) {
      cur = { start: i, end: i, lines: [] };
      out.push(cur);
    }
    if (op.type === 'del') {
      i++;
      cur.end = i;
    } else cur.lines.push(op.line);
  }
  return out;
}

function apply(base: string[], start: number, end: number, hs: Hunk[]): string[] {
  const out: string[] = [];
  let i = start;
  for (const h of hs) {
    out.push(...base.slice(i, h.start), ...h.lines);
    i = h.end;
  }
  out.push(...base.slice(i, end));
  return out;
}

interface MergeResult {
  text: string;
  conflicts: number;
}

/**
 * Three-way merge of two edits of `base`. Changes to different lines are combined; where both
 * changed the same lines differently, both versions are kept between conflict markers.
 */
export function mergeThreeWay(base: string, mine: string, theirs: string, theirLabel = 'theirs'): MergeResult {
  const B = base.split('\n');
  const M = mine.split('\n');
  const T = theirs.split('\n');
  const hm = hunks(B, M).map((h) => ({ ...h, side: 'm' as const }));
  const ht = hunks(B, T).map((h) => ({ ...h, side: 't' as const }));
  const all = [...hm, ...ht].sort((x, y) => x.start - y.start || x.end - y.end);
  const out: string[] = [];
  let pos = 0;
  let conflicts = 0;
  let k = 0;
  while (k < all.length) {
    const group = [all[k]];
    let start = all[k].start;
    let end = all[k].end;
    k++;
    while (k < all.length && all[k].start <= end) {
      end = Math.max(end, all[k].end);
      group.push(all[k]);
      k++;
    }
    start = Math.min(start, ...group.map((g) => g.start));
    out.push(...B.slice(pos, start));
    const mineHunks = group.filter((g) => g.side === 'm');
    const theirHunks = group.filter((g) => g.side === 't');
    const mineText = apply(B, start, end, mineHunks);
    const theirText = apply(B, start, end, theirHunks);
    if (theirHunks.length === 0) out.push(...mineText);
    else if (mineHunks.length === 0) out.push(...theirText);
    else if (mineText.join('\n') === theirText.join('\n')) out.push(...mineText);
    else {
      conflicts++;
      out.push('<<<<<<< yours', ...mineText, '=======', ...theirText, `>>>>>>> ${theirLabel}`);
    }
    pos = end;
  }
  out.push(...B.slice(pos));
  return { text: out.join('\n'), conflicts };
}
