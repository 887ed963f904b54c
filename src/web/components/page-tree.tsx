// The page tree of a space: folders open and close, each page links to its view.
import { useState } from 'preact/hooks';
import { label, type TreeNode } from '../lib/tree.ts';
import { href } from '../router.ts';
import { Icon } from './icons.tsx';

function Node({ space, node, depth, current }: { space: string; node: TreeNode; depth: number; current?: string }) {
  const [open, setOpen] = useState(depth === 0 || (current ?? '').startsWith(`${node.path}/`));
  const hasChildren = node.children.length > 0;
  return (
    <li>
      <div class={`tree-row${current === node.path ? ' current' : ''}`}>
        {hasChildren ? (
          <button
            type="button"
            class={`tree-toggle${open ? ' open' : ''}`}
            aria-expanded={open}
            aria-label={`${open ? 'Collapse' : 'Expand'} ${label(node)}`}
            onClick={() => setOpen(!open)}
          >
            <Icon name="chevron" />
          </button>
        ) : (
          <span class="tree-toggle-spacer" aria-hidden="true" />
        )}
        {node.page ? (
          <a href={href.page(space, node.path)} aria-current={current === node.path ? 'page' : undefined}>
            <Icon name="page" />
            {node.page.title}
          </a>
        ) : (
          <span class="tree-folder">
            <Icon name="folder" />
            {node.name}
          </span>
        )}
      </div>
      {hasChildren && open && (
        <ul>
          {node.children.map((c) => (
            <Node key={c.path} space={space} node={c} depth={depth + 1} current={current} />
          ))}
        </ul>
      )}
    </li>
  );
}

export function PageTree({ space, nodes, current }: { space: string; nodes: TreeNode[]; current?: string }) {
  return (
    <ul class="tree" aria-label="Pages">
      {nodes.map((n) => (
        <Node key={n.path} space={space} node={n} depth={0} current={current} />
      ))}
    </ul>
  );
}
