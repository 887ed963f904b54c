// What the quick switcher offers for what has been typed: pages (favourites and recently viewed
// when the box is empty, title matches otherwise) and commands, each with what choosing it does.
import type { Space } from '../api/types.ts';
import { href, navigate } from '../router.ts';
import type { RecentPage } from './recent.ts';
import { cycleTheme, storedTheme } from './theme.ts';

export interface PageRef {
  space: string;
  path: string;
  title: string;
}
export interface SwitcherOption {
  key: string;
  group: string;
  label: string;
  detail?: string;
  run: () => void;
}

interface SwitcherInput {
  text: string;
  /** Title matches for `text` (GET /search/titles); null while none have arrived for it. */
  hits: PageRef[] | null;
  favourites: PageRef[];
  recent: RecentPage[];
  spaces: Space[];
  /** The space of the view behind the switcher, if any. */
  space?: string;
  /** The page behind the switcher, if any: left out of the recent pages. */
  path?: string;
}

const fold = (s: string): string => s.normalize('NFD').replace(/\p{M}/gu, '').toLocaleLowerCase();
const words = (s: string): string[] =>
  fold(s)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/** Every typed word is the start of a word of `label` (case and accents ignored). */
function matchesWords(label: string, text: string): boolean {
  const have = words(label);
  return words(text).every((w) => have.some((h) => h.startsWith(w)));
}

const pageOption = (group: string, p: PageRef, current?: string): SwitcherOption => ({
  key: `page:${p.space}/${p.path}`,
  group,
  label: p.title,
  detail: p.space === current ? p.path : `${p.space}/${p.path}`,
  run: () => navigate(href.page(p.space, p.path)),
});

const THEME_NAMES = { system: 'system', light: 'light', dark: 'dark' } as const;

export function switcherOptions(input: SwitcherInput): SwitcherOption[] {
  const text = input.text.trim();
  const out: SwitcherOption[] = [];
  const seen = new Set<string>();
  const addPage = (group: string, p: PageRef): void => {
    const o = pageOption(group, p, input.space);
    if (!seen.has(o.key)) {
      seen.add(o.key);
      out.push(o);
    }
  };
  if (!text) {
    input.favourites.slice(0, 5).forEach((p) => addPage('Favourites', p));
    input.recent
      .filter((p) => p.space !== input.space || p.path !== input.path)
      .slice(0, 8)
      .forEach((p) => addPage('Recently viewed', p));
  } else {
    (input.hits ?? []).forEach((p) => addPage('Pages', p));
  }

  // Commands: those whose name matches what was typed, then searching for it everywhere.
  const commands: SwitcherOption[] = [];
  commands.push({
    key: 'cmd:new',
    group: 'Commands',
    label: 'New page',
    detail: input.space,
    run: () => navigate(href.newPage({ space: input.space })),
  });
  const spaces = text
    ? input.spaces.filter((s) => matchesWords(`go to space ${s.name} ${s.slug}`, text)).slice(0, 5)
    : input.spaces.filter((s) => s.slug === input.space);
  for (const s of spaces)
    commands.push({
      key: `cmd:space:${s.slug}`,
      group: 'Commands',
      label: `Go to space ${s.name}`,
      detail: s.slug,
      run: () => navigate(href.space(s.slug)),
    });
  if (!text && spaces.length === 0 && input.space) {
    const slug = input.space;
    commands.push({ key: `cmd:space:${slug}`, group: 'Commands', label: `Go to space ${slug}`, run: () => navigate(href.space(slug)) });
  }
  commands.push({
    key: 'cmd:theme',
    group: 'Commands',
    label: 'Toggle theme',
    detail: `now ${THEME_NAMES[storedTheme()]}`,
    run: () => {
      cycleTheme();
    },
  });
  if (text)
    commands.push({
      key: 'cmd:search',
      group: 'Commands',
      label: `Search everywhere for “${text}”`,
      run: () => navigate(href.search(text)),
    });
  for (const c of commands) {
    if (!text || c.key === 'cmd:search' || c.key.startsWith('cmd:space:') || matchesWords(c.label, text)) out.push(c);
  }
  return out;
}
