// A foreign MCP server (official TypeScript SDK, `McpServer`) whose tools
// change while it runs: calling `grow` registers the tool `extra`, and the
// SDK sends `notifications/tools/list_changed`. The gateway tests mount it
// to check that a gateway lists an upstream's tools again on that
// notification. `meta` answers with the request's `_meta` as JSON (what a
// gateway's handoff carries over).
//
// Usage: node changing-tools.mjs   (stdio)

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'changing-tools', version: '1.0.0' });

let grown = false;

server.registerTool(
  'grow',
  { description: 'Adds the tool `extra` (once).', inputSchema: {} },
  async () => {
    if (!grown) {
      grown = true;
      server.registerTool(
        'extra',
        { description: 'Added by `grow`.', inputSchema: {} },
        async () => ({ content: [{ type: 'text', text: 'extra here' }] }),
      );
    }
    return { content: [{ type: 'text', text: 'grown' }] };
  },
);

server.registerTool(
  'meta',
  { description: "Answers with the request's _meta as JSON.", inputSchema: {} },
  async (_args, extra) => ({ content: [{ type: 'text', text: JSON.stringify(extra._meta ?? null) }] }),
);

await server.connect(new StdioServerTransport());
