// The vault bench's own model of Obsidian's link resolution (scripts/lib/obsidian-model.ts), rule
// by rule, on a tiny vault written here: each row is a link in the note `Home.md` or
// `Projects/Plan.md` and where the model sends it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readNote } from '../../scripts/lib/obsidian-note.ts';
import { resolveVault, type Target } from '../../scripts/lib/obsidian-model.ts';
import { readVault } from '../../scripts/lib/vault-source.ts';
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

/** [from, link as written, where it goes, the rule]. */
const ROWS: Array<[string, string, Target, string]> = [
  ['Home.md', '[[Three laws of motion]]', note(LAWS), 'a bare name, found anywhere'],
  ['Home.md', '[[Three laws of motion.md]]', note(LAWS), '.md optional'],
  ['Home.md', '[[three LAWS of Motion]]', note(LAWS), 'case-insensitive'],
  ['Home.md', '[[über]]', note('Über.md'), 'case-insensitive beyond ASCII'],
  ['Home.md', '[[Projects/Three laws of motion|the laws]]', note(LAWS), 'a path from the root, with an alias'],
  ['Home.md', '[[Three laws of motion#Second]]', note(LAWS, 3), 'a heading'],
  ['Home.md', '[[Three laws of motion#Inertia]]', note(LAWS, 2), 'a heading: the first of that name'],
  ['Home.md', '[[Three laws of motion#Second#Inertia]]', note(LAWS, 4), 'heading B under heading A'],
  ['Home.md', '[[Three laws of motion#First#Second]]', note(LAWS, 'missing'), 'B not under A: the note'],
  ['Home.md', '[[Three laws of motion#Nowhere]]', note(LAWS, 'missing'), 'a missing heading: the note'],
  ['Home.md', '[[Three laws of motion#^F-EQ]]', note(LAWS, undefined, 'f-eq'), 'a block'],
  ['Home.md', '![[Three laws of motion#^my-list]]', note(LAWS, undefined, 'my-list'), 'an embedded block on its own line'],
  ['Home.md', '[[Three laws of motion#^nope]]', note(LAWS, undefined, 'missing'), 'a missing block: the note'],
  ['Home.md', '[[Headings#hasTag]]', note('Headings.md', 0), 'heading punctuation read as spaces'],
  ['Home.md', '[[Headings#How large can it be]]', note('Headings.md', 1), 'a trailing ? too'],
  ['Home.md', '[[Headings#^no-space]]', note('Headings.md', undefined, 'missing'), 'a block id needs a blank space before ^'],
  ['Home.md', '[[Same]]', note('Same.md'), 'several: the shortest path'],
  ['Projects/Plan.md', '[[Same]]', note('Same.md'), 'a path from the root before a name elsewhere'],
  ['Dup/Longer/Note.md', '[[Twin]]', note('Dup/Longer/Twin.md'), "several: the linking note's folder first"],
  ['Home.md', '[[Deep/Same]]', note('Archive/Deep/Same.md'), 'a partial path ends a path'],
  ['Home.md', '[[Twin]]', note('Dup/Twin.md'), 'several elsewhere: the shortest path'],
  ['Home.md', '[[AI]]', NONE, 'aliases resolve nothing'],
  ['Home.md', '[[Example]]', NONE, 'no such note'],
  ['Home.md', '![[pic.png]]', file('Attachments/pic.png'), 'a file by its name anywhere'],
  ['Home.md', '![[pic.png|100x145]]', file('Attachments/pic.png'), 'a size'],
  ['Home.md', '![[pic.png#outline|100]]', file('Attachments/pic.png'), 'a display hint is no part of the name'],
  ['Home.md', '[[Figure 1.png]]', file('Figure 1.png'), 'a link to a file needs its extension'],
  ['Home.md', '| a |\n| - |\n| ![[pic.png\\|100]] |', file('Attachments/pic.png'), 'an embed in a table cell'],
  ['Home.md', '[laws](Projects/Three%20laws%20of%20motion.md)', note(LAWS), 'Markdown: URL-decoded, from the root'],
  ['Projects/Plan.md', '[laws](Three%20laws%20of%20motion)', note(LAWS), 'Markdown: relative to the note, .md optional'],
  ['Projects/Plan.md', '[laws](<Three laws of motion.md#First>)', note(LAWS, 1), 'Markdown: <dest> and a heading'],
  ['Projects/Plan.md', '![x](local.png)', file('Projects/local.png'), 'Markdown image beside the note'],
  ['Projects/Plan.md', '![x](../Attachments/pic.png)', file('Attachments/pic.png'), 'Markdown image, ../'],
  ['Projects/Plan.md', '![x](pic%202.png)', file('Attachments/shots/pic 2.png'), 'Markdown image by bare name anywhere'],
  ['Home.md', '[[#Top]]', note('Home.md', 0), 'a heading of the note itself'],
];

describe('the vault bench model of Obsidian links (issue 39)', () => {
  it.each(ROWS)('%s: %s → %j (%s)', (from, text, target) => {
    const vault = readVault(dir);
    vault.notes.set(from, from === 'Home.md' ? `# Top\n\n${text}\n` : text);
    const links = resolveVault(vault).links.filter((l) => l.note === from);
    expect(links).toHaveLength(1);
    expect(links[0].to).toEqual(target);
  });

  it('reads the vault without its dot-folders, notes apart from files', () => {
    const vault = readVault(dir);
    expect(vault.notes.has('.obsidian/app.json')).toBe(false);
    expect(vault.files.sort()).toEqual(['Attachments/pic.png', 'Attachments/shots/pic 2.png', 'Figure 1.png', 'Projects/local.png']);
  });

  it.each([
    ['`[[Code]]` and ``![[pic.png]]``', 0, 'inline code spans'],
    ['```md\n[[Code]]\n```', 0, 'a fenced block'],
    ['    [[Code]]', 0, 'an indented code block'],
    ['<div>\n[[Html]]\n</div>', 0, 'a raw HTML block'],
    ['Use \\[\\[Wikilinks\\]\\]', 0, 'escaped brackets'],
    ['---\nrelated: "[[Props]]"\n---\n[[Body]]', 1, 'frontmatter is not the body'],
    ['[text](https://example.com) [m](mailto:a@b.c) [o](obsidian://open?x=1)', 0, 'external addresses'],
    ['[![img](a.png)](b.md)', 2, 'an image inside a link: both'],
    ['> [!note] Title\n> See [[A]] and ![[B]]', 2, 'links in a callout'],
  ])('%j has %i links (%s)', (text, n) => {
    expect(readNote(text).links).toHaveLength(n);
  });

  it('gives each link its line, after the frontmatter', () => {
    const links = readNote('---\na: 1\n---\n# T\n\n[[One]]\n\n| x |\n| - |\n| [[Two]] |\n').links;
    expect(links.map((l) => [l.raw, l.line])).toEqual([
      ['[[One]]', 6],
      ['[[Two]]', 10],
    ]);
  });
});
