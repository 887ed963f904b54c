import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliHere } from '../support/cli.ts';
import { ADMIN_KEY, newAgent, startServer, type TestServer } from '../support/server.ts';

let srv: TestServer;
let tmp: string;
const cli = (args: string[], opts: { input?: string; key?: string; cwd?: string } = {}) =>
  runCliHere(args, { url: srv.url, key: opts.key ?? ADMIN_KEY, input: opts.input, cwd: opts.cwd });

beforeAll(async () => {
  srv = await startServer();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-cli-kb-'));
  await srv.admin.post('/spaces', { slug: 'kb', name: 'KB' });
});
afterAll(async () => {
  await srv.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('moves, revisions and trash from the CLI', { timeout: 240_000 }, () => {
  it('page move rewrites links and reports', async () => {
    await srv.admin.put('/pages/kb/old', { title: 'Old', content: 'x' });
    await srv.admin.put('/pages/kb/linker', { title: 'L', content: '[o](/pages/kb/old)' });
    const r = await cli(['page', 'move', 'kb', 'old', 'new']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe('moved kb/old -> kb/new\nrewrote links in kb/linker\n');
    expect((await srv.admin.get('/pages/kb/linker')).body.content).toBe('[o](/pages/kb/new)');
    const j = JSON.parse((await cli(['page', 'move', 'kb', 'new', 'f/new', '--json'])).stdout);
    expect(j.moved).toEqual([{ from: 'new', to: 'f/new' }]);
    await srv.admin.put('/pages/kb/dir/a', { title: 'A', content: '' });
    expect((await cli(['page', 'move', 'kb', 'dir', 'folder', '--prefix'])).stdout).toBe('moved kb/dir/a -> kb/folder/a\n');
    const bad = await cli(['page', 'move', 'kb', 'folder/a', '../x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('to');
  });

  it('revisions list, diff and restore', async () => {
    await srv.admin.put('/pages/kb/r', { title: 'R1', content: 'one\n', metadata: { a: 1 } });
    await srv.admin.put('/pages/kb/r', { title: 'R2', content: 'two\n', metadata: { a: 2 } });
    expect((await cli(['revisions', 'kb', 'r'])).stdout).toMatch(/^VERSION\s+TITLE/);
    expect((await cli(['revisions', 'list', 'kb', 'r', '--json'])).stdout).toContain('"version": 2');
    const d = await cli(['revisions', 'diff', 'kb', 'r', '1', '2']);
    expect(d.code).toBe(0);
    expect(d.stdout).toContain('title: R1 -> R2\nmetadata changed: a\n');
    expect(d.stdout).toContain('-one\n+two\n');
    expect(JSON.parse((await cli(['revisions', 'diff', 'kb', 'r', '1', '2', '--json'])).stdout).metadataChanged).toEqual(['a']);
    expect((await cli(['revisions', 'diff', 'kb', 'r', 'x', '2'])).code).toBe(2);
    const r = await cli(['revisions', 'restore', 'kb', 'r', '1']);
    expect(r.stdout).toBe('restored kb/r from version 1 (now version 3)\n');
    expect((await srv.admin.get('/pages/kb/r')).body).toMatchObject({ title: 'R1', content: 'one\n', metadata: { a: 1 } });
  });

  it('trash list and restore', async () => {
    await srv.admin.put('/pages/kb/t', { title: 'T', content: 'gone' });
    await cli(['page', 'delete', 'kb', 't']);
    const l = await cli(['trash', 'list', 'kb']);
    expect(l.stdout).toMatch(/^PATH\s+TITLE\s+VERSION\s+DELETED\s+BY\nt\s+T\s+1\s+\S+\s+admin\n$/);
    expect((await cli(['trash', 'restore', 'kb', 't', '--to', 'back/t'])).stdout).toBe('restored kb/back/t (version 2)\n');
    expect((await cli(['trash', 'list', 'kb'])).stdout).toBe('the trash is empty\n');
  });
});

describe('people and keys from the CLI', { timeout: 240_000 }, () => {
  it('whoami, principals, keys and ACLs by name', async () => {
    expect((await cli(['whoami'])).stdout).toMatch(/^name:\s+admin\nid:\s+p_\S+\nkind:\s+agent\norg admin:\s+true\n$/);
    const c = await cli(['principals', 'create', 'erin']);
    expect(c.stdout).toMatch(/^created agent erin \(p_\S+\)\n$/);
    expect((await cli(['principals', 'list'])).stdout).toMatch(/\nerin\s+p_\S+\s+agent/);
    const k = await cli(['keys', 'create', 'erin']);
    expect(k.code).toBe(0);
    const key = k.stdout.trim();
    expect((await cli(['whoami', '--json'], { key })).stdout).toContain('"name": "erin"');
    const list = await cli(['keys', 'list', 'erin', '--json']);
    const [entry] = JSON.parse(list.stdout);
    expect((await cli(['keys', 'revoke', entry.id])).stdout).toBe(`revoked ${entry.id}\n`);
    expect((await cli(['whoami'], { key })).code).toBe(1);
    expect((await cli(['keys', 'list', 'nobody'])).code).toBe(2);
    // ACLs name principals by name as well as by id.
    const frank = await newAgent(srv, 'frank');
    await srv.admin.put('/pages/kb/acl-page', { title: 'A', content: '' });
    const set = await cli(['acl', 'set', 'kb', 'acl-page', '--write', 'frank', '--json']);
    expect(JSON.parse(set.stdout)).toMatchObject({ restricted: true, write: [frank.id] });
    const unknown = await cli(['acl', 'set', 'kb', 'acl-page', '--read', 'nobody-here']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('read[0]');
  });

  it('prints completion scripts for bash, zsh and fish', async () => {
    const b = await cli(['completion', 'bash']);
    expect(b.stdout).toContain('complete -F _kspace kspace');
    expect(b.stdout).toContain('"revisions") words="list diff restore');
    expect((await cli(['completion', 'zsh'])).stdout).toContain('bashcompinit');
    expect((await cli(['completion', 'fish'])).stdout).toContain("complete -c kspace -n '__fish_seen_subcommand_from page' -a 'move'");
    expect((await cli(['completion', 'tcsh'])).code).toBe(2);
  });
});

describe('small things', { timeout: 240_000 }, () => {
  it("page get shows a record's metadata in its frontmatter, and page put reads it back", async () => {
    await srv.admin.put('/pages/kb/m', {
      title: 'M',
      content: 'body',
      frontmatter: { tags: ['x'] },
      metadata: { stage: 'todo', points: 3 },
    });
    const g = await cli(['page', 'get', 'kb', 'm']);
    expect(g.stdout).toMatch(/^---\ntitle: M\ntags:\n  - x\nmetadata:\n(  (stage: todo|points: 3)\n){2}---\n\nbody\n$/);
    const edited = g.stdout.replace('stage: todo', 'stage: done');
    expect((await cli(['page', 'put', 'kb', 'm', '--file', '-'], { input: edited })).code).toBe(0);
    expect((await srv.admin.get('/pages/kb/m')).body).toMatchObject({
      metadata: { stage: 'done', points: 3 },
      frontmatter: { tags: ['x'] },
    });
  });

  it("runs the README's CLI example as written", async () => {
    const readme = fs.readFileSync(path.join(import.meta.dirname, '../../README.md'), 'utf8');
    const block = /## CLI[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1];
    const lines = block.split('\n').filter((l) => l.startsWith('kspace '));
    expect(lines.length).toBeGreaterThan(4);
    fs.writeFileSync(path.join(tmp, 'today.md'), '# Today\n\nNotes.\n');
    for (const line of lines) {
      const command = line.replace(/\s+#.*$/, ''); // a trailing comment, as the shell reads it
      const args = [...command.slice('kspace '.length).matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
      const r = await cli(args, { cwd: tmp });
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
    }
    expect(fs.existsSync(path.join(tmp, 'wiki.json'))).toBe(true);
    expect(fs.existsSync(path.join(tmp, 'wiki-md', 'journal', 'today.md'))).toBe(true);
    expect((await srv.admin.get('/pages/notes/journal/today')).status).toBe(200);
  });
});
