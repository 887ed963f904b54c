// The MCP SDK and zod as the single executable carries them: a bundle of their own (an asset,
// see VENDOR_BUNDLES in src/sea-wrap.ts), evaluated when MCP is first used.
// In the program's bundle they would be a third of it and of its start's code cache, paid at
// every cold start by a server that may never see an MCP client (docs/performance.md, Cold start).
// Every specifier src/ imports them by is listed here (the build checks it).
import * as mcp from '@modelcontextprotocol/sdk/server/mcp.js';
import * as stdio from '@modelcontextprotocol/sdk/server/stdio.js';
import * as streamableHttp from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import * as types from '@modelcontextprotocol/sdk/types.js';
import * as zod from 'zod';

export const modules: Record<string, object> = {
  '@modelcontextprotocol/sdk/server/mcp.js': mcp,
  '@modelcontextprotocol/sdk/server/stdio.js': stdio,
  '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js': streamableHttp,
  '@modelcontextprotocol/sdk/types.js': types,
  zod,
};
