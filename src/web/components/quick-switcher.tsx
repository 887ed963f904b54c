// The quick switcher (Ctrl-K / ⌘-K): a dialog "Go to page" with a combobox. Typing lists pages by
// title (GET /search/titles) and matching commands; the box empty, favourites and recently viewed
// pages. Up/Down move through the options, Enter chooses, Escape closes (focus goes back).
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { get } from '../api/client.ts';
import type { Space } from '../api/types.ts';
import { recentPages } from '../lib/recent.ts';
import { switcherOptions, type PageRef, type SwitcherOption } from '../lib/switcher-options.ts';
import { loadAllSpaces } from '../views/home.tsx';
import { Dialog } from './ui.tsx';

/** Fired (on window) to open the switcher, e.g. by the header's button. */
export const OPEN_SWITCHER_EVENT = 'kspace:switcher';
const LIST_ID = 'switcher-options';

/**
 * Ctrl-K / ⌘-K anywhere toggles the switcher, except inside the editor's text, where the
 * editor's own Ctrl-K (a link) wins, and while another dialog is open.
 */
export function useSwitcherShortcut(enabled: boolean, toggle: () => void): void {
  const toggleRef = useRef(toggle);
  toggleRef.current = toggle;
  useLayoutEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent): void => {
      if (e.key.toLowerCase() !== 'k' || !(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey || e.defaultPrevented) return;
      const target = e.target instanceof Element ? e.target : null;
      if (target?.closest('.cm-editor')) return;
      const dialog = document.querySelector('dialog[open]');
      if (dialog && !dialog.classList.contains('switcher')) return;
      e.preventDefault();
      toggleRef.current();
    };
    const onOpen = (): void => toggleRef.current();
    document.addEventListener('keydown', onKey);
    window.addEventListener(OPEN_SWITCHER_EVENT, onOpen);
    return () => {
      document.removeEventListener('keydown', onKey);
      window.removeEventListener(OPEN_SWITCHER_EVENT, onOpen);
    };
  }, [enabled]);
}

export function QuickSwitcher({ space, path, onClose }: { space?: string; path?: string; onClose: () => void }) {
  const [text, setText] = useState('');
  const [answer, setAnswer] = useState<{ text: string; hits: PageRef[] } | null>(null);
  const [favourites, setFavourites] = useState<PageRef[]>([]);
  const [spaces, setSpaces] = useState<Space[]>([]);
  const [recent] = useState(recentPages);
  const [active, setActive] = useState(0);
  const enterPending = useRef(false);

  useEffect(() => {
    get<PageRef[]>('/me/favourites').then(setFavourites, () => undefined);
    loadAllSpaces().then(setSpaces, () => undefined);
  }, []);

  // Titles are asked for at once, one request at a time: keys typed while one is on its way wait
  // for it, and then the text typed by then is asked for. An answer to older text is dropped.
  const inflight = useRef(false);
  const wanted = useRef('');
  const alive = useRef(true);
  useEffect(
    () => () => {
      alive.current = false;
    },
    [],
  );
  const ask = (q: string): void => {
    wanted.current = q;
    if (!q || inflight.current) return;
    inflight.current = true;
    const done = (hits: PageRef[]): void => {
      inflight.current = false;
      if (!alive.current) return;
      if (wanted.current === q) {
        setAnswer({ text: q, hits });
        setActive(0);
      } else ask(wanted.current);
    };
    get<{ hits: PageRef[] }>(`/search/titles?q=${encodeURIComponent(q)}&limit=10`).then(
      (r) => done(r.hits),
      () => done([]),
    );
  };

  const q = text.trim();
  const fresh = !q || answer?.text === q;
  const options = switcherOptions({ text, hits: fresh && answer ? answer.hits : null, favourites, recent, spaces, space, path });
  const current = Math.min(active, options.length - 1);

  const choose = (o: SwitcherOption | undefined): void => {
    if (!o) return;
    onClose();
    o.run();
  };
  // Enter pressed before the answer for the text typed so far: the first option of that answer is chosen.
  useEffect(() => {
    if (enterPending.current && fresh) {
      enterPending.current = false;
      choose(options[current]);
    }
  });

  const onKeyDown = (e: KeyboardEvent): void => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const n = options.length;
      if (n) setActive((current + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      if (fresh) choose(options[current]);
      else enterPending.current = true;
    }
  };

  useEffect(() => {
    document.getElementById(optionId(current))?.scrollIntoView({ block: 'nearest' });
  }, [current]);

  return (
    <Dialog title="Go to page" onClose={onClose} class="switcher">
      <input
        type="text"
        role="combobox"
        class="switcher-input"
        autoFocus
        autoComplete="off"
        spellcheck={false}
        aria-label="Page title or command"
        placeholder="Type a page title or a command"
        aria-expanded="true"
        aria-controls={LIST_ID}
        aria-autocomplete="list"
        aria-activedescendant={options.length ? optionId(current) : undefined}
        onInput={(e) => {
          const v = e.currentTarget.value;
          setText(v);
          setActive(0);
          ask(v.trim());
        }}
        onKeyDown={onKeyDown}
      />
      <div id={LIST_ID} role="listbox" aria-label="Pages and commands" class="switcher-list" aria-busy={!fresh}>
        {groups(options).map(([group, items]) => (
          <div role="group" key={group} aria-labelledby={`switcher-${slugOf(group)}`}>
            <div role="presentation" id={`switcher-${slugOf(group)}`} class="switcher-group">
              {group}
            </div>
            {items.map(({ o, i }) => (
              <div
                key={o.key}
                id={optionId(i)}
                role="option"
                aria-selected={i === current}
                class="switcher-option"
                onMouseDown={(e) => e.preventDefault()}
                onMouseMove={() => {
                  if (i !== current) setActive(i);
                }}
                onClick={() => choose(o)}
              >
                <span class="switcher-label">{o.label}</span>
                {o.detail && <span class="switcher-detail">{o.detail}</span>}
              </div>
            ))}
          </div>
        ))}
      </div>
      <p class="sr-only" role="status">
        {q && fresh ? `${options.length} ${options.length === 1 ? 'option' : 'options'}` : ''}
      </p>
      <p class="switcher-help small muted">
        <kbd>↑</kbd> <kbd>↓</kbd> to move, <kbd>Enter</kbd> to open, <kbd>Esc</kbd> to close
      </p>
    </Dialog>
  );
}

const optionId = (i: number): string => `switcher-option-${i}`;
const slugOf = (group: string): string => group.toLowerCase().replace(/[^a-z]+/g, '-');

/** Options in their groups, in order, each with its index in the whole list. */
function groups(options: SwitcherOption[]): Array<[string, Array<{ o: SwitcherOption; i: number }>]> {
  const out: Array<[string, Array<{ o: SwitcherOption; i: number }>]> = [];
  options.forEach((o, i) => {
    const last = out[out.length - 1];
    if (last && last[0] === o.group) last[1].push({ o, i });
    else out.push([o.group, [{ o, i }]]);
  });
  return out;
}
