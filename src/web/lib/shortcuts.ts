// Keyboard shortcuts that work from anywhere: `/` search, `e` edit, `n` new page.
// Ctrl/⌘-S belongs to the editor (it handles it itself).
import { useLayoutEffect } from 'preact/hooks';
import { href, navigate, type Route } from '../router.ts';

export const SEARCH_INPUT_ID = 'global-search';

function typingIn(el: EventTarget | null): boolean {
  if (!(el instanceof HTMLElement)) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
}

// A layout effect: bound when the view is rendered, not after the next paint (Preact runs plain
// effects from an animation frame), so a `/` pressed as soon as the view shows is not lost. The
// e2e search test lost it once on a loaded machine.
export function useShortcuts(route: Route, signedIn: boolean): void {
  useLayoutEffect(() => {
    if (!signedIn) return;
    const onKey = (e: KeyboardEvent): void => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typingIn(e.target)) return;
      if (document.querySelector('dialog[open]')) return;
      if (e.key === '/') {
        const input = document.getElementById(SEARCH_INPUT_ID) as HTMLInputElement | null;
        if (input) {
          e.preventDefault();
          input.focus();
          input.select();
        }
      } else if (e.key === 'e' && route.name === 'page' && route.mode.kind === 'view') {
        e.preventDefault();
        navigate(href.edit(route.space, route.path));
      } else if (e.key === 'n') {
        e.preventDefault();
        const space = 'space' in route && typeof route.space === 'string' ? route.space : undefined;
        navigate(href.newPage({ space: space || undefined }));
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [route, signedIn]);
}
