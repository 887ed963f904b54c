import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { callTool, connectStdio, TOOL_NAMES, useMcpWiki } from '../support/mcp.ts';

const { srv, bob, mcp } = useMcpWiki({
  door: 'stdio',
  recordCreated: true,
  pages: [
    ['open', { title: 'Open page', content: 'hello' }],
    ['hidden', { title: 'Hidden page' }],
  ],
  hidden: 'write',
});

describe('kspace mcp (stdio, forwarding to SERVICE_URL)', () => {
  it('lists the same tools as /mcp', async () => {
    expect((await mcp.listTools()).tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
  });

  it('reads a page and writes one that shows up over HTTP with a page.created event by an agent', async () => {
    expect((await callTool(mcp, 'get_page', { space: 'wiki', path: 'open' })).json).toMatchObject({ title: 'Open page', content: 'hello' });
    const w = await callTool(mcp, 'put_page', { space: 'wiki', path: 'via-stdio', title: 'Via stdio', metadata: { n: 1 } });
    expect(w.isError).toBe(false);
    expect((await srv.admin.get('/pages/wiki/via-stdio')).body).toMatchObject({ title: 'Via stdio', metadata: { n: 1 } });
    const row = srv.svc.db.prepare("SELECT payload FROM events WHERE event = 'page.created' AND payload LIKE '%via-stdio%'").get() as {
      payload: string;
    };
    expect(JSON.parse(row.payload).actor).toEqual({ id: bob.id, kind: 'agent' });
  });

  it('keeps an ACL-hidden page hidden and reports errors as isError results', async () => {
    const r = await callTool(mcp, 'get_page', { space: 'wiki', path: 'hidden' });
    expect(r).toMatchObject({ isError: true, text: expect.stringMatching(/^404 not_found/) });
    const bad = await callTool(mcp, 'patch_metadata', { space: 'wiki', path: 'open', set: { deep: { x: 1 } } });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/\nIssues:\n- set\.deep: .+ \(type\)$/);
    expect(mcp.stderr()).toBe('');
  });

  it('an unreachable server is an isError result, not a crash', async () => {
    const lost = await connectStdio('http://127.0.0.1:9', bob.key!);
    try {
      const r = await callTool(lost, 'list_spaces', {});
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/^cannot reach http:\/\/127\.0\.0\.1:9/);
    } finally {
      await lost.close();
    }
  });

  it('answers every request read before stdin closed, then exits 0', async () => {
    const msgs = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_page', arguments: { space: 'wiki', path: 'open' } } },
    ];
    const r = await runCli(['mcp'], { url: srv.url, key: bob.key!, input: msgs.map((m) => JSON.stringify(m)).join('\n') + '\n' });
    expect(r.code).toBe(0);
    const answers = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(answers.map((a) => a.id)).toEqual([1, 2]);
    expect(JSON.parse(answers[1].result.content[0].text)).toMatchObject({ title: 'Open page' });
  });
});
