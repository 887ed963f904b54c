import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliHereFor } from '../support/cli.ts';
import { ADMIN_KEY } from '../support/server.ts';
import { useServer } from '../support/fixture.ts';
import { fileTempDir } from '../support/temp-dirs.ts';
import { callTool, connectHttp } from '../support/mcp.ts';

const tmp = fileTempDir('cli-files');
const { srv } = useServer({
  spaces: [{ slug: 'wiki', name: 'Wiki' }],
  pages: [['wiki/notes/a', { title: 'A', content: '![p](files/p.png)' }]],
});
const cli = cliHereFor(srv);

describe('kspace files', () => {
  it("puts, lists, gets and removes a page's files", async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(3000, 7)]);
    const file = path.join(tmp, 'p.png');
    fs.writeFileSync(file, png);
    const put = await cli(['files', 'put', 'wiki', 'notes/a', file]);
    expect(put, put.stderr).toMatchObject({ code: 0 });
    expect(put.stdout).toMatch(/^p\.png {2}2\.9 KB {2}image\/png {2}sha256:[0-9a-f]{64}\n$/);
    const piped = await cli(['files', 'put', 'wiki', 'notes/a', '-', '--name', 'n.md', '--type', 'text/markdown', '--json'], '# notes');
    expect(JSON.parse(piped.stdout)).toMatchObject({ name: 'n.md', size: 7, contentType: 'text/markdown; charset=utf-8' });
    expect((await cli(['files', 'put', 'wiki', 'notes/a', '-'], 'x')).code).toBe(2);

    const ls = await cli(['files', 'ls', 'wiki', 'notes/a']);
    expect(ls.stdout).toMatch(
      /^NAME\s+SIZE\s+TYPE\s+CREATED\nn\.md\s+7 B\s+text\/markdown; charset=utf-8\s+\S+\np\.png\s+2\.9 KB\s+image\/png/,
    );
    const out = path.join(tmp, 'copy.png');
    expect((await cli(['files', 'get', 'wiki', 'notes/a', 'p.png', '-o', out])).code).toBe(0);
    expect(fs.readFileSync(out).equals(png)).toBe(true);
    expect((await cli(['files', 'get', 'wiki', 'notes/a', 'n.md'])).stdout).toBe('# notes');
    expect((await cli(['files', 'rm', 'wiki', 'notes/a', 'n.md'])).stdout).toBe('removed n.md\n');
    const gone = await cli(['files', 'get', 'wiki', 'notes/a', 'n.md']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/404 not_found/);
  });

  it('MCP list_files lists them for a reader', async () => {
    const mcp = await connectHttp(srv.url, ADMIN_KEY);
    try {
      const r = await callTool(mcp, 'list_files', { space: 'wiki', path: 'notes/a' });
      expect(r.isError).toBeFalsy();
      expect(r.json.files).toEqual([
        expect.objectContaining({ name: 'p.png', contentType: 'image/png', url: '/files/wiki/notes/a/p.png' }),
      ]);
      expect((await callTool(mcp, 'list_files', { space: 'wiki', path: 'nope' })).isError).toBe(true);
    } finally {
      await mcp.close();
    }
  });
});
