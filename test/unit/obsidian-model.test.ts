// The vault bench's own model of Obsidian's link resolution (scripts/lib/obsidian-model.ts), rule
// by rule, on a tiny vault written here: each row is a link in the note `Home.md` or
// `Projects/Plan.md` and where the model sends it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readNote } from '../../scripts/lib/obsidian-note.ts';
import { resolveVault, type Target } from '../../scripts/lib/obsidian-model.ts';
import { readVault } from '../../scripts/lib/vault-source.ts';
import { mapsTo } from '../support/cases.ts';
import { fileTempDir } from '../support/temp-dirs.ts';

const FILES: Record<string, string> = {
  'Projects/Three laws of motion.md':
    '# Laws\n\n## First\n\n### Inertia\n\n## Second\n\n### Inertia\n\nForce. ^f-eq\n\n- item\n\n^my-list\n',
  'Projects/Plan.md': 'x',
  'Projects/Same.md': 'in the folder of Plan',
  'Archive/Deep/Same.md': 'further away',
  'Same.md': 'at the root',
  'Dup/Twin.md': 'a',
  'Dup/Longer/Twin.md': 'b',
  'Über.md': 'u',
  'Headings.md': '# `hasTag()`\n\n## How large can it be?\n\n## Block after image\n\n![[pic.png]]^no-space\n',
  'Aliased.md': '---\naliases:\n  - AI\n---\nbody',
  'Attachments/pic.png': 'png',
  'Attachments/shots/pic 2.png': 'png2',
  'Projects/local.png': 'local',
  'Figure 1.png': 'fig',
};

const dir = fileTempDir('obsidian-model');
for (const [p, text] of Object.entries(FILES)) {
  fs.mkdirSync(path.join(dir, path.dirname(p)), { recursive: true });
  fs.writeFileSync(path.join(dir, p), text);
}
fs.mkdirSync(path.join(dir, '.obsidian'));
fs.writeFileSync(path.join(dir, '.obsidian', 'app.json'), '{}');

const note = (p: string, heading?: number | 'missing', block?: string | 'missing'): Target => ({
  kind: 'note',
  path: p,
  ...(heading !== undefined ? { heading } : {}),
  ...(block !== undefined ? { block } : {}),
});
const file = (p: string): Target => ({ kind: 'file', path: p });
const NONE: Target = { kind: 'unresolved' };
const LAWS = 'Projects/Three laws of motion.md';

