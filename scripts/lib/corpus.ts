// Deterministic synthetic pages: Zipf-distributed words, metadata keys, internal links.
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pa', 'qu', 'xi', 'do', 'fe', 'gu', 'ha', 'jo', 'we', 'yu', 'bo'];
/** A vocabulary of `n` distinct made-up words; word 0 is the most frequent under zipf(). */
export function vocabulary(n: number): string[] {
  const words: string[] = [];
  for (let i = 0; words.length < n; i++) {
    let w = '';
    let x = i;
    do {
      w += SYLLABLES[x % SYLLABLES.length];
      x = Math.floor(x / SYLLABLES.length);
    } while (x > 0);
    words.push(w + (i % 7 === 0 ? 'n' : ''));
  }
  return words;
}

/** Zipf(s=1) sampler over ranks 0..n-1: a precomputed CDF and a binary search. */
export function zipf(n: number, random: () => number): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let k = 0; k < n; k++) cdf[k] = sum += 1 / (k + 1);
  for (let k = 0; k < n; k++) cdf[k] /= sum;
  return () => {
    const u = random();
    let lo = 0,
      hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export type SyntheticPage = {
  path: string;
  title: string;
  content: string;
  metadata: Record<string, string | number | boolean | string[]>;
};

const STAGES = ['todo', 'doing', 'review', 'done', 'blocked'];
/** Page `i` of a corpus of `total`: ~2 KB of text, 5 metadata keys, 3 links to other pages. */
export function syntheticPage(i: number, total: number, words: string[], random: () => number, pick: () => number): SyntheticPage {
  const path = `section-${i % 50}/page-${i}`;
  const title = `${words[pick()]} ${words[pick()]} ${i}`;
  let body = '';
  while (body.length < 1900) {
    let sentence = '';
    for (let k = 0; k < 12; k++) sentence += words[pick()] + ' ';
    body += sentence.trim() + '. ';
  }
  const link = (j: number) => `section-${j % 50}/page-${j}`;
  const targets = [Math.floor(random() * total), Math.floor(random() * total), i + total]; // the last one is broken
  const links = targets.map((j, k) => `[see ${k}](/pages/bench/${link(j)})`).join(' ');
  return {
    path,
    title,
    content: `# ${title}\n\n${body}\n\n${links}\n`,
    metadata: {
      stage: STAGES[i % STAGES.length],
      points: Math.floor(random() * 13),
      due: `2026-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`,
      done: i % 3 === 0,
      tags: [`t${i % 10}`, `t${(i * 7) % 10}`],
    },
  };
}

/**
 * The benches' corpus: `count` synthetic pages of a `total`-page corpus (their links point within
 * it, so pages past `total` are extra pages for later writes), the same for the same `seed`; and
 * the vocabulary they were drawn from.
 */
export function syntheticPages(count: number, total: number, seed: number): { pages: SyntheticPage[]; words: string[] } {
  const random = rng(seed);
  const words = vocabulary(20_000);
  const pick = zipf(words.length, random);
  return { pages: Array.from({ length: count }, (_, i) => syntheticPage(i, total, words, random, pick)), words };
}
