// `kspace sync`: two folders and one server, each change made where people make them (a file
// written on disk, a PUT on the server), the sync process the real CLI.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pageToFile } from '../../src/domain/bundles/markdown-folder.ts';
import type { RoundContext } from '../../src/cli/sync/round-context.ts';
import { Api } from '../../src/cli/client.ts';
import { Syncer } from '../../src/cli/sync/engine.ts';
import { importFolder } from '../../src/cli/folders.ts';
import { KSPACE_BIN, runCliHere } from '../support/cli.ts';
import { ADMIN_KEY, startServer, type TestServer } from '../support/server.ts';
import { tempDirs } from '../support/temp-dirs.ts';
import { waitFor } from '../support/wait.ts';

let srv: TestServer;
const tempDir = tempDirs('sync');
let n = 0;

beforeAll(async () => {
  srv = await startServer();
});
afterAll(() => srv.close());
afterEach(() => expect(srv.errors).toEqual([]));

async function newSpace(): Promise<string> {
  const slug = `sync-${++n}`;
  expect((await srv.admin.post('/spaces', { slug, name: slug })).status).toBe(201);
  return slug;
}

async function sync(dir: string, space: string, extra: string[] = []): Promise<string> {
  const r = await runCliHere(['sync', dir, '--space', space, '--once', ...extra], { url: srv.url, key: ADMIN_KEY });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

const read = (dir: string, rel: string): string => fs.readFileSync(path.join(dir, rel), 'utf8');
function write(dir: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), text);
}
/** A note whose title is its file's name and that has no properties: its text is its content. */
const note = (content: string) => content;
const keptPages = (dir: string) => JSON.parse(read(dir, '.kspace/pages.json')).pages;

async function page(space: string, p: string) {
  return (await srv.admin.get(`/pages/${space}/${p}`)).body as { title: string; content: string; version: number };
}
async function pagePaths(space: string): Promise<string[]> {
  return ((await srv.admin.get(`/spaces/${space}/pages?limit=200`)).body.pages as Array<{ path: string }>).map((p) => p.path).sort();
}
/** The folder's Markdown files (the sync's own `.kspace/` aside). */
function mdFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.name.startsWith('.')) continue;
      if (e.isDirectory()) walk(child);
      else if (child.endsWith('.md')) out.push(child);
    }
  };
  walk('');
  return out.sort();
}

