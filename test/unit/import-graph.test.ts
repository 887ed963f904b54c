// The house rules of docs/architecture.md, checked on the source: no import circles between
// files, and no import from a floor above (a folder imports only from its own floor or below).
// The web app is apart: it may import the shared client, the text rules (slugs, words), the bottom
// floor's types and, type-only, the answer schemas (nothing of the server enters its bundle).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const src = path.join(root, 'src');

/** Floors from the bottom; a file's floor is its first matching prefix (relative to src/). */
export const FLOORS: string[][] = [
  [
    'model.ts',
    'text/',
    'config/',
    'client/',
    'bounded-cache.ts',
    'loop-load.ts',
    'heap-limit.ts',
    'assets.ts',
    'sea-wrap.ts',
    'malloc-trim.ts',
    'sea-loader.ts',
    'rate-limit.ts',
    'read-capped.ts',
  ],
  ['store/'],
  ['services.ts'],
  ['domain/'],
  ['ops/'],
  ['mcp/'],
  ['http/'],
  ['app.ts', 'front/', 'server.ts'],
  ['cli/'],
  ['sea-main.ts'],
];
const WEB_MAY_IMPORT = ['web/', 'client/', 'text/', 'model.ts', 'http/answers.ts'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : /\.(ts|tsx)$/.test(e.name) ? [p] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

/** Each file's imports of other files of src/ (relative to src/), static and dynamic, types included. */
export function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const text = fs.readFileSync(f, 'utf8');
    const targets = [...text.matchAll(IMPORT)]
      .map((m) => path.resolve(path.dirname(f), m[1] ?? m[2]))
      .filter((t) => t.startsWith(src + path.sep) && /\.(ts|tsx)$/.test(t))
      .map((t) => path.relative(src, t));
    graph.set(path.relative(src, f), [...new Set(targets)]);
  }
  return graph;
}

export function floorOf(file: string): number {
  return FLOORS.findIndex((floor) => floor.some((prefix) => file === prefix || file.startsWith(prefix)));
}

/** Each circle once, as the files on it (Tarjan's strongly connected components of more than one file). */
export function circlesOf(graph: Map<string, string[]>): string[][] {
  let n = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, n);
    low.set(v, n++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** Imports that go against the floors: `from -> to`. */
export function upwardImports(graph: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      if (from.startsWith('web/')) {
        if (!WEB_MAY_IMPORT.some((p) => to === p || to.startsWith(p))) out.push(`${from} -> ${to}`);
        continue;
      }
      if (to.startsWith('web/')) {
        out.push(`${from} -> ${to}`);
        continue;
      }
      const a = floorOf(from);
      const b = floorOf(to);
      if (a < 0 || b < 0 || b > a) out.push(`${from} -> ${to}`);
    }
  }
  return out;
}

describe('the import graph of src/', () => {
  const graph = importGraph(sourceFiles(src));

  it('has every file on a floor', () => {
    expect([...graph.keys()].filter((f) => !f.startsWith('web/') && floorOf(f) < 0)).toEqual([]);
  });

  it('has no circles', () => {
    expect(circlesOf(graph)).toEqual([]);
  });

  it('has no import from a floor above', () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it('finds a circle and an upward import when there is one', () => {
    const bad = new Map([
      ['store/a.ts', ['store/b.ts']],
      ['store/b.ts', ['store/a.ts', 'domain/c.ts']],
      ['domain/c.ts', []],
    ]);
    expect(circlesOf(bad)).toEqual([['store/a.ts', 'store/b.ts']]);
    expect(upwardImports(bad)).toEqual(['store/b.ts -> domain/c.ts']);
  });
});
