// The colour theme: system (the browser's prefers-color-scheme), light or dark, remembered in
// localStorage and applied as `data-theme` on <html> (styles.css holds both palettes).
type Theme = 'system' | 'light' | 'dark';

const KEY = 'kspace:theme';
const ORDER: Theme[] = ['system', 'light', 'dark'];

export function storedTheme(): Theme {
  try {
    const t = localStorage.getItem(KEY);
    return t === 'light' || t === 'dark' ? t : 'system';
  } catch {
    return 'system';
  }
}

export function applyTheme(theme: Theme = storedTheme()): void {
  if (theme === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

/** system → light → dark → system; returns the new theme. */
export function cycleTheme(): Theme {
  const next = ORDER[(ORDER.indexOf(storedTheme()) + 1) % ORDER.length];
  try {
    if (next === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, next);
  } catch {
    /* not remembered, still applied */
  }
  applyTheme(next);
  return next;
}
