// resources/subscribe over stdio (`kspace mcp`) with the SDK's own client: a subscribed page's
// change arrives as notifications/resources/updated; an unsubscribed, unreadable or other page's does not.
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connectHttp, useMcpWiki } from '../support/mcp.ts';
import { waitFor } from '../support/wait.ts';

const updated: string[] = [];
const { srv, bob, mcp } = useMcpWiki({
  door: 'stdio',
  pages: ['watched', 'other', 'hidden'].map((p): [string, Record<string, unknown>] => [p, { title: p, content: '' }]),
  hidden: 'read-write',
  onConnect: (c) => c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri)),
});
const until = (cond: () => boolean, ms = 15_000) => waitFor(cond, ms);

describe('MCP resource subscriptions', () => {
  it('the stdio server offers them, the stateless /mcp door does not', async () => {
    expect(mcp.getServerCapabilities()?.resources?.subscribe).toBe(true);
    const http = await connectHttp(srv.url, bob.key!);
    expect(http.getServerCapabilities()?.resources?.subscribe).toBeFalsy();
    await http.close();
  });

  it('sends notifications/resources/updated for a subscribed page, its files and its move, and nothing else', async () => {
    await mcp.subscribeResource({ uri: 'kspace://pages/wiki/watched' });
    await mcp.subscribeResource({ uri: 'kspace://pages/wiki/hidden' });
    // Changes before the follower is connected are not announced: write until one is.
    const end = Date.now() + 15_000;
    let n = 0;
    while (!updated.includes('kspace://pages/wiki/watched') && Date.now() < end) {
      await srv.admin.put('/pages/wiki/watched', { content: `v${n++}` });
      await until(() => updated.length > 0, 500);
    }
    expect(updated).toContain('kspace://pages/wiki/watched');
    updated.length = 0;
    await srv.admin.put('/pages/wiki/other', { content: 'not watched' });
    await srv.admin.put('/pages/wiki/hidden', { content: 'not readable by bob' });
    expect((await srv.admin.req('PUT', '/files/wiki/watched/a.txt', 'x', { 'content-type': 'text/plain' })).status).toBe(201);
    expect(await until(() => updated.length >= 1)).toBe(true);
    await srv.admin.post('/spaces/wiki/moves', { from: 'watched', to: 'moved' });
    expect(await until(() => updated.length >= 2)).toBe(true);
    expect(updated).toEqual(['kspace://pages/wiki/watched', 'kspace://pages/wiki/watched']);
    await mcp.unsubscribeResource({ uri: 'kspace://pages/wiki/watched' });
    await srv.admin.put('/pages/wiki/moved', { content: 'after' });
    await srv.admin.post('/spaces/wiki/moves', { from: 'moved', to: 'watched' });
    await srv.admin.put('/pages/wiki/other', { content: 'a change to wait for' });
    await new Promise((r) => setTimeout(r, 1500));
    expect(updated.length).toBe(2);
  });
});
