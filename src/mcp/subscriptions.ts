// resources/subscribe for page resources (docs/changes.md, MCP): a subscribed client gets
// notifications/resources/updated with the page's URI when the page changes. The server follows
// the change feed (src/client/changes.ts) while any page is subscribed, from the moment of the
// first subscription; the feed shows only what the key may read, so nothing else is announced.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Change } from '../model.ts';
import { currentTxid, followChanges } from '../client/changes.ts';
import type { ClientSettings } from '../client/request.ts';
import { pageUri } from './page-tools.ts';

const key = (uri: string) => {
  try {
    return decodeURIComponent(uri);
  } catch {
    return uri;
  }
};

/** The page URIs a change concerns: the page (a file's page), and for a move the address it left. */
function urisOf(c: Change): string[] {
  const page = c.event.startsWith('file.') ? c.path.slice(0, Math.max(0, c.path.lastIndexOf('/'))) : c.path;
  const out = [pageUri(c.space, page)];
  if (c.from) out.push(pageUri(c.from.space, c.from.path));
  return out;
}

/** Adds the subscribe capability and its handlers to `server` (before connect); `stop` ends the following. */
export function enableSubscriptions(server: McpServer, settings: ClientSettings, log: (line: string) => void): { stop(): void } {
  const subscribed = new Set<string>();
  const ac = new AbortController();
  let following = false;
  const follow = async () => {
    following = true;
    try {
      const since = await currentTxid(settings, ac.signal);
      await followChanges(settings, {
        since,
        signal: ac.signal,
        onChange: async (c) => {
          for (const uri of urisOf(c)) if (subscribed.has(key(uri))) await server.server.sendResourceUpdated({ uri });
        },
        onGap: (err) => log(`kspace mcp: the change stream was cut (${err instanceof Error ? err.message : String(err)}); reconnecting`),
      });
    } catch (err) {
      if (!ac.signal.aborted) log(`kspace mcp: resource subscriptions stopped: ${err instanceof Error ? err.message : String(err)}`);
    }
    following = false;
  };
  server.server.registerCapabilities({ resources: { subscribe: true } });
  server.server.setRequestHandler(SubscribeRequestSchema, async (req) => {
    subscribed.add(key(req.params.uri));
    if (!following) void follow();
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (req) => {
    subscribed.delete(key(req.params.uri));
    return {};
  });
  return { stop: () => ac.abort() };
}
