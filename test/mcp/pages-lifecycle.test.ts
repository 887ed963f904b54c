import { describe, expect, it } from 'vitest';
import { callTool, connectHttp, connectStdio, useMcpClient } from '../support/mcp.ts';
import { useServer } from '../support/fixture.ts';

const { srv, bob } = useServer({ agents: ['bob'] });
const admin = useMcpClient(() => connectHttp(srv.url, srv.admin.key!), 'the admin MCP client');
const mcp = useMcpClient(() => connectHttp(srv.url, bob.key!));

describe('MCP page life', () => {
  it('creates a space, writes without a title on update, moves, diffs, restores, deletes and restores from the trash', async () => {
    expect((await callTool(mcp, 'create_space', { slug: 'mcp', name: 'MCP' })).json).toMatchObject({ slug: 'mcp' });
    expect(
      (await callTool(mcp, 'put_page', { space: 'mcp', path: 'a', title: 'A', content: 'one\n', metadata: { stage: 'todo' } })).isError,
    ).toBeFalsy();
    const noTitle = await callTool(mcp, 'put_page', { space: 'mcp', path: 'a', content: 'two\n' });
    expect(noTitle.json).toMatchObject({ title: 'A', version: 2 });
    expect((await callTool(mcp, 'put_page', { space: 'mcp', path: 'new', content: 'x' })).text).toContain('title');
    await callTool(mcp, 'put_page', { space: 'mcp', path: 'l', title: 'L', content: '[a](/pages/mcp/a)' });

    const moved = await callTool(mcp, 'move_page', { space: 'mcp', from: 'a', to: 'b/a' });
    expect(moved.json).toEqual({ moved: [{ from: 'a', to: 'b/a' }], rewritten: [{ space: 'mcp', path: 'l' }], notRewritten: [] });

    const revs = await callTool(mcp, 'list_revisions', { space: 'mcp', path: 'b/a' });
    expect(revs.json.revisions.map((r: { version: number }) => r.version)).toEqual([2, 1]);
    expect((await callTool(mcp, 'get_revision', { space: 'mcp', path: 'b/a', version: 1 })).json.content).toBe('one\n');
    const diff = await callTool(mcp, 'diff_revisions', { space: 'mcp', path: 'b/a', from: 1, to: 2 });
    expect(diff.json.contentDiff).toContain('-one\n+two\n');
    expect((await callTool(mcp, 'restore_revision', { space: 'mcp', path: 'b/a', version: 1 })).json).toMatchObject({
      content: 'one\n',
      version: 3,
    });

    expect((await callTool(mcp, 'list_metadata_keys', { space: 'mcp' })).text).toContain('stage');

    // Deleting in a shared space: org admins.
    expect((await callTool(mcp, 'delete_page', { space: 'mcp', path: 'b/a' })).isError).toBe(true);
    expect((await callTool(admin, 'delete_page', { space: 'mcp', path: 'b/a' })).isError).toBeFalsy();
    expect((await callTool(mcp, 'list_trash', { space: 'mcp' })).json.pages.map((p: { path: string }) => p.path)).toEqual(['b/a']);
    expect((await callTool(mcp, 'restore_from_trash', { space: 'mcp', path: 'b/a' })).json).toMatchObject({ path: 'b/a', version: 4 });

    const bad = await callTool(mcp, 'move_page', { space: 'mcp', from: 'b/a', to: 'l' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain('409');
  });

  it('exposes pages as resources through a template per page address', async () => {
    await srv.admin.put('/pages/mcp/docs/guide', { title: 'Guide', content: '# Guide', metadata: { level: 2 } });
    const templates = await mcp.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toContain('kspace://pages/{space}/{+path}');
    const list = await mcp.listResources();
    expect(list.resources.map((r) => r.uri)).toContain('kspace://pages/mcp/docs/guide');
    const r = await mcp.readResource({ uri: 'kspace://pages/mcp/docs/guide' });
    expect(r.contents[0]).toMatchObject({ mimeType: 'text/markdown' });
    expect((r.contents[0] as { text: string }).text).toBe('---\ntitle: Guide\nmetadata:\n  level: 2\n---\n\n# Guide');
    await expect(mcp.readResource({ uri: 'kspace://pages/mcp/nope' })).rejects.toThrow(/no such page/);
  });

  it('works the same over stdio', { timeout: 120_000 }, async () => {
    const stdio = await connectStdio(srv.url, bob.key!);
    try {
      const d = await callTool(stdio, 'diff_revisions', { space: 'mcp', path: 'b/a', from: 2, to: 3 });
      expect(d.json.contentDiff).toContain('-two\n+one\n');
      expect((await callTool(stdio, 'restore_revision', { space: 'mcp', path: 'b/a', version: 2 })).json.content).toBe('two\n');
    } finally {
      await stdio.close();
    }
  });
});
