// The sidebar tree's state: the folder levels loaded so far (one request each), which folders are
// open, and the list of rows a keyboard walks through, in the order they show.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { get, spaceApi } from '../api/client.ts';
import { ancestors, levelAddress, mergeLevel, parentOf, type LevelNode } from './tree.ts';
import { useLiveChanges } from './live.ts';

interface LevelState {
  nodes: LevelNode[];
  nextCursor: string | null;
  status: 'loading' | 'ok' | 'error';
  error?: unknown;
}

/** A row of the tree: a page or folder, the "show more" row of a long level, or a level's loading/error note. */
export type Row =
  | { key: string; kind: 'node'; node: LevelNode; level: string; depth: number; pos: number; size: number }
  | { key: string; kind: 'more' | 'loading' | 'error'; level: string; depth: number };

type LevelAnswer = Parameters<typeof mergeLevel>[1];

export function useTreeLevels(space: string, current: string | undefined) {
  const [levels, setLevels] = useState<Map<string, LevelState>>(() => new Map());
  const [open, setOpen] = useState<Set<string>>(() => new Set(current ? ancestors(current).slice(1) : []));
  const levelsRef = useRef(levels);
  levelsRef.current = levels;
  const seq = useRef(new Map<string, number>());

  const setLevel = (folder: string, f: (before: LevelState | undefined) => LevelState): void =>
    setLevels((m) => new Map(m).set(folder, f(m.get(folder))));

  /** Loads a level (again), or with `more` its next part; a newer request for the same level wins. */
  const load = useCallback(
    (folder: string, more = false): void => {
      const mine = (seq.current.get(folder) ?? 0) + 1;
      seq.current.set(folder, mine);
      const cursor = more ? (levelsRef.current.get(folder)?.nextCursor ?? null) : null;
      setLevel(folder, (lv) => ({ nodes: lv?.nodes ?? [], nextCursor: lv?.nextCursor ?? null, status: 'loading' }));
      get<LevelAnswer>(levelAddress(spaceApi(space), folder, cursor)).then(
        (a) => {
          if (seq.current.get(folder) !== mine) return;
          setLevel(folder, (lv) => ({ nodes: mergeLevel(more ? (lv?.nodes ?? []) : [], a), nextCursor: a.nextCursor, status: 'ok' }));
        },
        (error: unknown) => {
          if (seq.current.get(folder) !== mine) return;
          setLevel(folder, (lv) => ({ nodes: lv?.nodes ?? [], nextCursor: lv?.nextCursor ?? null, status: 'error', error }));
        },
      );
    },
    [space],
  );

  // The current page's folders open, each level loaded once; its own level is asked again on each
  // visit, so a page just created, moved or renamed shows as it is now.
  useEffect(() => {
    const folders = current === undefined ? [''] : ancestors(current);
    if (current !== undefined) setOpen((o) => new Set([...o, ...folders.slice(1)]));
    for (const f of folders) if (!levelsRef.current.has(f) || (current !== undefined && f === parentOf(current))) load(f);
  }, [current, load]);

  // Live (lib/live.ts): a page created, deleted, moved or restored in this space reloads the
  // loaded levels on its way (a folder may appear or go); a page updated (a new title) its own level.
  useLiveChanges(
    (batch) => {
      const again = new Set<string>();
      const near = (p: string, all: boolean): void => {
        for (const f of all ? ancestors(p) : [parentOf(p)]) if (levelsRef.current.has(f)) again.add(f);
      };
      for (const c of batch) {
        if (!c.event.startsWith('page.')) continue;
        if (c.space === space) near(c.path, c.event !== 'page.updated');
        if (c.from?.space === space) near(c.from.path, true);
      }
      for (const f of again) load(f);
    },
    () => {
      for (const f of levelsRef.current.keys()) load(f);
    },
  );

  const toggle = (folder: string, want?: boolean): void => {
    const opening = want ?? !open.has(folder);
    setOpen((o) => {
      const next = new Set(o);
      if (opening) next.add(folder);
      else next.delete(folder);
      return next;
    });
    if (opening && !levelsRef.current.has(folder)) load(folder);
  };

  return { levels, open, toggle, load, rows: flatten(levels, open) };
}

/** The rows that show, in order: each open folder's level right after the folder's own row. */
function flatten(levels: Map<string, LevelState>, open: Set<string>): Row[] {
  const rows: Row[] = [];
  const walk = (level: string, depth: number): void => {
    const lv = levels.get(level);
    const nodes = lv?.nodes ?? [];
    nodes.forEach((node, i) => {
      rows.push({ key: node.path, kind: 'node', node, level, depth, pos: i + 1, size: nodes.length });
      if (node.folder && open.has(node.path)) walk(node.path, depth + 1);
    });
    if (!lv || (lv.status === 'loading' && nodes.length === 0)) rows.push({ key: `loading:${level}`, kind: 'loading', level, depth });
    else if (lv.status === 'error') rows.push({ key: `error:${level}`, kind: 'error', level, depth });
    else if (lv.nextCursor) rows.push({ key: `more:${level}`, kind: 'more', level, depth });
  };
  walk('', 1);
  return rows;
}
