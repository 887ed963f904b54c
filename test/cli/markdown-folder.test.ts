import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { unzipSync, strFromU8 } from 'fflate';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../../src/cli/client.ts';
import { exportMarkdown, importFolder } from '../../src/cli/folders.ts';
import { pageToFile, pageToNoteFile } from '../../src/domain/bundles/markdown-folder.ts';
import { runCliHere } from '../support/cli.ts';
import { ADMIN_KEY, newAgent, startServer, type Client, type TestServer } from '../support/server.ts';

let srv: TestServer;
let tmp: string;
let bob: Client & { id: string; key: string };
const cli = (args: string[]) => runCliHere(args, { url: srv.url, key: ADMIN_KEY });

beforeAll(async () => {
  srv = await startServer();
  bob = (await newAgent(srv, 'bob')) as never;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-md-folder-'));
});
afterAll(async () => {
  await srv.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});
afterEach(() => expect(srv.errors).toEqual([]));

function write(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, body] of Object.entries(files)) {
    const f = path.join(root, rel);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, body);
  }
}

type Page = { path: string; title: string; content: string; frontmatter: Record<string, unknown>; metadata: Record<string, unknown> };
async function pagesOf(slug: string): Promise<Page[]> {
  const r = await srv.admin.get(`/spaces/${slug}/export`);
  expect(r.status).toBe(200);
  return (r.body.pages as Page[]).map(({ path, title, content, frontmatter, metadata }) => ({
    path,
    title,
    content,
    frontmatter,
    metadata,
  }));
}
const outbound = async (at: string) =>
  ((await srv.admin.get(`/pages/${at}/links`)).body.outbound as Array<{ space: string; path: string; exists: boolean }>).map(
    (l) => `${l.space}/${l.path}${l.exists ? '' : ' (absent)'}`,
  );

