// Builds the page tree of a space from its page paths: a page may also be a folder
// (`guide` and `guide/setup`), and a folder may exist only through its pages.
import type { PageSummary } from '../api/types.ts';

export interface TreeNode { name: string; path: string; page?: PageSummary; children: TreeNode[] }

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
    nodes.sort((a, b) => (a.children.length > 0 ? 0 : 1) - (b.children.length > 0 ? 0 : 1) || label(a).localeCompare(label(b)));
    nodes.forEach((n) => sort(n.children));
  };
  sort(root.children);
  return root.children;
}

export const label = (n: TreeNode): string => n.page?.title ?? n.name;
