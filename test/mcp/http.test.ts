import { describe, expect, it } from 'vitest';
import { callTool, TOOL_NAMES, WRITE_TOOLS, useMcpWiki } from '../support/mcp.ts';

const { srv, bob, mcp } = useMcpWiki({
  door: 'http',
  recordCreated: true,
  pages: [
    ['open', { title: 'Open page', content: 'anyone may read', metadata: { stage: 'todo', points: 3 } }],
    ['hidden', { title: 'Hidden page', content: 'admins only', metadata: { stage: 'todo', points: 5 } }],
  ],
  hidden: 'write',
});

describe('MCP over Streamable HTTP at /mcp', () => {
  it('lists every tool with a description and an input schema; reads are annotated read-only', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
    for (const t of tools) {
      expect(t.description!.length).toBeGreaterThan(30);
      expect(t.inputSchema.type).toBe('object');
      expect(t.annotations?.readOnlyHint).toBe(!WRITE_TOOLS.includes(t.name));
    }
    const put = tools.find((t) => t.name === 'put_page')!;
    expect(put.inputSchema.required).toEqual(['space', 'path']);
  });

  it('reads: list_spaces, get_page, list_pages', async () => {
    const spaces = await callTool(mcp, 'list_spaces', {});
    expect(spaces.isError).toBe(false);
    expect(spaces.json.spaces.map((s: { slug: string }) => s.slug)).toEqual(expect.arrayContaining(['wiki', '~bob']));
    const page = await callTool(mcp, 'get_page', { space: 'wiki', path: 'open' });
    expect(page.json).toMatchObject({
      space: 'wiki',
      path: 'open',
      title: 'Open page',
      content: 'anyone may read',
      metadata: { stage: 'todo' },
    });
  });

  it('a write shows up over HTTP and records page.created with actor kind agent', async () => {
    const r = await callTool(mcp, 'put_page', {
      space: 'wiki',
      path: 'from-mcp',
      title: 'Written by an agent',
      content: '# Hi',
      metadata: { source: 'mcp' },
    });
    expect(r.isError).toBe(false);
    expect(r.json).toMatchObject({ path: 'from-mcp', version: 1 });
    const got = await srv.admin.get('/pages/wiki/from-mcp');
    expect(got.body).toMatchObject({ title: 'Written by an agent', content: '# Hi', metadata: { source: 'mcp' } });
    const rows = srv.svc.db.prepare("SELECT event, payload FROM events WHERE event = 'page.created'").all() as Array<{ payload: string }>;
    const payloads = rows.map((row) => JSON.parse(row.payload));
    expect(payloads.find((p) => p.page.path === 'from-mcp')).toMatchObject({
      actor: { id: bob.id, kind: 'agent' },
      page: { space: 'wiki', title: 'Written by an agent', version: 1 },
    });

    const patched = await callTool(mcp, 'patch_metadata', {
      space: 'wiki',
      path: 'from-mcp',
      set: { stage: 'doing', source: null },
      appendUnique: { tags: ['a'] },
    });
    expect(patched.json).toMatchObject({ changedKeys: ['source', 'stage', 'tags'], metadata: { stage: 'doing', tags: ['a'] } });
  });

  it('a page hidden by an ACL stays hidden: get_page is an isError 404, list_pages leaves it out', async () => {
    const r = await callTool(mcp, 'get_page', { space: 'wiki', path: 'hidden' });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^404 not_found: /);
    const list = await callTool(mcp, 'list_pages', { space: 'wiki' });
    expect(list.json.pages.map((p: { path: string }) => p.path)).not.toContain('hidden');
    const write = await callTool(mcp, 'put_page', { space: 'wiki', path: 'hidden', title: 'Overwritten?' });
    expect(write.isError).toBe(true);
    expect((await srv.admin.get('/pages/wiki/hidden')).body.title).toBe('Hidden page');
  });

  it('bad input is an isError result listing each issue by field, never a protocol error', async () => {
    const r = await callTool(mcp, 'put_page', { space: 'wiki', path: 'bad', title: 'Bad', metadata: { nested: { a: 1 }, list: [[1]] } });
    expect(r.isError).toBe(true);
    expect(r.text.split('\n')[0]).toMatch(/^400 validation_failed: /);
    expect(r.text).toContain('\nIssues:\n');
    expect(r.text).toMatch(/\n- metadata\.nested: .+ \(type\)/);
    expect((await srv.admin.get('/pages/wiki/bad')).status).toBe(404);
    const wrongArgs = await callTool(mcp, 'get_page', { space: 'wiki' });
    expect(wrongArgs.isError).toBe(true);
    expect(wrongArgs.text).toMatch(/path/);
  });

  it('answers 401 problem+json without a valid key, 405 to GET (stateless endpoint)', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const none = await fetch(`${srv.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(init) });
    expect(none.status).toBe(401);
    expect(none.headers.get('content-type')).toBe('application/problem+json');
    expect(await none.json()).toMatchObject({ status: 401, code: 'unauthorized' });
    const bad = await fetch(`${srv.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer ks_wrong' },
      body: JSON.stringify(init),
    });
    expect(bad.status).toBe(401);
    const get = await fetch(`${srv.url}/mcp`, { headers: { authorization: `Bearer ${bob.key}`, accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });
});