describe('import-dir', () => {
  it('imports an Obsidian vault: nested folders, every wikilink form resolved, typed properties, dot-folders skipped', async () => {
    const vault = path.join(tmp, 'vault');
    write(vault, {
      '.obsidian/app.json': '{"theme":"dark"}',
      '.obsidian/snippets/hidden.md': '# not a page',
      '.trash/old.md': 'deleted note',
      'Home.md': [
        '---',
        'tags: [start, index]',
        'rating: 4.5',
        'count: 3',
        'published: true',
        'created: 2024-01-05',
        'author: Ann',
        'Due date: 2024-02-01',
        'nested:',
        '  a: 1',
        '---',
        '# Home',
        '',
        'Today: [[Daily/2024-01-05]]. Work: [[Project Alpha]], [[Project Alpha|the project]], [[Project Alpha#Goals]],',
        '[[Projects/Project Beta#Risks|beta risks]], [[#Home]], [[Deep Note]], [Beta](Projects/Project%20Beta.md).',
        '',
        '![pic](attachments/pic.png) and `[[not a link]]`',
        '',
      ].join('\n'),
      'Projects/Project Alpha.md':
        '---\nstatus: active\npriority: 1\n---\n## Goals\n\nBack to [[Home]], next [[Project Beta]], up [[../Home|home]].\n\n![[pic.png|300]]\n',
      'Projects/Project Beta.md': '# Risks\n\nSee [[Deep Note]] and [[Sub/Deep Note]].\n',
      'Projects/Sub/Deep Note.md': '---\ntitle: Deep Thoughts\naliases: [deep]\n---\nThinking about [[Project Alpha]].\n',
      'Daily/2024-01-05.md': 'Read [[Deep Thoughts]].\n',
      'attachments/pic.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      'notes.txt': 'plain text',
    });
    const r = await cli(['import-dir', vault, '--space', 'vault', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({ created: 5, updated: 0, skipped: 0 });
    expect(result.errors).toEqual([]);
    expect(result.leftOut.map((e: { path: string; code: string }) => `${e.path} ${e.code}`)).toEqual(['notes.txt not_referenced']);
    // The image is attached to both notes that show it, and their references point at it.
    for (const page of ['Home', 'Projects/Project Alpha']) {
      const files = (await srv.admin.get(`/pages/vault/${page}/files`)).body.files as Array<{
        name: string;
        size: number;
        contentType: string;
      }>;
      expect(files.map((f) => [f.name, f.size, f.contentType])).toEqual([['pic.png', 8, 'image/png']]);
      const bytes = await fetch(`${srv.url}/files/vault/${page.split('/').map(encodeURIComponent).join('/')}/pic.png`, {
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
      });
      expect(Buffer.from(await bytes.arrayBuffer())).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    }

    const pages = await pagesOf('vault');
    expect(pages.map((p) => p.path)).toEqual([
      'Daily/2024-01-05',
      'Home',
      'Projects/Project Alpha',
      'Projects/Project Beta',
      'Projects/Sub/Deep Note',
    ]);
    const home = pages.find((p) => p.path === 'Home')!;
    expect(home.title).toBe('Home');
    expect(home.content).toContain('![pic](files/pic.png)');
    expect(pages.find((p) => p.path === 'Projects/Project Alpha')!.content).toContain('![pic.png|300](files/pic.png)'); // the size kept (docs/markdown.md)
    expect(home.metadata).toEqual({
      author: 'Ann',
      count: 3,
      created: '2024-01-05',
      published: true,
      rating: 4.5,
      tags: ['start', 'index'],
    });
    expect(home.frontmatter).toEqual({ 'Due date': '2024-02-01', nested: { a: 1 } });
    const deep = pages.find((p) => p.path === 'Projects/Sub/Deep Note')!;
    expect(deep).toMatchObject({ title: 'Deep Thoughts', metadata: { aliases: ['deep'] } });
    // Metadata types as the key discovery sees them.
    const keys = (await srv.admin.get('/search/metadata/keys?space=vault')).body as Array<{ key: string; types: string[] }>;
    const typesOf = (k: string) => keys.find((x) => x.key === k)?.types;
    expect(typesOf('created')).toEqual(['date']);
    expect(typesOf('rating')).toEqual(['number']);
    expect(typesOf('published')).toEqual(['boolean']);
    expect(typesOf('tags')).toEqual(expect.arrayContaining(['list', 'string']));

    // [[Deep Note]] names a note whose title is not its file name: respelled to its path, reading as before.
    expect(pages.find((p) => p.path === 'Projects/Project Beta')!.content).toBe(
      '# Risks\n\nSee [[Sub/Deep Note|Deep Note]] and [[Sub/Deep Note]].\n',
    );
    expect(home.content).toContain('[[Projects/Sub/Deep Note|Deep Note]]');
    // Every link resolves.
    expect((await srv.admin.get('/spaces/vault/links/broken')).body).toEqual([]);
    expect(await outbound('vault/Home')).toEqual([
      'vault/Daily/2024-01-05',
      'vault/Projects/Project Alpha',
      'vault/Projects/Project Beta',
      'vault/Home',
      'vault/Projects/Sub/Deep Note',
    ]);
    expect(await outbound('vault/Projects/Project Alpha')).toEqual(['vault/Home', 'vault/Projects/Project Beta']);
    expect(await outbound('vault/Daily/2024-01-05')).toEqual(['vault/Projects/Sub/Deep Note']);
    expect(await outbound('vault/Projects/Sub/Deep Note')).toEqual(['vault/Projects/Project Alpha']);
  });

  it("exports a vault's files once each where the vault had them, links pointing there, and reads the export back the same", async () => {
    const vault = path.join(tmp, 'shared-vault');
    const png = (n: number) => Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, n]);
    write(vault, {
      'Home.md': '![[pic.png]] and ![[logo.svg#icon]] and ![[my shot.png|100]]\n',
      'Guides/Setup.md': 'Setup ![s](../Assets/pic.png) `![[pic.png]]`\n\n| a |\n| - |\n| ![[pic.png\\|50]] |\n',
      'Guides/Deep/Inner.md': '![[pic.png]] [shot](<../../Daily/my shot.png>)\n',
      'Daily/Today.md': '![today](my%20shot.png)\n',
      'Assets/pic.png': png(1),
      'Assets/icons/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'Daily/my shot.png': png(2),
    });
    const first = await cli(['import-dir', vault, '--space', 'shared', '--json']);
    expect(JSON.parse(first.stdout)).toMatchObject({ created: 4, errors: [], leftOut: [] });
    // The JSON bundle says where each file was in the vault.
    const bundle = (await srv.admin.get('/spaces/shared/export')).body as {
      attachments: Array<{ path: string; name: string; source?: string }>;
    };
    expect(bundle.attachments.map((a) => `${a.path} ${a.name} <- ${a.source}`)).toEqual([
      'Daily/Today my shot.png <- Daily/my shot.png',
      'Guides/Deep/Inner my shot.png <- Daily/my shot.png',
      'Guides/Deep/Inner pic.png <- Assets/pic.png',
      'Guides/Setup pic.png <- Assets/pic.png',
      'Home logo.svg <- Assets/icons/logo.svg',
      'Home my shot.png <- Daily/my shot.png',
      'Home pic.png <- Assets/pic.png',
    ]);

    const dir = path.join(tmp, 'shared-export');
    expect((await cli(['export', 'shared', '--format', 'markdown', '-o', dir])).code).toBe(0);
    const walk = (rel: string): string[] =>
      fs
        .readdirSync(path.join(dir, rel), { withFileTypes: true })
        .flatMap((e) => (e.isDirectory() ? walk(path.posix.join(rel, e.name)) : [path.posix.join(rel, e.name)]));
    // Each file once, at its place in the vault (it was in three folders' `files/` before).
    expect(walk('').filter((f) => !f.endsWith('.md') && !f.startsWith('.kspace/'))).toEqual([
      'Assets/icons/logo.svg',
      'Assets/pic.png',
      'Daily/my shot.png',
    ]);
    for (const f of ['Assets/pic.png', 'Assets/icons/logo.svg', 'Daily/my shot.png'])
      expect(fs.readFileSync(path.join(dir, f)).equals(fs.readFileSync(path.join(vault, f)))).toBe(true);
    // No added properties: the notes had none, and have none.
    expect(JSON.parse(fs.readFileSync(path.join(dir, '.kspace', 'pages.json'), 'utf8')).pages).toEqual({});
    const note = (f: string) => fs.readFileSync(path.join(dir, f), 'utf8');
    expect(note('Home.md')).toBe(
      '![pic.png](Assets/pic.png) and ![logo.svg](Assets/icons/logo.svg#icon) and ![my shot.png|100](Daily/my%20shot.png)\n',
    );
    expect(note('Guides/Setup.md')).toBe(
      'Setup ![s](../Assets/pic.png) `![[pic.png]]`\n\n| a |\n| - |\n| ![pic.png\\|50](../Assets/pic.png) |\n',
    );
    expect(note('Guides/Deep/Inner.md')).toBe('![pic.png](../../Assets/pic.png) [shot](../../Daily/my%20shot.png)\n');
    expect(note('Daily/Today.md')).toBe('![today](my%20shot.png)\n');
    // Every file reference of every note, read relative to the note as Obsidian reads a Markdown
    // destination, reaches the file the vault's note referred to.
    for (const f of walk('').filter((x) => x.endsWith('.md'))) {
      for (const m of note(f)
        .replace(/`[^`]*`/g, '')
        .matchAll(/\]\(([^)#]+)/g)) {
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(f), decodeURIComponent(m[1])));
        expect(fs.existsSync(path.join(dir, target)), `${f}: ${m[1]}`).toBe(true);
      }
    }

    // Read back: the same pages, the same files, and the vault's places kept.
    const again = await cli(['import-dir', dir, '--space', 'shared-copy', '--json']);
    expect(JSON.parse(again.stdout)).toEqual({ created: 4, updated: 0, skipped: 0, errors: [], warnings: [], leftOut: [] });
    expect(await pagesOf('shared-copy')).toEqual(await pagesOf('shared'));
    const files = async (slug: string) => ((await srv.admin.get(`/spaces/${slug}/export`)).body as { attachments: unknown[] }).attachments;
    expect(await files('shared-copy')).toEqual(await files('shared'));
    // A file replaced by an upload is no longer the vault's: it goes to attachments/.
    const put = await fetch(`${srv.url}/files/shared/Home/pic.png`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'image/png' },
      body: png(3),
    });
    expect(put.status).toBe(200);
    expect(
      ((await files('shared')) as Array<{ path: string; name: string; source?: string }>).find(
        (a) => a.path === 'Home' && a.name === 'pic.png',
      ),
    ).not.toHaveProperty('source');
  });

  it('round-trips a space through a Markdown folder: paths, titles, content, frontmatter and metadata identical', async () => {
    expect((await srv.admin.post('/spaces', { slug: 'rt', name: 'Round trip', description: 'all kinds of pages' })).status).toBe(201);
    const put = async (p: string, body: Record<string, unknown>) => {
      const r = await srv.admin.put(`/pages/rt/${p}`, body);
      expect([200, 201], r.text).toContain(r.status);
    };
    await put('templates/task', {
      title: 'Task',
      content: '# {{title}}\n',
      frontmatter: { description: 'A task', metadataSchema: { type: 'object', properties: { due: { type: 'string', format: 'date' } } } },
    });
    await put('index', {
      title: 'Start: here',
      content: 'Links: [[guides/setup]], [[Setup#Linux|setup]], [md](guides/setup.md), [[nowhere]].\n',
      metadata: { title: 'meta title', kspace: 'x', n: 1.5, on: false, when: '2025-03-01T10:00:00.000Z', tags: ['a', 'b', 2, true] },
    });
    await put('guides/setup', {
      title: 'Setup',
      content: '\n\nStarts with blank lines\r\nand CRLF\r\n---\nnot frontmatter\n',
      frontmatter: { title: 'fm title', draft: true, list: [1, 'two'], nested: { deep: [null] } },
    });
    await put('guides/notes.md', { title: 'A page whose path ends in .md', content: '' });
    await put('ünïcode/页面 with spaces', { title: '"quoted" title', content: '---\nstarts with a rule' });
    await put('records/t1', { title: 'Task 1', template: 'task', content: 'do it', metadata: { due: '2025-01-01' } });
    await put('guides/pics', { title: 'Pictures', content: '![d](files/diagram.svg) and [notes](files/notes.txt)' });
    await put('guides/other', { title: 'Other', content: '![d](files/diagram.svg)' });
    const upload = async (at: string, body: string, type: string) => {
      const r = await fetch(`${srv.url}/files/rt/${at}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': type },
        body,
      });
      expect([200, 201]).toContain(r.status);
    };
    await upload('guides/pics/diagram.svg', '<svg xmlns="http://www.w3.org/2000/svg"/>', 'image/svg+xml');
    await upload('guides/pics/notes.txt', 'some notes', 'text/plain');
    await upload('guides/other/diagram.svg', '<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>', 'image/svg+xml'); // same name, other bytes
    await upload('index/diagram.svg', '<svg xmlns="http://www.w3.org/2000/svg"/>', 'image/svg+xml'); // the same file as guides/pics'
    const filesOf = async (slug: string, page: string) =>
      (
        (await srv.admin.get(`/pages/${slug}/${page}/files`)).body.files as Array<{ name: string; sha256: string; contentType: string }>
      ).map((f) => [f.name, f.sha256, f.contentType]);
    const before = await pagesOf('rt');

    const dir = path.join(tmp, 'rt-export');
    const exp = await cli(['export', 'rt', '--format', 'markdown', '-o', dir]);
    expect(exp).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(fs.existsSync(path.join(dir, 'guides', 'setup.md'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'guides', 'notes.md.md'))).toBe(true);
    // No added properties: the metadata and frontmatter are the note's properties, nothing more
    // (`title` and `kspace` here are metadata keys of the page); the title is the file's name, or
    // kept in .kspace/pages.json with what else the properties cannot say.
    expect(fs.readFileSync(path.join(dir, 'index.md'), 'utf8')).toMatch(
      /^---\nkspace: x\nn: 1.5\non: false\ntags:\n[^]*\ntitle: meta title\n/,
    );
    // Attached files in one shared folder, each once; the links point there.
    expect(fs.readFileSync(path.join(dir, 'guides', 'other.md'), 'utf8')).toBe('![d](../attachments/diagram.svg)');
    expect(fs.readFileSync(path.join(dir, 'guides', 'pics.md'), 'utf8')).toBe(
      '![d](../attachments/diagram-2.svg) and [notes](../attachments/notes.txt)',
    );
    expect(fs.readdirSync(path.join(dir, 'attachments')).sort()).toEqual(['diagram-2.svg', 'diagram.svg', 'notes.txt']);
    expect(fs.readdirSync(path.join(dir, 'guides')).sort()).toEqual(['notes.md.md', 'other.md', 'pics.md', 'setup.md']);
    expect(fs.readFileSync(path.join(dir, 'records', 't1.md'), 'utf8')).toBe('---\ndue: 2025-01-01\ntemplate: task\n---\ndo it');
    expect(fs.readFileSync(path.join(dir, 'ünïcode', '页面 with spaces.md'), 'utf8')).toBe('---\n{}\n---\n---\nstarts with a rule');
    expect(JSON.parse(fs.readFileSync(path.join(dir, '.kspace', 'pages.json'), 'utf8')).pages).toEqual({
      'guides/notes.md.md': { title: 'A page whose path ends in .md' },
      'guides/other.md': { title: 'Other' },
      'guides/pics.md': { title: 'Pictures' },
      'guides/setup.md': { title: 'Setup', frontmatterKeys: ['title', 'draft', 'list'] },
      'index.md': { title: 'Start: here' },
      'records/t1.md': { title: 'Task 1' },
      'templates/task.md': { title: 'Task', frontmatterKeys: ['description'] },
      'ünïcode/页面 with spaces.md': { title: '"quoted" title' },
    });

    const imp = await cli(['import-dir', dir, '--space', 'rt-copy', '--json']);
    expect(imp.code, imp.stderr).toBe(0);
    expect(JSON.parse(imp.stdout)).toEqual({ created: before.length, updated: 0, skipped: 0, errors: [], warnings: [], leftOut: [] });
    expect(await pagesOf('rt-copy')).toEqual(before);
    for (const page of ['guides/pics', 'guides/other', 'index']) expect(await filesOf('rt-copy', page)).toEqual(await filesOf('rt', page));
    expect(fs.readFileSync(path.join(dir, 'attachments', 'notes.txt'), 'utf8')).toBe('some notes');
    const space = (await srv.admin.get('/spaces/rt-copy')).body;
    expect(space).toMatchObject({ name: 'Round trip', description: 'all kinds of pages' });
    // Again in overwrite mode: nothing changes.
    const again = await cli(['import-dir', dir, '--space', 'rt-copy', '--mode', 'overwrite', '--json']);
    expect(JSON.parse(again.stdout)).toEqual({ created: 0, updated: 0, skipped: before.length, errors: [], warnings: [], leftOut: [] });

    // An export of the earlier layout (`title:` and `kspace:` properties, no pages.json) still imports whole.
    const old = path.join(tmp, 'rt-old');
    fs.cpSync(dir, old, { recursive: true });
    fs.rmSync(path.join(old, '.kspace', 'pages.json'));
    const marker = JSON.parse(fs.readFileSync(path.join(old, '.kspace', 'space.json'), 'utf8'));
    fs.writeFileSync(path.join(old, '.kspace', 'space.json'), JSON.stringify({ ...marker, version: 1 }));
    for (const p of before) {
      const f = pageToFile(p);
      expect(fs.existsSync(path.join(old, f.path)), f.path).toBe(true);
      fs.writeFileSync(path.join(old, f.path), f.text);
    }
    const fromOld = await cli(['import-dir', old, '--space', 'rt-old', '--json']);
    expect(JSON.parse(fromOld.stdout)).toEqual({ created: before.length, updated: 0, skipped: 0, errors: [], warnings: [], leftOut: [] });
    expect(await pagesOf('rt-old')).toEqual(before);
  });

  it('reports per file: errors apart from warnings (bad YAML, invalid UTF-8, reserved names) and files left out (unused, symlinks)', async () => {
    const dir = path.join(tmp, 'bad');
    const outside = path.join(tmp, 'outside-note.md');
    fs.writeFileSync(outside, 'a note outside the folder');
    write(dir, {
      'ok.md': 'See [[links]], [[x/links]] and [m](x/links.md).',
      'broken.md': '---\na: [unclosed\n---\nbody',
      'x/links.md': 'a reserved name',
      'latin1.md': Buffer.from([0x63, 0x61, 0x66, 0xe9]),
      'Meeting 10:30.md': 'a name no page path takes',
      'unused.txt': 'nobody links here',
    });
    fs.symlinkSync('ok.md', path.join(dir, 'inside.md'));
    fs.symlinkSync(outside, path.join(dir, 'outside.md'));
    fs.symlinkSync('x', path.join(dir, 'folder-link'));
    fs.symlinkSync('missing.md', path.join(dir, 'dangling.md'));
    const text = await cli(['import-dir', dir, '--space', 'bad']);
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines[0]).toBe(
      `imported ${dir} into bad: 5 created, 0 updated, 0 skipped; 1 error; 3 warnings; 1 unused file not imported; 3 symlinks not followed`,
    );
    expect(text.stdout).toMatch(/errors \(not imported\):\nPATH +CODE +MESSAGE\nMeeting 10:30\.md +validation_failed /);
    expect(text.stdout).toMatch(
      /warnings \(imported, not as written\):\n.*\nbroken\.md +invalid_frontmatter .*column 13; kept as text at the start of the page\nlatin1\.md +invalid_utf8 +not valid UTF-8: 1 invalid byte sequence .*\nx\/links\.md +reserved_name +'x\/links' names a page sub-resource: imported as page 'x\/links_'/,
    );
    expect(text.stdout).toMatch(
      /\nleft out:\nPATH .*\ndangling.md +symlink_broken .*\nfolder-link +symlink_folder .*\noutside.md +symlink_outside .*never followed\nunused.txt +not_referenced /,
    );

    // Again in this process (the --json answer is this result): the counts of a second run.
    const api = new Api({ url: srv.url, key: ADMIN_KEY });
    const r = await importFolder(api, 'bad', dir, 'skip');
    const list = (l: Array<{ path: string; code: string }>) => l.map((e) => `${e.path} ${e.code}`);
    expect(r).toMatchObject({ created: 0, updated: 0, skipped: 5 });
    expect(list(r.errors)).toEqual(['Meeting 10:30.md validation_failed']);
    expect(list(r.warnings)).toEqual(['broken.md invalid_frontmatter', 'latin1.md invalid_utf8', 'x/links.md reserved_name']);
    expect(list(r.leftOut)).toEqual([
      'dangling.md symlink_broken',
      'folder-link symlink_folder',
      'outside.md symlink_outside',
      'unused.txt not_referenced',
    ]);

    const pages = await pagesOf('bad');
    expect(pages.map((p) => `${p.path}: ${p.title}: ${p.content}`)).toEqual([
      'broken: broken: ---\na: [unclosed\n---\nbody',
      'inside: inside: See [[links]], [[x/links_|x/links]] and [m](x/links_.md).',
      'latin1: latin1: caf\ufffd',
      'ok: ok: See [[links]], [[x/links_|x/links]] and [m](x/links_.md).',
      'x/links_: links: a reserved name',
    ]);
    expect(await outbound('bad/ok')).toEqual(['bad/x/links_']);
    expect((await srv.admin.get('/spaces/bad/links/broken')).body).toEqual([]);
    // The export writes the note back under its own name.
    const out = path.join(tmp, 'bad-export');
    await exportMarkdown(api, 'bad', out);
    expect(fs.readFileSync(path.join(out, 'x', 'links.md'), 'utf8')).toBe('a reserved name');
    expect(fs.existsSync(path.join(out, 'x', 'links_.md'))).toBe(false);

    const exp = await cli(['export', 'bad', '--format', 'markdown', '-o', dir]);
    expect(exp.code).not.toBe(0);
    expect(exp.stderr).toContain('not empty');
    expect((await cli(['import-dir', path.join(tmp, 'nope'), '--space', 'bad'])).code).not.toBe(0);
  });
});