/** [[from, link as written, the rule], where it goes]. */
const ROWS: Array<[[string, string, string], Target]> = [
  [['Home.md', '[[Three laws of motion]]', 'a bare name, found anywhere'], note(LAWS)],
  [['Home.md', '[[Three laws of motion.md]]', '.md optional'], note(LAWS)],
  [['Home.md', '[[three LAWS of Motion]]', 'case-insensitive'], note(LAWS)],
  [['Home.md', '[[über]]', 'case-insensitive beyond ASCII'], note('Über.md')],
  [['Home.md', '[[Projects/Three laws of motion|the laws]]', 'a path from the root, with an alias'], note(LAWS)],
  [['Home.md', '[[Three laws of motion#Second]]', 'a heading'], note(LAWS, 3)],
  [['Home.md', '[[Three laws of motion#Inertia]]', 'a heading: the first of that name'], note(LAWS, 2)],
  [['Home.md', '[[Three laws of motion#Second#Inertia]]', 'heading B under heading A'], note(LAWS, 4)],
  [['Home.md', '[[Three laws of motion#First#Second]]', 'B not under A: the note'], note(LAWS, 'missing')],
  [['Home.md', '[[Three laws of motion#Nowhere]]', 'a missing heading: the note'], note(LAWS, 'missing')],
  [['Home.md', '[[Three laws of motion#^F-EQ]]', 'a block'], note(LAWS, undefined, 'f-eq')],
  [['Home.md', '![[Three laws of motion#^my-list]]', 'an embedded block on its own line'], note(LAWS, undefined, 'my-list')],
  [['Home.md', '[[Three laws of motion#^nope]]', 'a missing block: the note'], note(LAWS, undefined, 'missing')],
  [['Home.md', '[[Headings#hasTag]]', 'heading punctuation read as spaces'], note('Headings.md', 0)],
  [['Home.md', '[[Headings#How large can it be]]', 'a trailing ? too'], note('Headings.md', 1)],
  [['Home.md', '[[Headings#^no-space]]', 'a block id needs a blank space before ^'], note('Headings.md', undefined, 'missing')],
  [['Home.md', '[[Same]]', 'several: the shortest path'], note('Same.md')],
  [['Projects/Plan.md', '[[Same]]', 'a path from the root before a name elsewhere'], note('Same.md')],
  [['Dup/Longer/Note.md', '[[Twin]]', "several: the linking note's folder first"], note('Dup/Longer/Twin.md')],
  [['Home.md', '[[Deep/Same]]', 'a partial path ends a path'], note('Archive/Deep/Same.md')],
  [['Home.md', '[[Twin]]', 'several elsewhere: the shortest path'], note('Dup/Twin.md')],
  [['Home.md', '[[AI]]', 'aliases resolve nothing'], NONE],
  [['Home.md', '[[Example]]', 'no such note'], NONE],
  [['Home.md', '![[pic.png]]', 'a file by its name anywhere'], file('Attachments/pic.png')],
  [['Home.md', '![[pic.png|100x145]]', 'a size'], file('Attachments/pic.png')],
  [['Home.md', '![[pic.png#outline|100]]', 'a display hint is no part of the name'], file('Attachments/pic.png')],
  [['Home.md', '[[Figure 1.png]]', 'a link to a file needs its extension'], file('Figure 1.png')],
  [['Home.md', '| a |\n| - |\n| ![[pic.png\\|100]] |', 'an embed in a table cell'], file('Attachments/pic.png')],
  [['Home.md', '[laws](Projects/Three%20laws%20of%20motion.md)', 'Markdown: URL-decoded, from the root'], note(LAWS)],
  [['Projects/Plan.md', '[laws](Three%20laws%20of%20motion)', 'Markdown: relative to the note, .md optional'], note(LAWS)],
  [['Projects/Plan.md', '[laws](<Three laws of motion.md#First>)', 'Markdown: <dest> and a heading'], note(LAWS, 1)],
  [['Projects/Plan.md', '![x](local.png)', 'Markdown image beside the note'], file('Projects/local.png')],
  [['Projects/Plan.md', '![x](../Attachments/pic.png)', 'Markdown image, ../'], file('Attachments/pic.png')],
  [['Projects/Plan.md', '![x](pic%202.png)', 'Markdown image by bare name anywhere'], file('Attachments/shots/pic 2.png')],
  [['Home.md', '[[#Top]]', 'a heading of the note itself'], note('Home.md', 0)],
];

/** Where the one link of `text`, written in the note `from`, goes. */
function resolveIn(from: string, text: string): Target | string {
  const vault = readVault(dir);
  vault.notes.set(from, from === 'Home.md' ? `# Top\n\n${text}\n` : text);
  const links = resolveVault(vault).links.filter((l) => l.note === from);
  return links.length === 1 ? links[0].to : `${links.length} links`;
}

describe('the vault bench model of Obsidian links (issue 39)', () => {
  mapsTo('%j → %j', ([from, text]) => resolveIn(from, text), ROWS);

  it('reads the vault without its dot-folders, notes apart from files', () => {
    const vault = readVault(dir);
    expect(vault.notes.has('.obsidian/app.json')).toBe(false);
    expect(vault.files.sort()).toEqual(['Attachments/pic.png', 'Attachments/shots/pic 2.png', 'Figure 1.png', 'Projects/local.png']);
  });

  mapsTo<[string, string], number>('%j has %j links', ([text]) => readNote(text).links.length, [
    [['`[[Code]]` and ``![[pic.png]]``', 'inline code spans'], 0],
    [['```md\n[[Code]]\n```', 'a fenced block'], 0],
    [['    [[Code]]', 'an indented code block'], 0],
    [['<div>\n[[Html]]\n</div>', 'a raw HTML block'], 0],
    [['Use \\[\\[Wikilinks\\]\\]', 'escaped brackets'], 0],
    [['---\nrelated: "[[Props]]"\n---\n[[Body]]', 'frontmatter is not the body'], 1],
    [['[text](https://example.com) [m](mailto:a@b.c) [o](obsidian://open?x=1)', 'external addresses'], 0],
    [['[![img](a.png)](b.md)', 'an image inside a link: both'], 2],
    [['> [!note] Title\n> See [[A]] and ![[B]]', 'links in a callout'], 2],
  ]);

  it('gives each link its line, after the frontmatter', () => {
    const links = readNote('---\na: 1\n---\n# T\n\n[[One]]\n\n| x |\n| - |\n| [[Two]] |\n').links;
    expect(links.map((l) => [l.raw, l.line])).toEqual([
      ['[[One]]', 6],
      ['[[Two]]', 10],
    ]);
  });
});
