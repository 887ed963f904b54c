import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { callTool, useMcpWiki } from '../support/mcp.ts';

// Issue 18: JSON-RPC batches, a malformed Host header, and tool arguments that escape the page
// routes (`..`, `.`, `%2e%2e`, `/`).

const { srv, bob, mcp } = useMcpWiki({ door: 'http', pages: [['open', { title: 'Open page', content: 'anyone may read' }]] });

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const searchCall = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'search', arguments: { query: 'open' } } });

describe('POST /mcp', () => {
  it('refuses a JSON-RPC batch with 400 and a JSON-RPC error that says why', async () => {
    const r = await bob.req('POST', '/mcp', [searchCall(1), searchCall(2), searchCall(3), searchCall(4)], HEADERS);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(r.body.error.message).toMatch(/batch/i);
    // One message per request still works.
    const one = await bob.req('POST', '/mcp', searchCall(5), HEADERS);
    expect(one.status).toBe(200);
    expect(one.body.result.isError).toBeFalsy();
    expect(one.body.result.content[0].text).toContain('hits');
  });

  it('answers a malformed Host header with 400, not 500', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const body = JSON.stringify(searchCall(1));
      const req = http.request(
        `${srv.url}/mcp`,
        {
          method: 'POST',
          setHost: false,
          headers: { ...HEADERS, host: 'x:99999', authorization: `Bearer ${bob.key}`, 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(srv.errors).toEqual([]);
    expect(status).toBe(400);
  });
});

describe('tool arguments that would leave the page routes', () => {
  it.each([
    ['get_page', { space: '..', path: 'spaces' }, 'space'],
    ['get_page', { space: '.', path: 'open' }, 'space'],
    ['get_page', { space: 'wiki', path: '../../spaces' }, 'path'],
    ['get_page', { space: 'wiki', path: 'a/./b' }, 'path'],
    ['get_page', { space: 'wiki', path: '%2e%2e/%2e%2e/spaces' }, 'path'],
    ['get_page', { space: 'wi/ki', path: 'open' }, 'space'],
    ['get_page', { space: '%2e%2e', path: 'open' }, 'space'],
    ['get_links', { space: 'wiki', path: '..' }, 'path'],
    ['list_pages', { space: '..' }, 'space'],
    ['list_record_types', { space: '../spaces' }, 'space'],
    ['broken_links', { space: '..' }, 'space'],
    ['query_records', { space: 'wiki', type: '..' }, 'type'],
    ['put_page', { space: 'wiki', path: 'x/../../admin' }, 'path'],
    ['patch_metadata', { space: '..', path: 'open', set: { a: 1 } }, 'space'],
  ])('%s %j is refused naming %s', async (tool, args, key) => {
    const r = await callTool(mcp, tool, args);
    expect(r.isError).toBe(true);
    expect(r.text).toContain(`${key}: `);
    expect(r.text).toContain('is not valid');
  });

  it('still reads a page by a plain space and path', async () => {
    const r = await callTool(mcp, 'get_page', { space: 'wiki', path: 'open' });
    expect(r.isError).toBe(false);
  });
});
