// The Pages sidebar beside a page and its editor: the space's tree, loaded a folder at a time,
// with the keyboard of the WAI-ARIA tree pattern (Up/Down, Right opens or enters, Left closes or
// goes to the parent, Home/End, Enter opens, a letter jumps to the next row starting with it).
// On narrow screens it folds behind a Pages button.
import type { JSX } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { get, spaceApi } from '../api/client.ts';
import type { Space } from '../api/types.ts';
import { levelLabel, type LevelNode } from '../lib/tree.ts';
import { useTreeLevels, type Row } from '../lib/use-tree-levels.ts';
import { href, navigate } from '../router.ts';
import { Icon } from './icons.tsx';

/** Where focus stays when a row opens a page on a wide screen (the app moves it to the content otherwise). */
export const SIDEBAR_KEEPS_FOCUS = '.side-tree';

export function Sidebar({ space, current }: { space: string; current?: string }) {
  const { levels, open, toggle, load, rows } = useTreeLevels(space, current);
  const [focusKey, setFocusKey] = useState<string | null>(null);
  const [shown, setShown] = useState(false); // narrow screens: the tree unfolded
  const [spaceName, setSpaceName] = useState(space);
  const tree = useRef<HTMLUListElement>(null);
  const moveFocus = useRef(false);

  // The space's name, asked once the top level has answered (the page view's own request for
  // the space, started with the page, has taken the early answer by then).
  const rootLoaded = levels.get('')?.status === 'ok';
  useEffect(() => {
    if (rootLoaded)
      get<Space>(spaceApi(space)).then(
        (s) => setSpaceName(s.name),
        () => undefined,
      );
  }, [rootLoaded, space]);
  // On a narrow screen the tree folds away once a page is chosen.
  useEffect(() => setShown(false), [current]);

  // One row is in the tab order (roving tabindex): the one last moved to, else the current page, else the first.
  const keys = new Set(rows.map((r) => r.key));
  const tabKey = focusKey !== null && keys.has(focusKey) ? focusKey : current !== undefined && keys.has(current) ? current : rows[0]?.key;

  useLayoutEffect(() => {
    if (!moveFocus.current || tabKey === undefined) return;
    moveFocus.current = false;
    tree.current?.querySelector<HTMLElement>(`[data-key="${CSS.escape(tabKey)}"]`)?.focus();
  });

  const focusRow = (key: string | undefined): void => {
    if (key === undefined) return;
    moveFocus.current = true;
    setFocusKey(key);
  };

  const activate = (row: Row): void => {
    if (row.kind === 'more' || row.kind === 'error') load(row.level, row.kind === 'more');
    else if (row.kind === 'node' && row.node.page) navigate(href.page(space, row.node.path));
    else if (row.kind === 'node') toggle(row.node.path);
  };

  const onKeyDown = (e: KeyboardEvent): void => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const i = rows.findIndex((r) => r.key === tabKey);
    const row = rows[i];
    if (!row) return;
    const folder = row.kind === 'node' && row.node.folder ? row.node.path : null;
    let handled = true;
    switch (e.key) {
      case 'ArrowDown':
        focusRow(rows[i + 1]?.key);
        break;
      case 'ArrowUp':
        focusRow(rows[i - 1]?.key);
        break;
      case 'Home':
        focusRow(rows[0]?.key);
        break;
      case 'End':
        focusRow(rows[rows.length - 1]?.key);
        break;
      case 'ArrowRight':
        if (folder !== null && !open.has(folder)) toggle(folder, true);
        else if (folder !== null && rows[i + 1]?.level === folder) focusRow(rows[i + 1].key);
        break;
      case 'ArrowLeft':
        if (folder !== null && open.has(folder)) toggle(folder, false);
        else if (row.level !== '') focusRow(row.level);
        break;
      case 'Enter':
        activate(row);
        break;
      default: {
        const ch = e.key.length === 1 && e.key !== ' ' ? e.key.toLocaleLowerCase() : null;
        const later = [...rows.slice(i + 1), ...rows.slice(0, i)];
        const hit = ch === null ? undefined : later.find((r) => r.kind === 'node' && levelLabel(r.node).toLocaleLowerCase().startsWith(ch));
        if (hit) focusRow(hit.key);
        else handled = false;
      }
    }
    if (handled) e.preventDefault();
  };

  const renderRow = (row: Row): JSX.Element => {
    const common = {
      'data-key': row.key,
      tabIndex: row.key === tabKey ? 0 : -1,
      'aria-level': row.depth,
      class: 'tree-item',
      onFocus: () => setFocusKey(row.key),
    };
    if (row.kind !== 'node') {
      const text = row.kind === 'more' ? 'Show more pages…' : row.kind === 'error' ? 'Could not load — Enter tries again' : 'Loading…';
      return (
        <li role="none" key={row.key}>
          <span
            role="treeitem"
            {...common}
            class={`tree-item tree-note${row.kind === 'more' || row.kind === 'error' ? ' tree-action' : ''}`}
            aria-disabled={row.kind === 'loading' ? 'true' : undefined}
            onClick={() => activate(row)}
          >
            {text}
          </span>
        </li>
      );
    }
    const node: LevelNode = row.node;
    const isOpen = node.folder && open.has(node.path);
    const chevron = node.folder ? (
      <span
        class={`tree-chevron${isOpen ? ' open' : ''}`}
        aria-hidden="true"
        onClick={(e) => {
          e.preventDefault();
          e.stopPropagation();
          toggle(node.path);
        }}
      >
        <Icon name="chevron" />
      </span>
    ) : (
      <span class="tree-chevron" aria-hidden="true" />
    );
    const item = {
      ...common,
      role: 'treeitem' as const,
      'aria-setsize': row.size,
      'aria-posinset': row.pos,
      'aria-expanded': node.folder ? isOpen : undefined,
      'aria-current': node.path === current ? ('page' as const) : undefined,
    };
    return (
      <li role="none" key={row.key}>
        {node.page ? (
          <a {...item} href={href.page(space, node.path)}>
            {chevron}
            <Icon name="page" />
            <span class="tree-label">{node.page.title}</span>
          </a>
        ) : (
          <span {...item} onClick={() => toggle(node.path)}>
            {chevron}
            <Icon name="folder" />
            <span class="tree-label">{node.name}</span>
          </span>
        )}
        {isOpen && <ul role="group">{rowsIn(node.path).map(renderRow)}</ul>}
      </li>
    );
  };
  const rowsIn = (level: string): Row[] => rows.filter((r) => r.level === level);

  const rootState = levels.get('');
  return (
    <nav class={`sidebar${shown ? ' shown' : ''}`} aria-label="Pages">
      <button
        type="button"
        class="button ghost sidebar-toggle"
        aria-expanded={shown}
        aria-controls="sidebar-body"
        onClick={() => setShown(!shown)}
      >
        <Icon name="folder" />
        Pages
      </button>
      <div id="sidebar-body" class="sidebar-body">
        <a class="sidebar-space" href={href.space(space)}>
          {spaceName}
        </a>
        {rootState?.status === 'ok' && rootState.nodes.length === 0 ? (
          <p class="muted small">No pages yet.</p>
        ) : (
          <ul ref={tree} role="tree" aria-label={`Pages of ${spaceName}`} class="side-tree" onKeyDown={onKeyDown}>
            {rowsIn('').map(renderRow)}
          </ul>
        )}
      </div>
    </nav>
  );
}
