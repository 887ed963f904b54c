// The preview follows the editor's cursor: the editor reports its text's top-level blocks as the
// elements they render to (`p`, `h2`, `ul` …) and the cursor's block (src/web/editor/cursor-block.ts);
// here they are paired in order with the preview's top-level elements, and the preview scrolls
// to the element of the cursor's block. Where the two lists differ (the server renders something
// the editor's parser sees otherwise) pairing skips ahead; with nothing paired, the cursor's
// place as a fraction of the text is used.
import type { CursorBlocks } from '../editor/codemirror.ts';

/** The element name a preview element stands for: its own, or for a wrapper (a scrollable table, say) its first child's. */
function tagOf(el: Element): string {
  const own = el.tagName.toLowerCase();
  return own === 'div' && el.firstElementChild ? el.firstElementChild.tagName.toLowerCase() : own;
}

/** The preview element of block `at`: pairs blocks and elements in order, looking a few elements ahead past ones that do not pair. */
export function elementFor(blocks: CursorBlocks, elements: readonly Element[]): Element | null {
  const tags = elements.map(tagOf);
  let best: Element | null = null;
  let j = 0;
  for (let i = 0; i <= blocks.at && i < blocks.tags.length && j < elements.length; i++) {
    let k = j;
    while (k < elements.length && k - j < 4 && tags[k] !== blocks.tags[i]) k++;
    if (k < elements.length && tags[k] === blocks.tags[i]) {
      best = elements[k];
      j = k + 1;
    }
  }
  return best;
}

/** Scrolls `container` (the preview) so that the cursor's block shows, a third of the way down; not when it is in view already. */
export function followCursor(container: HTMLElement, body: HTMLElement, blocks: CursorBlocks): void {
  if (container.scrollHeight <= container.clientHeight) return;
  const el = elementFor(blocks, [...body.children]);
  const view = container.getBoundingClientRect();
  let target: number;
  if (el) {
    const r = el.getBoundingClientRect();
    if (r.top >= view.top && r.bottom <= view.bottom) return;
    if (r.top >= view.top && r.top < view.bottom - 40 && r.height > view.height) return;
    target = container.scrollTop + (r.top - view.top) - container.clientHeight / 3;
  } else {
    target = blocks.fraction * (container.scrollHeight - container.clientHeight);
  }
  container.scrollTop = Math.max(0, target);
}
