// The editor tools' pure parts: the wikilink a completion inserts, Ctrl-B/I/K on a text and a
// selection, free attachment names and their links, and the pairing of the editor's blocks with
// the preview's elements (scroll sync). The browser test is test/e2e/editor-tools.test.ts.
import { describe, expect, it } from 'vitest';
import { EditorSelection, EditorState } from '@codemirror/state';
import type { EditorView } from '@codemirror/view';
import { markdown } from '../../../src/web/editor/codemirror.ts';
import { cursorBlocks } from '../../../src/web/editor/cursor-block.ts';
import { fileMarkdown } from '../../../src/web/editor/file-drop.ts';
import { makeLink, toggleMark } from '../../../src/web/editor/format-keys.ts';
import { wikilinkFor } from '../../../src/web/editor/wikilink-completion.ts';
import { fileHref, uniqueName } from '../../../src/web/lib/attachments.ts';
import { elementFor } from '../../../src/web/lib/scroll-sync.ts';

describe('wikilinkFor', () => {
  const design = { space: 'wiki', path: 'design/overview', title: 'Design overview' };
  const road = { space: 'wiki', path: 'roadmap', title: 'Roadmap' };
  const oldRoad = { space: 'wiki', path: 'archive/roadmap', title: 'roadmap' };
  const opsRoad = { space: 'ops', path: 'roadmap', title: 'Roadmap' };
  it.each([
    ['a title of its own', design, [design], '[[Design overview]]'],
    ['a title another page of the space shares (case folded)', road, [road, oldRoad], '[[/roadmap|Roadmap]]'],
    ['the other page of that title', oldRoad, [road, oldRoad], '[[/archive/roadmap|roadmap]]'],
    ['a page of another space, even with a title of its own', opsRoad, [opsRoad], '[[ops/roadmap|Roadmap]]'],
    ['a same-titled page in another space does not make the title ambiguous', road, [road, opsRoad], '[[Roadmap]]'],
    [
      "a title that is another page's path",
      { space: 'wiki', path: 'x', title: 'Roadmap' },
      [
        { space: 'wiki', path: 'x', title: 'Roadmap' },
        { space: 'wiki', path: 'roadmap', title: 'Plans' },
      ],
      '[[/x|Roadmap]]',
    ],
    ['a title with a | or # (not writable in a wikilink)', { space: 'wiki', path: 'c', title: 'C# | tips' }, [], '[[/c|C#   tips]]'],
  ])('%s', (_what, hit, hits, want) => {
    expect(wikilinkFor(hit, hits, 'wiki')).toBe(want);
  });
});

/** Runs a command on `doc` with the selection between the `<` and `>` marks (or at `|`); returns the text with the selection marked the same way. */
function run(command: (v: EditorView) => boolean, marked: string): string {
  const from = marked.search(/[<|]/);
  const plain = marked.replace(/[<>|]/g, '');
  const to = marked.includes('|') ? from : marked.indexOf('>') - 1;
  let state = EditorState.create({ doc: plain, selection: EditorSelection.range(from, to) });
  const view = {
    get state() {
      return state;
    },
    dispatch: (tr: { state: EditorState }) => {
      state = tr.state;
    },
  } as unknown as EditorView;
  command(view);
  const r = state.selection.main;
  const text = state.doc.toString();
  return r.empty
    ? `${text.slice(0, r.from)}|${text.slice(r.from)}`
    : `${text.slice(0, r.from)}<${text.slice(r.from, r.to)}>${text.slice(r.to)}`;
}

describe('Ctrl-B / Ctrl-I / Ctrl-K', () => {
  const bold = toggleMark('**');
  const italic = toggleMark('*');
  it.each([
    ['bold wraps a selection', bold, 'a <word> b', 'a **<word>** b'],
    ['bold again unwraps it', bold, 'a **<word>** b', 'a <word> b'],
    ['bold unwraps a selection that holds the marks', bold, 'a <**word**> b', 'a <word> b'],
    ['bold at a cursor inserts the pair around it', bold, 'a |', 'a **|**'],
    ['italic inside bold adds a star', italic, '**<word>**', '***<word>***'],
    ['italic again removes it', italic, '***<word>***', '**<word>**'],
    ['italic unwraps italic', italic, '*<word>*', '<word>'],
    ['a link of a selection selects the url', makeLink, 'read <docs> now', 'read [docs](<url>) now'],
    ['a link at a cursor', makeLink, 'x |', 'x [text](<url>)'],
    ['a selected address becomes the url', makeLink, 'see <https://example.org>', 'see [|](https://example.org)'],
  ])('%s', (_what, command, before, after) => {
    expect(run(command, before)).toBe(after);
  });
});

describe('attachment names and links', () => {
  it.each([
    ['image.png', [], 'image.png'],
    ['image.png', ['image.png'], 'image-2.png'],
    ['image.png', ['image.png', 'image-2.png'], 'image-3.png'],
    ['README', ['README'], 'README-2'],
    ['a/b\\c.txt', [], 'a-b-c.txt'],
    ['..', [], 'file'],
    ['  ', [], 'file'],
  ])('%j taken %j → %j', (name, taken, want) => {
    expect(uniqueName(name, new Set(taken))).toBe(want);
  });
  it('links keep spaces and parentheses inside the address', () => {
    expect(fileHref('map view (1).png')).toBe('files/map%20view%20%281%29.png');
    expect(fileMarkdown({ name: 'a [b].png', type: 'image/png' }, 'files/x.png')).toBe('![a \\[b\\].png](files/x.png)');
    expect(fileMarkdown({ name: 'notes.txt', type: 'text/plain' }, 'files/notes.txt')).toBe('[notes.txt](files/notes.txt)');
  });
});

describe('scroll sync', () => {
  const state = (doc: string, at: number) => EditorState.create({ doc, selection: { anchor: at }, extensions: [markdown()] });
  const doc = '# Title\n\nIntro text.\n\n[ref]: https://example.org\n\n## Part\n\n- a\n- b\n\n```\ncode\n```\n\n| a |\n| - |\n| 1 |';
  it("lists the top-level blocks as the elements they render to, and the cursor's", () => {
    const b = cursorBlocks(state(doc, doc.indexOf('- b')));
    expect(b.tags).toEqual(['h1', 'p', 'h2', 'ul', 'pre', 'table']);
    expect(b.at).toBe(3);
  });
  const el = (tag: string, child?: string) =>
    ({ tagName: tag.toUpperCase(), firstElementChild: child ? { tagName: child.toUpperCase() } : null }) as unknown as Element;
  it('pairs blocks with elements in order, past elements that do not pair', () => {
    const elements = [el('p'), el('h2'), el('ul'), el('div', 'pre'), el('div', 'table')]; // the page's '# Title' left out, wrappers
    const b = cursorBlocks(state(doc, doc.indexOf('| 1 |')));
    expect(elementFor(b, elements)).toBe(elements[4]);
    expect(elementFor({ ...b, at: 3 }, elements)).toBe(elements[2]);
    expect(elementFor({ ...b, at: 0 }, elements)).toBe(null);
  });
});
