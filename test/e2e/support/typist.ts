// A seeded typist for the typing tests: a stream of keys (mixed text, Enter, Backspace, cursor
// moves) and the text they must produce, computed by modelling each edit as CodeMirror's default
// keymap does it. The stream keeps two invariants that make the model exact:
// - no line starts with a space (CodeMirror's Enter copies and its Backspace deletes indentation);
// - Home and End are pressed only on short lines (on a wrapped line they go to the wrap point).
// Clicks are left out for the same reason: where a click lands depends on the layout.
import type { Page } from 'playwright-core';

export type Action = { text: string } | { key: string };

export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789éüßñçøå';
const MARKS = '.,;:!?-*_#[]()\'"/`';

/**
 * About `keys` keystrokes from `seed`, and the text they leave in a control that starts with `start`.
 * `oneLine` is for fields holding one line (inputs, or textareas kept to one line): no Enter.
 */
export function script(
  seed: number,
  keys: number,
  start = '',
  opts: { oneLine?: boolean } = {},
): { actions: Action[]; expected: string; keys: number; after: (string | null)[] } {
  const oneLine = opts.oneLine ?? false;
  const r = rng(seed);
  const pick = (s: string): string => s[Math.floor(r() * s.length)]!;
  const int = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
  let text = start;
  let at = text.length;
  let count = 0;
  const actions: Action[] = [];
  // The text after each step (null inside a run of keys): for finding where a run went wrong.
  const after: (string | null)[] = [];
  const mark = (): void => {
    while (after.length < actions.length - 1) after.push(null);
    if (after.length < actions.length) after.push(text);
  };
  const lineStart = (p: number): number => text.lastIndexOf('\n', p - 1) + 1;
  const lineEnd = (p: number): number => {
    const i = text.indexOf('\n', p);
    return i < 0 ? text.length : i;
  };
  const key = (k: string): void => {
    actions.push({ key: k });
    count++;
  };

  while (count < keys) {
    mark();
    const roll = r();
    if (roll < 0.55 || (oneLine && roll < 0.65)) {
      const words: string[] = [];
      for (let w = int(1, 3); w > 0; w--) {
        let word = '';
        for (let n = int(1, 7); n > 0; n--) word += r() < 0.12 ? pick(MARKS) : pick(LETTERS);
        words.push(word);
      }
      let chunk = words.join(' ') + (r() < 0.5 ? ' ' : '');
      // A space never goes first on a line, nor right before a space at a line's start.
      if (at === lineStart(at)) chunk = chunk.replace(/^ +/, '');
      if (chunk.endsWith(' ') && text[at] === ' ') chunk = chunk.trimEnd();
      if (!chunk) continue;
      actions.push({ text: chunk });
      count += chunk.length;
      text = text.slice(0, at) + chunk + text.slice(at);
      at += chunk.length;
    } else if (roll < 0.65) {
      // Enter: a line break; the spaces after the cursor go (the new line starts unindented).
      let to = at;
      while (to < lineEnd(at) && text[to] === ' ') to++;
      key('Enter');
      text = `${text.slice(0, at)}\n${text.slice(to)}`;
      at += 1;
    } else if (roll < 0.8) {
      for (let n = int(1, 3); n > 0 && at > 0; n--) {
        // Deleting a line's first character must not leave a space first.
        if (at - 1 === lineStart(at - 1) && text[at] === ' ') break;
        key('Backspace');
        text = text.slice(0, at - 1) + text.slice(at);
        at -= 1;
      }
    } else {
      const move = r();
      if (move < 0.6) {
        const n = int(1, 8);
        const left = r() < 0.55;
        for (let i = 0; i < n; i++) key(left ? 'ArrowLeft' : 'ArrowRight');
        at = left ? Math.max(0, at - n) : Math.min(text.length, at + n);
      } else if (move < 0.75 && !oneLine) {
        key('Control+Home');
        at = 0;
      } else if (move < 0.85 && !oneLine) {
        key('Control+End');
        at = text.length;
      } else if (oneLine || lineEnd(at) - lineStart(at) < 30) {
        // One line of a field may still wrap (a textarea): there, Control+Home and End go to its ends.
        const home = r() < 0.5;
        key(oneLine ? (home ? 'Control+Home' : 'Control+End') : home ? 'Home' : 'End');
        at = home ? lineStart(at) : lineEnd(at);
      }
    }
  }
  mark();
  return { actions, expected: text, keys: count, after };
}

export type Mode = { delay: number } | { insertText: true };

/** Plays the actions into the focused control: typed key by key, or text inserted as IME and dictation do. */
export async function play(page: Page, actions: Action[], mode: Mode): Promise<void> {
  const delay = 'delay' in mode ? mode.delay : 0;
  for (const a of actions) {
    if ('text' in a) {
      if ('insertText' in mode) await page.keyboard.insertText(a.text);
      else await page.keyboard.type(a.text, { delay });
    } else {
      await page.keyboard.press(a.key);
    }
    // keyboard.type waits `delay` after each key but the last; this is the gap before the next one.
    if (delay > 0) await page.waitForTimeout(delay);
  }
}
