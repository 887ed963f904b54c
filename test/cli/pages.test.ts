import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { argv, cliHereFor } from '../support/cli.ts';
import { fileTempDir } from '../support/temp-dirs.ts';
import { useServer } from '../support/fixture.ts';

const { srv } = useServer({ spaces: [{ slug: 'wiki', name: 'Wiki' }] });
const tmp = fileTempDir('cli');
const cli = cliHereFor(srv);

describe('page put / page get', () => {
  it('round-trips a page written with --content and read back as Markdown with frontmatter', async () => {
    const put = await cli(['page', 'put', 'wiki', 'notes/hello', '--title', 'Hello', '--content', '# Hi\n\nSome text.']);
    expect(put).toMatchObject({ code: 0, stderr: '' });
    expect(put.stdout).toBe('created wiki/notes/hello (version 1)\n');
    const get = await cli(['page', 'get', 'wiki', 'notes/hello']);
    expect(get.code).toBe(0);
    expect(get.stdout).toBe('---\ntitle: Hello\n---\n\n# Hi\n\nSome text.\n');
    const again = await cli(['page', 'put', 'wiki', 'notes/hello', '--title', 'Hello', '--content', 'v2']);
    expect(again.stdout).toBe('saved wiki/notes/hello (version 2)\n');
  });

  it('takes a Markdown file: frontmatter kept, its title used when --title is absent; get output puts back unchanged', async () => {
    const file = path.join(tmp, 'doc.md');
    fs.writeFileSync(file, '---\ntitle: From a file\nowner: ann\ntags: [a, b]\n---\n\nBody with [a link](./other).\n');
    expect((await cli(['page', 'put', 'wiki', 'docs/file', '--file', file])).code).toBe(0);
    const page = (await srv.admin.get('/pages/wiki/docs/file')).body;
    expect(page).toMatchObject({
      title: 'From a file',
      frontmatter: { owner: 'ann', tags: ['a', 'b'] },
      content: 'Body with [a link](./other).\n',
    });
    const md = (await cli(['page', 'get', 'wiki', 'docs/file'])).stdout;
    fs.writeFileSync(file, md);
    const put = await cli(['page', 'put', 'wiki', 'docs/file', '--file', file]);
    expect(put.stdout).toBe('saved wiki/docs/file (version 1)\n'); // identical: no new revision
  });

  it('reads the body from a pipe, and --title wins over the frontmatter', async () => {
    const r = await cli(['page', 'put', 'wiki', 'piped', '--title', 'Piped'], '---\ntitle: ignored\n---\n# From stdin\n');
    expect(r.code).toBe(0);
    expect((await srv.admin.get('/pages/wiki/piped')).body).toMatchObject({ title: 'Piped', content: '# From stdin\n' });
  });

  it('--json prints the API object', async () => {
    const put = await cli(['page', 'put', 'wiki', 'j', '--title', 'J', '--content', 'x', '--json']);
    const saved = JSON.parse(put.stdout);
    expect(saved).toMatchObject({ space: 'wiki', path: 'j', title: 'J', version: 1 });
    const get = JSON.parse((await cli(['page', 'get', 'wiki', 'j', '--json'])).stdout);
    expect(get).toEqual((await srv.admin.get('/pages/wiki/j')).body);
    const list = JSON.parse((await cli(['pages', 'wiki', '--json'])).stdout);
    expect(list.pages.map((p: { path: string }) => p.path)).toContain('j');
    expect(list).toHaveProperty('nextCursor');
    const spaces = JSON.parse((await cli(['--json', 'spaces', 'list'])).stdout);
    expect(spaces.spaces.map((s: { slug: string }) => s.slug)).toContain('wiki');
  });

  it('types --meta values by their look; --metadata gives the rest', async () => {
    const r = await cli(
      argv`page put wiki typed --title Typed --meta points=3 --meta ratio=0.5 --meta done=false --meta stage=todo --meta code=007
        --meta quoted="42" --meta due=2025-07-01 --metadata ${'{"tags":["a","b"],"points":1}'}`,
    );
    expect(r.code).toBe(0);
    expect((await srv.admin.get('/pages/wiki/typed')).body.metadata).toEqual({
      points: 3,
      ratio: 0.5,
      done: false,
      stage: 'todo',
      code: '007',
      quoted: '42',
      due: '2025-07-01',
      tags: ['a', 'b'],
    });
  });

  it('keeps the title of an existing page when --title is absent, and refuses a new page without one (exit 2)', async () => {
    expect((await cli(['page', 'put', 'wiki', 'typed', '--meta', 'x=1'])).code).toBe(0);
    expect((await srv.admin.get('/pages/wiki/typed')).body).toMatchObject({ title: 'Typed', metadata: { x: 1 } });
    const r = await cli(['page', 'put', 'wiki', 'brand-new', '--content', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^kspace: a new page needs --title/);
  });

  it('page delete, revisions and page get --rev', async () => {
    await cli(['page', 'put', 'wiki', 'gone', '--title', 'One', '--content', 'first']);
    await cli(['page', 'put', 'wiki', 'gone', '--title', 'Two', '--content', 'second']);
    const revs = await cli(['revisions', 'wiki', 'gone']);
    expect(revs.stdout.split('\n')[0]).toMatch(/^VERSION\s+TITLE\s+AUTHOR\s+CREATED$/);
    expect(revs.stdout).toMatch(/\n2\s+Two\s+admin\s/);
    expect((await cli(['page', 'get', 'wiki', 'gone', '--rev', '1'])).stdout).toContain('title: One');
    const del = await cli(['page', 'delete', 'wiki', 'gone']);
    expect(del).toMatchObject({ code: 0, stdout: 'deleted wiki/gone\n' });
    expect((await srv.admin.get('/pages/wiki/gone')).status).toBe(404);
  });

  it('reads `revisions help <path>` as the revisions of a page in the space `help`: positional arguments win over help words after the first', async () => {
    expect((await srv.admin.post('/spaces', { slug: 'help', name: 'Help' })).status).toBe(201);
    await cli(['page', 'put', 'help', 'faq', '--title', 'FAQ', '--content', 'q']);
    const revs = await cli(['revisions', 'help', 'faq']);
    expect(revs).toMatchObject({ code: 0, stderr: '' });
    expect(revs.stdout).toMatch(/^VERSION\s+TITLE\s+AUTHOR\s+CREATED\n1\s+FAQ\s+admin\s/);
    // `kspace help <command>` and --help still print the usage text.
    expect((await cli(['help', 'revisions'])).stdout).toMatch(/^Usage: kspace revisions/);
    expect((await cli(['revisions', '--help'])).stdout).toMatch(/^Usage: kspace revisions/);
  });
});

describe('meta, acl, spaces', () => {
  it('meta set / append / unset patch single keys', async () => {
    await cli(['page', 'put', 'wiki', 'm', '--title', 'M', '--meta', 'keep=yes']);
    expect((await cli(['meta', 'set', 'wiki', 'm', 'stage=doing', 'points=5'])).stdout).toBe('changed points, stage (version 2)\n');
    expect((await cli(['meta', 'append', 'wiki', 'm', 'tags=x', 'tags=y'])).code).toBe(0);
    expect((await cli(['meta', 'append', 'wiki', 'm', 'tags=x'])).stdout).toBe('nothing changed\n');
    expect((await cli(['meta', 'unset', 'wiki', 'm', 'stage'])).code).toBe(0);
    expect((await srv.admin.get('/pages/wiki/m')).body.metadata).toEqual({ keep: 'yes', points: 5, tags: ['x', 'y'] });
    const get = await cli(['meta', 'get', 'wiki', 'm']);
    expect(get.stdout).toMatch(/^keep:\s+yes\npoints:\s+5\ntags:\s+x, y\n$/);
  });

  it('acl set / get / clear', async () => {
    await cli(['page', 'put', 'wiki', 'secret', '--title', 'S']);
    const me = (await srv.admin.get('/me')).body;
    const set = await cli(['acl', 'set', 'wiki', 'secret', '--write', me.id, '--json']);
    expect(JSON.parse(set.stdout)).toEqual({ restricted: true, read: [me.id], write: [me.id] });
    expect((await cli(['acl', 'get', 'wiki', 'secret'])).stdout).toContain(me.id);
    expect((await cli(['acl', 'clear', 'wiki', 'secret'])).stdout).toMatch(/space's default/);
  });

  it('spaces create / get / update / list as an aligned table', async () => {
    expect((await cli(['spaces', 'create', 'team', '--name', 'Team space', '--description', 'ours'])).stdout).toBe('created space team\n');
    expect((await cli(['spaces', 'update', 'team', '--default-access', 'read'])).stdout).toMatch(/default access:\s+read/);
    const list = (await cli(['spaces', 'list'])).stdout.split('\n');
    expect(list[0]).toMatch(/^SLUG\s+NAME\s+ACCESS\s+DESCRIPTION$/);
    const team = list.find((l) => l.startsWith('team '))!;
    expect(team.indexOf('Team space')).toBe(list[0].indexOf('NAME'));
    expect((await cli(['spaces', 'get', 'team', '--json'])).stdout).toContain('"defaultAccess": "read"');
  });
});