describe('GET /spaces/:slug/export?format=zip', () => {
  it('answers the Markdown folder as a zip of the pages the caller may read', async () => {
    expect((await srv.admin.post('/spaces', { slug: 'zipped', name: 'Zipped' })).status).toBe(201);
    await srv.admin.put('/pages/zipped/a', { title: 'A', content: 'See [[b]].', metadata: { k: 1 } });
    await srv.admin.put('/pages/zipped/dir/b', { title: 'B', content: 'b' });
    await srv.admin.put('/pages/zipped/secret', { title: 'Secret', content: 'hidden' });
    for (const at of ['a/logo.txt', 'secret/plan.txt']) {
      const r = await fetch(`${srv.url}/files/zipped/${at}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'text/plain' },
        body: `bytes of ${at}`,
      });
      expect([200, 201]).toContain(r.status);
    }
    expect((await srv.admin.put('/pages/zipped/secret/acl', { read: [], write: [] })).status).toBe(200);
    const res = await fetch(`${srv.url}/spaces/zipped/export?format=zip`, { headers: { authorization: `Bearer ${bob.key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="zipped-export.zip"');
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    expect(Object.keys(files).sort()).toEqual(['.kspace/pages.json', '.kspace/space.json', 'a.md', 'attachments/logo.txt', 'dir/b.md']);
    expect(strFromU8(files['attachments/logo.txt'])).toBe('bytes of a/logo.txt');
    expect(JSON.parse(strFromU8(files['.kspace/space.json'])).attachments).toEqual([
      { path: 'a', name: 'logo.txt', contentType: expect.stringMatching(/^text\/plain/), file: 'attachments/logo.txt' },
    ]);
    expect(strFromU8(files['a.md'])).toBe(
      pageToNoteFile({ path: 'a', title: 'A', content: 'See [[b]].', frontmatter: {}, metadata: { k: 1 } }).file.text,
    );
    expect(strFromU8(files['a.md'])).toBe('---\nk: 1\n---\nSee [[b]].');
    expect(JSON.parse(strFromU8(files['.kspace/space.json'])).space).toEqual({ slug: 'zipped', name: 'Zipped', description: '' });
    // The admin sees the page bob may not read.
    const all = unzipSync(
      new Uint8Array(
        await (
          await fetch(`${srv.url}/spaces/zipped/export?format=zip`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })
        ).arrayBuffer(),
      ),
    );
    expect(Object.keys(all).sort()).toEqual([
      '.kspace/pages.json',
      '.kspace/space.json',
      'a.md',
      'attachments/logo.txt',
      'attachments/plan.txt',
      'dir/b.md',
      'secret.md',
    ]);
    // The zip holds what `kspace export --format markdown` writes, byte for byte.
    const dir = path.join(tmp, 'zipped-folder');
    await exportMarkdown(new Api({ url: srv.url, key: ADMIN_KEY }), 'zipped', dir);
    const walk = (rel: string): string[] =>
      fs
        .readdirSync(path.join(dir, rel), { withFileTypes: true })
        .flatMap((e) => (e.isDirectory() ? walk(path.posix.join(rel, e.name)) : [path.posix.join(rel, e.name)]));
    expect(walk('').sort()).toEqual(Object.keys(all).sort());
    for (const f of walk('')) expect(strFromU8(all[f]), f).toBe(fs.readFileSync(path.join(dir, f), 'utf8'));
    expect((await srv.admin.get('/spaces/zipped/export?format=tar')).status).toBe(400);
  });
});
