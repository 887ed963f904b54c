// Builds the page tree of a space from its page paths: a page may also be a folder
// (`guide` and `guide/setup`), and a folder may exist only through its pages.
import type { PageSummary } from '../api/types.ts';
import { compareText } from './format.ts';

export interface TreeNode {
  name: string;
  path: string;
  page?: PageSummary;
  children: TreeNode[];
}

export function buildTree(pages: PageSummary[]): TreeNode[] {
  const root: TreeNode = { name: '', path: '', children: [] };
  const index = new Map<string, TreeNode>([['', root]]);
  for (const page of pages) {
    const segments = page.path.split('/');
    let parent = root;
    segments.forEach((name, i) => {
      const path = segments.slice(0, i + 1).join('/');
      let node = index.get(path);
      if (!node) {
        node = { name, path, children: [] };
        index.set(path, node);
        parent.children.push(node);
      }
      if (i === segments.length - 1) node.page = page;
      parent = node;
    });
  }
  const sort = (nodes: TreeNode[]): void => {
    nodes.sort((a, b) => (a.children.length > 0 ? 0 : 1) - (b.children.length > 0 ? 0 : 1) || compareText(label(a), label(b)));
    nodes.forEach((n) => sort(n.children));
  };
  sort(root.children);
  return root.children;
}

export const label = (n: TreeNode): string => n.page?.title ?? n.name;

// The sidebar's tree loads one folder level per request (`GET /spaces/:slug/pages?depth=1`), so a
// space of any size costs only the levels a person opens.

/** One entry of a level: a page, a folder, or a page that is a folder as well. */
export interface LevelNode {
  name: string;
  path: string;
  page?: PageSummary;
  folder: boolean;
}
type LevelAnswer = { pages: PageSummary[]; folders?: Array<{ path: string }>; nextCursor: string | null };

const LEVEL_SIZE = 200;
export const levelLabel = (n: LevelNode): string => n.page?.title ?? n.name;

/** The folder path of `path`'s parent level ('' for the top). */
export const parentOf = (path: string): string => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');

/** The folders to open to show `path`: '' (the top), then each ancestor folder. */
export function ancestors(path: string): string[] {
  const segs = path.split('/');
  return ['', ...segs.slice(0, -1).map((_, i) => segs.slice(0, i + 1).join('/'))];
}

/** Merges an answer into a level: a page and the folder of the same path become one node; folders first, then by label. */
export function mergeLevel(before: LevelNode[], answer: LevelAnswer): LevelNode[] {
  const byPath = new Map(before.map((n) => [n.path, { ...n }]));
  const node = (path: string): LevelNode => {
    let n = byPath.get(path);
    if (!n) {
      n = { name: path.slice(path.lastIndexOf('/') + 1), path, folder: false };
      byPath.set(path, n);
    }
    return n;
  };
  for (const p of answer.pages) node(p.path).page = p;
  for (const f of answer.folders ?? []) node(f.path).folder = true;
  return [...byPath.values()].sort((a, b) => Number(b.folder) - Number(a.folder) || compareText(levelLabel(a), levelLabel(b)));
}

/** The address of one level's request; `cursor` continues a level past its first answer. */
export function levelAddress(spaceApiPath: string, folder: string, cursor: string | null): string {
  const q = new URLSearchParams({ depth: '1', limit: String(LEVEL_SIZE) });
  if (folder) q.set('prefix', `${folder}/`);
  if (cursor) q.set('cursor', cursor);
  return `${spaceApiPath}/pages?${q}`;
}