describe('kspace sync', { timeout: 120_000 }, () => {
  it('writes a space into an empty folder, then carries edits both ways', async () => {
    const space = await newSpace();
    await srv.admin.put(`/pages/${space}/notes/plan`, { title: 'Plan', content: 'one\ntwo\n', metadata: { status: 'draft' } });
    await srv.admin.put(`/pages/${space}/index`, { title: 'Start', content: 'See [[Plan]].\n' });
    const a = tempDir();
    await sync(a, space);
    expect(mdFiles(a)).toEqual(['index.md', 'notes/plan.md']);
    // As an export writes it: no added properties, the title kept in .kspace/pages.json (it is not the file's name).
    expect(read(a, 'notes/plan.md')).toBe('---\nstatus: draft\n---\none\ntwo\n');
    expect(read(a, 'index.md')).toBe('See [[Plan]].\n');
    expect(keptPages(a)).toEqual({ 'index.md': { title: 'Start' }, 'notes/plan.md': { title: 'Plan' } });

    // Disk → server.
    write(a, 'notes/plan.md', '---\nstatus: done\n---\none\ntwo\nthree\n');
    expect(await sync(a, space)).toContain('1 to the server');
    const p = await srv.admin.get(`/pages/${space}/notes/plan`);
    expect(p.body).toMatchObject({ title: 'Plan', content: 'one\ntwo\nthree\n', metadata: { status: 'done' }, version: 2 });

    // Server → disk.
    await srv.admin.put(`/pages/${space}/notes/plan`, {
      title: 'Plan',
      content: 'one\nTWO\nthree\n',
      metadata: { status: 'done' },
      baseVersion: 2,
    });
    expect(await sync(a, space)).toContain('1 to disk');
    expect(read(a, 'notes/plan.md')).toContain('one\nTWO\nthree\n');
    // Nothing changed: nothing to do, no new version.
    expect(await sync(a, space)).toContain('nothing to do');
    expect((await page(space, 'notes/plan')).version).toBe(3);
  });

  it('imports a folder into an empty space and leaves dotfiles and .kspaceignore patterns alone', async () => {
    const space = await newSpace();
    const a = tempDir();
    write(a, 'a.md', note('alpha\n'));
    write(a, 'drafts/b.md', note('beta\n'));
    write(a, 'scratch.tmp.md', 'temporary\n');
    write(a, '.obsidian/workspace.md', 'not a note\n');
    write(a, '.kspaceignore', '# mine\ndrafts/\n*.tmp.md\n');
    await sync(a, space);
    expect(await pagePaths(space)).toEqual(['a']);
    // A file that matches later is no longer synced, and its page stays.
    write(a, '.kspaceignore', 'drafts/\n*.tmp.md\na.md\n');
    write(a, 'a.md', note('changed while ignored\n'));
    await sync(a, space);
    expect((await page(space, 'a')).content).toBe('alpha\n');
  });

  it('merges edits of different lines, and keeps both versions of the same line', async () => {
    const space = await newSpace();
    await srv.admin.put(`/pages/${space}/doc`, { title: 'Doc', content: 'l1\nl2\nl3\nl4\n' });
    const a = tempDir();
    const b = tempDir();
    await sync(a, space);
    await sync(b, space);
    // Different lines: a merge on both sides.
    write(a, 'doc.md', note('L1 by a\nl2\nl3\nl4\n'));
    write(b, 'doc.md', note('l1\nl2\nl3\nL4 by b\n'));
    await sync(a, space);
    expect(await sync(b, space)).toContain('1 merged');
    expect((await page(space, 'doc')).content).toBe('L1 by a\nl2\nl3\nL4 by b\n');
    await sync(a, space);
    expect(read(a, 'doc.md')).toBe(read(b, 'doc.md'));

    // The same line: the server keeps the first, the second goes beside it, and becomes a page.
    write(a, 'doc.md', note('L1 by a\nl2 from a\nl3\nL4 by b\n'));
    write(b, 'doc.md', note('L1 by a\nl2 from b\nl3\nL4 by b\n'));
    await sync(a, space);
    expect(await sync(b, space)).toContain('1 conflicts');
    expect(read(b, 'doc.md')).toContain('l2 from a');
    const beside = mdFiles(b).filter((f) => f.startsWith('doc.conflict-admin-'));
    expect(beside).toHaveLength(1);
    expect(read(b, beside[0])).toContain('l2 from b');
    expect(await pagePaths(space)).toEqual(['doc', beside[0].slice(0, -3)].sort());
    await sync(a, space);
    expect(mdFiles(a)).toEqual(mdFiles(b));
  });

  it('makes a rename on disk a move (links follow, and come back to disk), and a delete the trash', async () => {
    const space = await newSpace();
    await srv.admin.put(`/pages/${space}/guides/setup`, { title: 'Setup', content: 'Install.\n' });
    await srv.admin.put(`/pages/${space}/index`, { title: 'Start', content: 'Read [the setup](guides/setup).\n' });
    const a = tempDir();
    await sync(a, space);
    fs.mkdirSync(path.join(a, 'manual'));
    fs.renameSync(path.join(a, 'guides/setup.md'), path.join(a, 'manual/setup.md'));
    expect(await sync(a, space)).toContain('1 moved');
    expect(await pagePaths(space)).toEqual(['index', 'manual/setup']);
    // The note keeps its title where it went (kept in pages.json, as it was in the file).
    expect((await page(space, 'manual/setup')).title).toBe('Setup');
    expect(keptPages(a)['manual/setup.md']).toEqual({ title: 'Setup' });
    expect(keptPages(a)['guides/setup.md']).toBeUndefined();
    const rewritten = (await page(space, 'index')).content;
    expect(rewritten).toMatch(/^Read \[the setup\]\(\S*manual\/setup\)\.\n$/);
    await sync(a, space);
    expect(read(a, 'index.md').endsWith(rewritten)).toBe(true);

    fs.rmSync(path.join(a, 'manual/setup.md'));
    expect(await sync(a, space)).toContain('1 deleted');
    expect(await pagePaths(space)).toEqual(['index']);
    const trash = await srv.admin.get(`/spaces/${space}/trash`);
    expect(trash.body.pages.map((p: { path: string }) => p.path)).toEqual(['manual/setup']);
  });

  it('follows: an edit on either side reaches the other within 2 s', async () => {
    const space = await newSpace();
    await srv.admin.put(`/pages/${space}/live`, { title: 'Live', content: 'v1\n' });
    const a = tempDir();
    const child = spawn(KSPACE_BIN, ['sync', a, '--space', space, '--interval', '200'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', SERVICE_URL: srv.url, SERVICE_API_KEY: ADMIN_KEY },
      stdio: 'ignore',
    });
    try {
      expect(await waitFor(() => fs.existsSync(path.join(a, 'live.md')), 30_000)).toBe(true); // a cold start of the CLI
      write(a, 'live.md', note('v2 from disk\n'));
      const t0 = Date.now();
      await expect.poll(async () => (await page(space, 'live')).content, { timeout: 15_000, interval: 100 }).toBe('v2 from disk\n');
      // 2 s is the aim (docs/performance.md has the figure); a loaded test machine gets room.
      expect(Date.now() - t0).toBeLessThan(10_000);
      const v = (await page(space, 'live')).version;
      await srv.admin.put(`/pages/${space}/live`, { title: 'Live', content: 'v3 from the server\n', baseVersion: v });
      expect(await waitFor(() => read(a, 'live.md').includes('v3 from the server'), 15_000)).toBe(true);
    } finally {
      // Gone before the folder is removed: a round still writing would refill it.
      if (child.exitCode === null && child.signalCode === null) {
        const closed = new Promise((resolve) => child.once('close', resolve));
        child.kill('SIGTERM');
        await closed;
      }
    }
  });

  it('loses and repeats nothing when killed with SIGKILL at any moment (20 rounds)', async () => {
    const space = await newSpace();
    const names = ['p0', 'p1', 'p2', 'p3', 'p4'];
    for (const name of names) await srv.admin.put(`/pages/${space}/${name}`, { title: name, content: `${name}\n` });
    const a = tempDir();
    await sync(a, space);
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', SERVICE_URL: srv.url, SERVICE_API_KEY: ADMIN_KEY };
    for (let round = 1; round <= 20; round++) {
      // Disk edits go to p0-p2 and server edits to p3-p4, so no round makes a conflict.
      const disk = names[round % 3];
      write(a, `${disk}.md`, `${read(a, `${disk}.md`)}disk ${round}\n`);
      const srvName = names[3 + (round % 2)];
      const cur = await page(space, srvName);
      await srv.admin.put(`/pages/${space}/${srvName}`, {
        title: srvName,
        content: `${cur.content}server ${round}\n`,
        baseVersion: cur.version,
      });
      const child = spawn(KSPACE_BIN, ['sync', a, '--space', space, '--once'], { env, stdio: 'ignore' });
      const done = new Promise((resolve) => child.on('close', resolve));
      setTimeout(() => child.kill('SIGKILL'), 150 + Math.floor(rand() * 1200));
      await done;
    }
    await sync(a, space);
    await sync(a, space);
    expect(mdFiles(a)).toEqual(names.map((x) => `${x}.md`));
    expect(await pagePaths(space)).toEqual(names);
    for (const name of names) {
      const p = await page(space, name);
      expect(read(a, `${name}.md`), name).toBe(p.content);
      const lines = p.content.split('\n').filter(Boolean);
      expect(new Set(lines).size, `${name}: a line twice`).toBe(lines.length);
    }
    const all = (await Promise.all(names.map((x) => page(space, x)))).map((p) => p.content).join('');
    for (let round = 1; round <= 20; round++) {
      expect(all, `round ${round}`).toContain(`disk ${round}\n`);
      expect(all, `round ${round}`).toContain(`server ${round}\n`);
    }
  });

  // In-process rounds (the CLI's Syncer over HTTP, as `kspace sync --once` runs it): no process
  // start per round, so the many steps of this test take a second, not a minute.
  it('carries attached files both ways in the export layout, and deletes and moves take them along', async () => {
    process.env.XDG_STATE_HOME = tempDir(); // the CLI client's read-your-writes memory, not in the real home
    const space = await newSpace();
    const api = new Api({ url: srv.url, key: ADMIN_KEY });
    const bytes = (n: number) => Buffer.from(Array.from({ length: 300 }, (_, i) => (i * n + 7) % 256));
    const fileOnServer = async (p: string) => {
      const r = await fetch(`${srv.url}/files/${space}/${p}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      return r.status === 200 ? Buffer.from(await r.arrayBuffer()) : r.status;
    };
    const putFile = async (p: string, data: Buffer) => {
      const res = await fetch(`${srv.url}/files/${space}/${p}`, {
        method: 'PUT',
        body: new Uint8Array(data),
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/octet-stream' },
      });
      expect(res.status, await res.text()).toBeLessThan(300);
    };
    await srv.admin.put(`/pages/${space}/notes/plan`, { title: 'Plan', content: '![a chart](files/chart.bin)\n' });
    await putFile('notes/plan/chart.bin', bytes(3));
    const a = tempDir();
    const b = tempDir();
    const sa = new Syncer(api, a, space, 'admin');
    const sb = new Syncer(api, b, space, 'admin');
    const bin = (dir: string, rel: string) => (fs.existsSync(path.join(dir, rel)) ? fs.readFileSync(path.join(dir, rel)) : null);

    // Server → an empty folder: at the root's files/, where the page's `files/` link finds it.
    await sa.round();
    expect(bin(a, 'files/chart.bin')).toEqual(bytes(3));
    // Disk → server: a file linked from its page is attached; one no page links to is not.
    write(a, 'notes/plan.md', `${read(a, 'notes/plan.md')}[data](files/data.bin)\n`);
    fs.writeFileSync(path.join(a, 'files/data.bin'), bytes(5));
    fs.writeFileSync(path.join(a, 'files/stray.bin'), bytes(9));
    await sa.round();
    expect(await fileOnServer('notes/plan/data.bin')).toEqual(bytes(5));
    expect(await fileOnServer('notes/plan/stray.bin')).toBe(404);
    // A second folder gets both; a change on the server comes to disk, one on disk to the server.
    await sb.round();
    expect(bin(b, 'files/data.bin')).toEqual(bytes(5));
    await putFile('notes/plan/chart.bin', bytes(11));
    fs.writeFileSync(path.join(b, 'files/data.bin'), bytes(13));
    const r = await sb.round();
    expect(r.errors).toEqual([]);
    expect(bin(b, 'files/chart.bin')).toEqual(bytes(11));
    expect(await fileOnServer('notes/plan/data.bin')).toEqual(bytes(13));
    await sa.round();
    expect(bin(a, 'files/chart.bin')).toEqual(bytes(11));
    expect(bin(a, 'files/data.bin')).toEqual(bytes(13));
    // Deletes: one on disk, one on the server, each reaching the other side.
    fs.rmSync(path.join(b, 'files/data.bin'));
    await sb.round();
    expect(await fileOnServer('notes/plan/data.bin')).toBe(404);
    expect((await srv.admin.del(`/files/${space}/notes/plan/chart.bin`)).status).toBe(204);
    await sa.round();
    expect(bin(a, 'files/chart.bin')).toBeNull();
    expect(bin(a, 'files/data.bin')).toBeNull();
    expect(bin(a, 'files/stray.bin')).toEqual(bytes(9)); // never synced: left alone
    // A page moved on the server: its file stays at the root, where its link still finds it.
    await putFile('notes/plan/keep.bin', bytes(17));
    expect((await srv.admin.post(`/spaces/${space}/moves`, { from: 'notes/plan', to: 'archive/plan' })).status).toBe(200);
    await sb.round();
    expect(bin(b, 'files/keep.bin')).toEqual(bytes(17));
    expect(fs.existsSync(path.join(b, 'archive/files'))).toBe(false); // shared at the root: it stays there
    // A page deleted on the server takes its files off the disk.
    expect((await srv.admin.del(`/pages/${space}/archive/plan`)).status).toBe(204);
    await sb.round();
    expect(bin(b, 'files/keep.bin')).toBeNull();
    expect(fs.existsSync(path.join(b, 'archive'))).toBe(false);
  });

  it('writes a file several pages have once, at the root, and import-dir of the folder attaches it to each', async () => {
    process.env.XDG_STATE_HOME = tempDir();
    const space = await newSpace();
    const api = new Api({ url: srv.url, key: ADMIN_KEY });
    const data = Buffer.from([9, 8, 7, 6]);
    for (const p of ['guides/one', 'notes/deep/two', 'three']) {
      await srv.admin.put(`/pages/${space}/${p}`, { title: p, content: '![x](files/x.bin)\n' });
      const r = await fetch(`${srv.url}/files/${space}/${p}/x.bin`, {
        method: 'PUT',
        body: new Uint8Array(data),
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/octet-stream' },
      });
      expect(r.status).toBe(201);
    }
    const a = tempDir();
    expect((await new Syncer(api, a, space, 'admin').round()).errors).toEqual([]);
    const others = (rel: string): string[] =>
      fs.readdirSync(path.join(a, rel), { withFileTypes: true }).flatMap((e) => {
        const child = rel ? `${rel}/${e.name}` : e.name;
        if (e.name.startsWith('.')) return [];
        return e.isDirectory() ? others(child) : child.endsWith('.md') ? [] : [child];
      });
    expect(others('')).toEqual(['files/x.bin']);
    expect(read(a, 'notes/deep/two.md')).toBe('![x](files/x.bin)\n'); // as the server has it
    const r = await importFolder(api, `${space}-copy`, a, 'skip');
    expect(r).toMatchObject({ created: 3, errors: [], leftOut: [] });
    for (const p of ['guides/one', 'notes/deep/two', 'three'])
      expect((await srv.admin.get(`/pages/${space}-copy/${p}/files`)).body.files.map((f: { name: string }) => f.name)).toEqual(['x.bin']);
  });

  it('imports a vault into an empty space as import-dir does: embedded files attached, the notes that changed written back', async () => {
    const space = await newSpace();
    const api = new Api({ url: srv.url, key: ADMIN_KEY });
    const v = tempDir();
    write(v, 'Guide.md', 'See ![[logo.bin]] and [[Other]].\n');
    write(v, 'Other.md', 'plain\n');
    fs.mkdirSync(path.join(v, 'Attachments'));
    fs.writeFileSync(path.join(v, 'Attachments/logo.bin'), Buffer.from([0, 1, 2, 250]));
    const r = await new Syncer(api, v, space, 'admin').round();
    expect(r.errors).toEqual([]);
    expect((await page(space, 'Guide')).content).toBe('See ![logo.bin](files/logo.bin) and [[Other]].\n');
    expect(read(v, 'Guide.md')).toBe('See ![logo.bin](files/logo.bin) and [[Other]].\n');
    expect(read(v, 'Other.md')).toBe('plain\n'); // unchanged by the import: left as written
    expect(fs.readFileSync(path.join(v, 'files/logo.bin'))).toEqual(Buffer.from([0, 1, 2, 250]));
    const listed = await srv.admin.get(`/pages/${space}/Guide/files`);
    expect(listed.body.files.map((f: { name: string }) => f.name)).toEqual(['logo.bin']);
    // The next round has nothing to do.
    const again = await new Syncer(api, v, space, 'admin').round();
    expect(again).toMatchObject({ pulled: 0, pushed: 0, created: 0, deleted: 0, conflicts: [] });
  });
});

describe('kspace sync of a folder synced before .kspace/pages.json', () => {
  it('rewrites its notes without their title: lines, changing nothing on the server, and pushes an edit made meanwhile', async () => {
    process.env.XDG_STATE_HOME = tempDir();
    const space = await newSpace();
    const api = new Api({ url: srv.url, key: ADMIN_KEY });
    await srv.admin.put(`/pages/${space}/plan`, { title: 'The plan', content: 'one\n', metadata: { status: 'draft' } });
    await srv.admin.put(`/pages/${space}/idea`, { title: 'idea', content: 'two\n', frontmatter: { description: 'text' } });
    const a = tempDir();
    const first = new Syncer(api, a, space, 'admin');
    await first.round();
    // The earlier layout: each note starts with `title:` (and `kspace:` for frontmatter), as its base does.
    const ctx = (first as unknown as { ctx: RoundContext }).ctx;
    for (const [rel, e] of Object.entries(ctx.s.files)) {
      const p = (await srv.admin.get(`/pages/${space}/${e.page}`)).body;
      const old = pageToFile(p).text;
      ctx.record(rel, e.page, e.version, old, ctx.write(rel, old));
    }
    ctx.save();
    fs.rmSync(path.join(a, '.kspace', 'pages.json'));
    expect(read(a, 'plan.md')).toBe('---\ntitle: The plan\nstatus: draft\n---\none\n');
    write(a, 'idea.md', `${read(a, 'idea.md')}three\n`);

    const r = await new Syncer(api, a, space, 'admin').round();
    expect(r).toMatchObject({ pushed: 1, pulled: 0, created: 0, conflicts: [], errors: [] });
    expect(read(a, 'plan.md')).toBe('---\nstatus: draft\n---\none\n');
    expect(read(a, 'idea.md')).toBe('---\ndescription: text\n---\ntwo\nthree\n');
    expect(keptPages(a)).toEqual({ 'plan.md': { title: 'The plan' }, 'idea.md': { frontmatterKeys: ['description'] } });
    expect(await page(space, 'plan')).toMatchObject({ title: 'The plan', version: 1 });
    expect((await srv.admin.get(`/pages/${space}/idea`)).body).toMatchObject({
      title: 'idea',
      content: 'two\nthree\n',
      frontmatter: { description: 'text' },
      metadata: {},
      version: 2,
    });
    expect(await new Syncer(api, a, space, 'admin').round()).toMatchObject({ pushed: 0, pulled: 0, created: 0 });
  });
});

describe('kspace sync following the folder’s events', () => {
  // In-process rounds, as `kspace sync` runs them while following: a round given the paths the
  // folder's events named looks at those only; the whole folder is scanned without them.
  it('pushes the paths that changed, a folder renamed as moves and a file gone as a delete', async () => {
    process.env.XDG_STATE_HOME = tempDir();
    const space = await newSpace();
    const api = new Api({ url: srv.url, key: ADMIN_KEY });
    const a = tempDir();
    write(a, 'one.md', note('one\n'));
    write(a, 'two.md', note('two\n'));
    write(a, 'notes/x.md', note('x\n'));
    write(a, 'notes/y.md', note('y\n'));
    const s = new Syncer(api, a, space, 'admin');
    expect((await s.round()).created).toBe(4);
    write(a, 'one.md', note('one, edited\n'));
    write(a, 'two.md', note('two, edited\n'));
    expect(await s.round(['one.md'])).toMatchObject({ pushed: 1 });
    expect((await page(space, 'two')).content).toBe('two\n'); // not named: not looked at
    expect(await s.round()).toMatchObject({ pushed: 1 }); // the whole folder
    expect((await page(space, 'two')).content).toBe('two, edited\n');
    // A folder renamed: its name, old and new, is what the events say.
    fs.renameSync(path.join(a, 'notes'), path.join(a, 'archive'));
    expect(await s.round(['notes', 'archive'])).toMatchObject({ moved: 2, created: 0, deleted: 0 });
    expect(await pagePaths(space)).toEqual(['archive/x', 'archive/y', 'one', 'two']);
    fs.rmSync(path.join(a, 'one.md'));
    expect(await s.round(['one.md'])).toMatchObject({ deleted: 1 });
    expect(await pagePaths(space)).toEqual(['archive/x', 'archive/y', 'two']);
    expect(await s.round()).toMatchObject({ pushed: 0, created: 0, deleted: 0, moved: 0 });
    // Nothing changed: nothing written to the state. New times on the same texts: one line.
    const journal = () => fs.readFileSync(path.join(a, '.kspace', 'sync.journal'), 'utf8').split('\n').length;
    const lines = journal();
    await s.round();
    expect(journal()).toBe(lines);
    const later = new Date(Date.now() + 60_000);
    for (const f of mdFiles(a)) fs.utimesSync(path.join(a, f), later, later);
    expect(await s.round()).toMatchObject({ pushed: 0 });
    expect(journal()).toBe(lines + 1);
  });
});
